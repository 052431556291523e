// lumen_advanceTime: moves the network's clock forward by `seconds` (never back); the next ledger
// closes at the new time. Closes nothing by itself: a time lock or a time bound sees the new time
// in the next ledger, whichever closes it (the cadence, instant mode, lumen_closeLedgers).
import { object } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';

/** A hundred years. */
export const MAX_ADVANCE_SECONDS = 3_153_600_000;

export const advanceTime: DevMethod = {
  name: 'lumen_advanceTime',
  cli: { command: 'advance-time', args: ['seconds'] },
  paramsSchema: {
    type: 'object',
    properties: { seconds: { type: 'integer', minimum: 0, maximum: MAX_ADVANCE_SECONDS } },
    required: ['seconds'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Move the network\'s clock forward',
    result: {
      name: 'advanceTimeResult',
      schema: object({
        now: { type: 'integer', description: 'the network\'s time now, unix seconds' },
        offset: { type: 'integer', description: 'how far the network\'s clock runs ahead of the system clock, seconds' },
      }),
    },
  },
  handler(params, ctx) {
    const network = devNetwork(ctx);
    network.clock.advance(params.seconds as number);
    return { now: Number(network.clock.nowSeconds()), offset: Number(network.clock.offsetSeconds) };
  },
};
