// lumen_closeLedgers: closes `count` ledgers now, whatever the close mode; the first holds what is
// queued, the rest are empty. Beyond the first they are fast-forwarded (src/standalone/fastForward.ts):
// a million ledgers take seconds, with the evictions and state-size samples closing them one by one
// would have made, `closeTimeStep` seconds apart; the clock then runs at least at the last close time.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const MAX_CLOSE_LEDGERS = 10_000_000;
/** A year: far enough for any TTL or time lock, and close times stay exact JSON numbers. */
export const MAX_CLOSE_TIME_STEP = 31_536_000;

export const closeLedgers: DevMethod = {
  name: 'lumen_closeLedgers',
  cli: { command: 'close-ledgers', args: ['count', 'closeTimeStep'] },
  paramsSchema: {
    type: 'object',
    properties: {
      count: { type: 'integer', minimum: 1, maximum: MAX_CLOSE_LEDGERS },
      closeTimeStep: { type: 'integer', minimum: 1, maximum: MAX_CLOSE_TIME_STEP },
    },
    additionalProperties: false,
  },
  doc: {
    summary: 'Close ledgers now (many at once: fast-forward)',
    result: {
      name: 'closeLedgersResult',
      schema: object({
        latestLedger: ledgerSequence,
        closeTime: { type: 'integer', description: 'the latest ledger\'s close time, unix seconds' },
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const count = (params.count as number | undefined) ?? 1;
    // default: the cadence of interval mode, in whole seconds
    const step = BigInt((params.closeTimeStep as number | undefined) ?? Math.max(1, Math.ceil(ctx.config.ledgerCloseInterval / 1000)));
    let latestLedger = await network.closeNextLedger();
    if (count > 1) latestLedger = (await network.exclusive(() => network.fastForward(count - 1, step))).latestLedger;
    return { latestLedger, closeTime: Number(network.latestCloseTime) };
  },
};
