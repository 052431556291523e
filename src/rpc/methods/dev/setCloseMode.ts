// lumen_setCloseMode: interval (on the cadence), instant (also as soon as a transaction is queued) or
// manual (only lumen_closeLedgers closes); takes effect at once.
import type { CloseMode } from '../../../config/config.ts';
import { object } from '../shared/schemas.ts';
import { devNetwork, type DevMethod } from './types.ts';

const modes: CloseMode[] = ['interval', 'instant', 'manual'];

export const setCloseMode: DevMethod = {
  name: 'lumen_setCloseMode',
  cli: { command: 'set-close-mode', args: ['mode'] },
  paramsSchema: {
    type: 'object',
    properties: { mode: { type: 'string', enum: modes } },
    required: ['mode'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Switch when ledgers close: interval, instant or manual',
    result: { name: 'setCloseModeResult', schema: object({ mode: { type: 'string', enum: modes }, previous: { type: 'string', enum: modes } }) },
  },
  handler(params, ctx) {
    const network = devNetwork(ctx);
    const previous = network.closeMode;
    network.setCloseMode(params.mode as CloseMode);
    return { mode: network.closeMode, previous };
  },
};
