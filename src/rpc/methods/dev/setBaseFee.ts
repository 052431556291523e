// lumen_setBaseFee: the network's base fee (stroops per operation) from the next ledger on, as a
// LEDGER_UPGRADE_BASE_FEE: admission refuses bids below it and classic fees are charged at it.
import { headerUpgradeMethod } from './shared/headerUpgradeMethod.ts';

export const setBaseFee = headerUpgradeMethod({
  name: 'lumen_setBaseFee', command: 'set-base-fee', field: 'baseFee', unit: 'stroops per operation',
  summary: 'Set the network\'s base fee from the next ledger on (a ledger upgrade)',
});
