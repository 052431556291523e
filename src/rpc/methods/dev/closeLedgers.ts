// lumen_closeLedgers: closes `count` ledgers now, whatever the close mode; the first holds what is
// queued, the rest are empty.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const closeLedgers: DevMethod = {
  name: 'lumen_closeLedgers',
  cli: { command: 'close-ledgers', args: ['count'] },
  paramsSchema: {
    type: 'object',
    properties: { count: { type: 'integer', minimum: 1, maximum: 1000 } },
    additionalProperties: false,
  },
  doc: {
    summary: 'Close ledgers now',
    result: { name: 'closeLedgersResult', schema: object({ latestLedger: ledgerSequence }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const count = (params.count as number | undefined) ?? 1;
    let latestLedger = 0;
    for (let i = 0; i < count; i++) latestLedger = await network.closeNextLedger();
    return { latestLedger };
  },
};
