// lumen_dumpState: the whole live state and the latest ledger's values as a JSON ledger snapshot, the
// file soroban-sdk tests (Env::from_ledger_snapshot_file) and --load-state read. Answered, when it fits
// the answer budget (`lumen-rpc dev dump-state FILE` writes that answer on the caller's side); or,
// for states of any size, written as `file` into the folder the node was started with (--state-dir):
// a plain name, never a path, so no request chooses where on the node's machine bytes go
// (standalone/stateDir.ts). No ledger closes while it is read, so the snapshot is one ledger's end
// state. About 0.1 ms an entry here: the method's time limit is the request's (25 s by default, some
// 200,000 entries).
import { RpcError } from '../../errors.ts';
import { RESPONSE_TOO_LARGE_CODE } from '../../answerBudget.ts';
import { ledgerSequence, object, uint32 } from '../shared/schemas.ts';
import { snapshotObject, SnapshotError, writeSnapshot } from '../../../standalone/ledgerSnapshot.ts';
import { StateFileError } from '../../../standalone/stateDir.ts';
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
  // the CLI's FILE is the caller's own file: it takes the answer and writes it there
  cli: { command: 'dump-state', args: [], answerTo: 'file' },
  paramsSchema: {
    type: 'object',
    properties: {
      file: { type: 'string', minLength: 1, description: 'a plain file name (no folders) in the node\'s --state-dir, written instead of answering' },
      overwrite: { type: 'boolean', description: 'with `file`: replace an existing file of that name (default false: refused)' },
    },
    additionalProperties: false,
  },
  doc: {
    summary: 'Dump the whole state as a JSON ledger snapshot (as the answer, or to a file in --state-dir)',
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
    const file = params.file as string | undefined;
    const stateDir = ctx.stateDir;
    if (file === undefined && params.overwrite !== undefined) throw devRefused('overwrite goes with file');
    if (file !== undefined && stateDir === undefined) {
      throw devRefused('this node writes no files for requests: it was started without --state-dir; '
        + 'call lumen_dumpState without `file` for the snapshot as the answer (lumen-rpc dev dump-state FILE writes it on your side)');
    }
    // no close while the state is read; requests are served meanwhile (the call's time slices)
    return network.exclusive(async () => {
      const checkpoint = () => call.checkpoint();
      try {
        if (file !== undefined && stateDir !== undefined) {
          let written = { entries: 0, ledger: 0 };
          const path = await stateDir.write(file, params.overwrite === true, async (sink) => {
            written = await writeSnapshot(ctx.store, network.networkId, sink, checkpoint);
          });
          return { path, ...written };
        }
        const limit = call.budget.limit - call.budget.used;
        const answer = await snapshotObject(ctx.store, network.networkId, limit, checkpoint);
        if ('over' in answer) {
          throw new RpcError(RESPONSE_TOO_LARGE_CODE, 'response size limit exceeded',
            `the state is over ${answer.bytes} bytes as JSON, more than this answer's ${call.budget.limit}-byte budget `
            + '(max-response-body-bytes): start the node with --state-dir and give `file` to write it there');
        }
        return answer.snapshot;
      } catch (e) {
        if (e instanceof SnapshotError || e instanceof StateFileError) throw devRefused(e.message);
        if ((e as NodeJS.ErrnoException).code && file !== undefined) throw devRefused(`cannot write ${file}: ${(e as Error).message}`);
        throw e;
      }
    });
  },
};
