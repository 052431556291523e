// lumen_setBaseReserve: the network's base reserve (stroops per reserve unit) from the next ledger on,
// as a LEDGER_UPGRADE_BASE_RESERVE: minimum balances, new accounts and sub-entries then need it.
import { ledgerSequence, object, uint32 } from '../shared/schemas.ts';
import { headerUpgradeStep, latestHeader } from '../../../standalone/settingsUpgrades.ts';
import { devNetwork, type DevMethod } from './types.ts';

export const setBaseReserve: DevMethod = {
  name: 'lumen_setBaseReserve',
  cli: { command: 'set-base-reserve', args: ['baseReserve'] },
  paramsSchema: {
    type: 'object',
    properties: { baseReserve: { type: 'integer', minimum: 1, maximum: 0xffff_ffff, description: 'stroops (an account needs 2 of them, each sub-entry 1 more)' } },
    required: ['baseReserve'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Set the network\'s base reserve from the next ledger on (a ledger upgrade)',
    result: { name: 'setBaseReserveResult', schema: object({ ledger: ledgerSequence, baseReserve: uint32, previous: uint32 }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const value = params.baseReserve as number;
    const previous = latestHeader(ctx.store).baseReserve;
    const ledger = await network.closeNextLedger([headerUpgradeStep('baseReserve', value)]);
    return { ledger, baseReserve: latestHeader(ctx.store).baseReserve, previous };
  },
};
