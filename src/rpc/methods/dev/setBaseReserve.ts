// lumen_setBaseReserve: the network's base reserve (stroops per reserve unit) from the next ledger on,
// as a LEDGER_UPGRADE_BASE_RESERVE: minimum balances, new accounts and sub-entries then need it.
import { headerUpgradeMethod } from './shared/headerUpgradeMethod.ts';

export const setBaseReserve = headerUpgradeMethod({
  name: 'lumen_setBaseReserve', command: 'set-base-reserve', field: 'baseReserve',
  unit: 'stroops (an account needs 2 of them, each sub-entry 1 more)',
  summary: 'Set the network\'s base reserve from the next ledger on (a ledger upgrade)',
});
