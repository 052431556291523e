// lumen_setNextCloseTime: the next ledger closes at exactly this time (unix seconds, later than the
// latest ledger's); the network's clock moves up to it, so the ledgers after it close later still.
// For a test that needs a ledger at a given time (a time bound, a claim predicate, a TTL in seconds).
import { object, ledgerSequence } from '../shared/schemas.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

/** Close times stay exact JSON numbers (and far below u64's end). */
const MAX_CLOSE_TIME = Number.MAX_SAFE_INTEGER;

export const setNextCloseTime: DevMethod = {
  name: 'lumen_setNextCloseTime',
  cli: { command: 'set-next-close-time', args: ['closeTime'] },
  paramsSchema: {
    type: 'object',
    properties: { closeTime: { type: 'integer', minimum: 0, maximum: MAX_CLOSE_TIME } },
    required: ['closeTime'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set the next ledger\'s close time (moves the clock forward to it)',
    result: {
      name: 'setNextCloseTimeResult',
      schema: object({
        nextCloseTime: { type: 'integer', description: 'unix seconds' },
        latestLedger: ledgerSequence,
        latestCloseTime: { type: 'integer', description: 'the latest ledger\'s close time, unix seconds' },
      }),
    },
  },
  handler(params, ctx) {
    const network = devNetwork(ctx);
    const closeTime = BigInt(params.closeTime as number);
    const latest = network.latestCloseTime;
    if (closeTime <= latest) {
      throw devRefused(`closeTime ${closeTime} is not later than the latest ledger's close time ${latest}: time never goes back`);
    }
    network.setNextCloseTime(closeTime);
    return { nextCloseTime: Number(closeTime), latestLedger: ctx.store.latestLedger()?.sequence ?? 0, latestCloseTime: Number(latest) };
  },
};
