// The JSON schema of a trace (src/trace/types.ts), for rpc.discover: lumen_traceTransaction's result and
// simulateTransaction's `trace` member.
import type { JsonSchema } from '../types.ts';
import { arrayOf, described, object, optional, uint32 } from './schemas.ts';

const xdrJson = (what: string): JsonSchema => ({ description: `${what}, in the stellar-xdr JSON form` });
const stroops: JsonSchema = { type: 'string', pattern: '^-?[0-9]+$', description: 'stroops, as a decimal string' };
const count: JsonSchema = { type: 'integer' };
const cost = (what: string): JsonSchema => object({ inclusive: count, exclusive: count }, `${what}: with the callees (inclusive) and without`);

const storageCall = object({
  call: { type: 'string' },
  access: { enum: ['read', 'write', 'delete', 'extend'] },
  storage: optional({ type: 'string' }),
  key: described({ type: 'string' }, 'as the host shows it'),
  value: optional({ type: 'string' }),
});

const event = object({
  index: uint32,
  contract: { type: ['string', 'null'] },
  type: { enum: ['contract', 'system'] },
  topics: arrayOf(xdrJson('ScVal')),
  data: xdrJson('ScVal'),
  successful: { type: 'boolean' },
});

export const traceFrameSchema: JsonSchema = object({
  id: uint32,
  kind: { enum: ['host_function', 'contract', 'sac'] },
  contract: optional({ type: 'string' }),
  function: { type: 'string' },
  args: arrayOf(xdrJson('ScVal')),
  result: optional(xdrJson('ScVal')),
  error: optional({ type: 'string' }),
  rolledBack: { type: 'boolean' },
  cpuInstructions: cost('CPU instructions the host metered'),
  memoryBytes: cost('memory bytes the host metered'),
  storage: arrayOf(storageCall),
  events: arrayOf(event),
  authorizedBy: arrayOf(uint32),
  calls: arrayOf({ description: 'the frames it called, each a frame like this one' }),
}, 'one frame of the invocation tree');

const authNode = object({
  id: uint32,
  contract: optional({ type: 'string' }),
  function: { type: 'string' },
  args: arrayOf(xdrJson('ScVal')),
  frames: arrayOf(uint32),
  subInvocations: arrayOf({ description: 'nested authorized invocations, each a node like this one' }),
});

export const transactionTraceSchema: JsonSchema = object({
  hash: { type: 'string' },
  ledger: optional(uint32),
  applicationOrder: optional(uint32),
  status: { type: 'string' },
  reproduced: optional(object({ result: { type: 'boolean' }, meta: { type: 'boolean' }, difference: optional({ type: 'string' }) })),
  operations: arrayOf(object({
    index: uint32,
    type: { type: 'string' },
    invocation: optional(traceFrameSchema),
    stateChanges: arrayOf(object({
      key: xdrJson('LedgerKey'), before: xdrJson('LedgerEntry (null: absent)'), after: xdrJson('LedgerEntry (null: deleted)'),
      frames: arrayOf(uint32),
    })),
  })),
  auth: arrayOf(object({
    address: { type: 'string' },
    credentials: { enum: ['source_account', 'address', 'address_v2', 'address_with_delegates'] },
    root: authNode,
  })),
  host: optional(object({
    cpuInstructions: count, memoryBytes: count,
    outsideFrames: object({ cpuInstructions: count, memoryBytes: count }),
  })),
  fee: optional(object({
    declaredResourceFee: stroops, charged: stroops, inclusion: stroops, nonRefundable: stroops, refundable: stroops, rent: stroops,
    parts: object({
      baseline: stroops, instructions: stroops, diskReadEntries: stroops, writeEntries: stroops, diskReadBytes: stroops, writeBytes: stroops,
      transactionSize: stroops, contractEvents: stroops,
    }),
  })),
}, 'a transaction\'s trace (docs/tracing.md)');
