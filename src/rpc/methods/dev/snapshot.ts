// lumen_snapshot: names the latest ledger and the transaction queue as they are now, so that
// lumen_revert can bring the network back to them (tests that each start from the same state).
import { ledgerSequence, object } from '../shared/schemas.ts';
import { RevertRefused, takeSnapshot } from '../../../standalone/snapshots.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const snapshot: DevMethod = {
  name: 'lumen_snapshot',
  cli: { command: 'snapshot', args: [] },
  paramsSchema: { type: 'object', properties: {}, additionalProperties: false },
  doc: {
    summary: 'Snapshot the network (the latest ledger and the transaction queue)',
    result: {
      name: 'snapshotResult',
      schema: object({
        id: { type: 'string', pattern: '^0x[0-9a-f]+$', description: 'the snapshot id for lumen_revert ("0x1", "0x2", ...)' },
        ledger: ledgerSequence,
      }),
    },
  },
  async handler(_params, ctx) {
    try {
      return await takeSnapshot(devNetwork(ctx), ctx.store, ctx.config);
    } catch (e) {
      if (e instanceof RevertRefused) throw devRefused(e.message);
      throw e;
    }
  },
};
