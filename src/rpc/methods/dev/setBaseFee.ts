// lumen_setBaseFee: the network's base fee (stroops per operation) from the next ledger on, as a
// LEDGER_UPGRADE_BASE_FEE: admission refuses bids below it and classic fees are charged at it.
import { ledgerSequence, object, uint32 } from '../shared/schemas.ts';
import { headerUpgradeStep, latestHeader } from '../../../standalone/settingsUpgrades.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const setBaseFee: DevMethod = {
  name: 'lumen_setBaseFee',
  cli: { command: 'set-base-fee', args: ['baseFee'] },
  paramsSchema: {
    type: 'object',
    properties: { baseFee: { type: 'integer', minimum: 1, maximum: 0xffff_ffff, description: 'stroops per operation' } },
    required: ['baseFee'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set the network\'s base fee from the next ledger on (a ledger upgrade)',
    result: { name: 'setBaseFeeResult', schema: object({ ledger: ledgerSequence, baseFee: uint32, previous: uint32 }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const value = params.baseFee as number;
    const previous = latestHeader(ctx.store).baseFee;
    const ledger = await network.closeNextLedger([headerUpgradeStep('baseFee', value)]);
    return { ledger, baseFee: latestHeader(ctx.store).baseFee, previous };
  },
};
