// lumen_dumpState: the whole live state and the latest ledger's values as a JSON ledger snapshot, the
// file soroban-sdk tests (Env::from_ledger_snapshot_file) and --load-state read. With `path`, written
// to that file on the node's machine (a state of any size); without, answered, when it fits the answer
// budget. No ledger closes while it is read, so the snapshot is one ledger's end state. About 0.1 ms
// an entry here: the method's time limit is the request's (25 s by default, some 200,000 entries).
import { RpcError } from '../../errors.ts';
import { RESPONSE_TOO_LARGE_CODE } from '../../answerBudget.ts';
import { ledgerSequence, object, uint32 } from '../shared/schemas.ts';
import { snapshotObject, SnapshotError, writeSnapshotFile } from '../../../standalone/ledgerSnapshot.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

const snapshotSchema = {
  type: 'object',
  description: 'a soroban-ledger-snapshot LedgerSnapshot: ledger values and ledger_entries [{entry (LedgerEntry in stellar-xdr JSON), live_until}]',
  properties: {
    protocol_version: uint32, sequence_number: ledgerSequence, timestamp: { type: 'integer', minimum: 0 },
    network_id: { type: 'string', pattern: '^[0-9a-f]{64}$' }, base_reserve: uint32,
    min_persistent_entry_ttl: uint32, min_temp_entry_ttl: uint32, max_entry_ttl: uint32,
    ledger_entries: { type: 'array', items: { type: 'object' } },
  },
};

export const dumpState: DevMethod = {
  name: 'lumen_dumpState',
  cli: { command: 'dump-state', args: ['path'] },
  paramsSchema: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1, description: 'a file on the node\'s machine (relative: to the node\'s working folder)' } },
    additionalProperties: false,
  },
  doc: {
    summary: 'Dump the whole state as a JSON ledger snapshot (to a file, or as the answer)',
    result: {
      name: 'dumpStateResult',
      schema: {
        oneOf: [
          object({ path: { type: 'string' }, entries: uint32, ledger: ledgerSequence }),
          snapshotSchema,
        ],
      },
    },
  },
  async handler(params, ctx, call) {
    const network = devNetwork(ctx);
    const path = params.path as string | undefined;
    // no close while the state is read; requests are served meanwhile (the call's time slices)
    return network.exclusive(async () => {
      const checkpoint = () => call.checkpoint();
      try {
        if (path !== undefined) return await writeSnapshotFile(ctx.store, network.networkId, path, checkpoint);
        const limit = call.budget.limit - call.budget.used;
        const answer = await snapshotObject(ctx.store, network.networkId, limit, checkpoint);
        if ('over' in answer) {
          throw new RpcError(RESPONSE_TOO_LARGE_CODE, 'response size limit exceeded',
            `the state is over ${answer.bytes} bytes as JSON, more than this answer's ${call.budget.limit}-byte budget `
            + '(max-response-body-bytes): give `path` to write it to a file on the node\'s machine');
        }
        return answer.snapshot;
      } catch (e) {
        if (e instanceof SnapshotError) throw devRefused(e.message);
        if ((e as NodeJS.ErrnoException).code && path !== undefined) throw devRefused(`cannot write ${path}: ${(e as Error).message}`);
        throw e;
      }
    });
  },
};
