// Every developer method (lumen_*), one file each.
import type { DevMethod } from './types.ts';
import { closeLedgers } from './closeLedgers.ts';
import { setCloseMode } from './setCloseMode.ts';
import { impersonateAccount } from './impersonateAccount.ts';
import { stopImpersonatingAccount } from './stopImpersonatingAccount.ts';
import { impersonatedAccounts } from './impersonatedAccounts.ts';

export const devMethods: DevMethod[] = [
  closeLedgers,
  setCloseMode,
  impersonateAccount,
  stopImpersonatingAccount,
  impersonatedAccounts,
];
