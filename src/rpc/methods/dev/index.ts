// Every developer method (lumen_*), one file each.
import type { DevMethod } from './types.ts';
import { closeLedgers } from './closeLedgers.ts';
import { setCloseMode } from './setCloseMode.ts';
import { setLedgerEntry } from './setLedgerEntry.ts';
import { deleteLedgerEntry } from './deleteLedgerEntry.ts';
import { setBalance } from './setBalance.ts';
import { setTrustlineBalance } from './setTrustlineBalance.ts';
import { setSacBalance } from './setSacBalance.ts';
import { setContractWasm } from './setContractWasm.ts';
import { setContractData } from './setContractData.ts';
import { setTtl } from './setTtl.ts';
import { archiveEntry } from './archiveEntry.ts';
import { upgradeConfig } from './upgradeConfig.ts';
import { setBaseFee } from './setBaseFee.ts';
import { setBaseReserve } from './setBaseReserve.ts';
import { impersonateAccount } from './impersonateAccount.ts';
import { stopImpersonatingAccount } from './stopImpersonatingAccount.ts';
import { impersonatedAccounts } from './impersonatedAccounts.ts';
import { snapshot } from './snapshot.ts';
import { revert } from './revert.ts';
import { setNextCloseTime } from './setNextCloseTime.ts';
import { advanceTime } from './advanceTime.ts';
import { dumpState } from './dumpState.ts';

export const devMethods: DevMethod[] = [
  closeLedgers,
  setCloseMode,
  setLedgerEntry,
  deleteLedgerEntry,
  setBalance,
  setTrustlineBalance,
  setSacBalance,
  setContractWasm,
  setContractData,
  setTtl,
  archiveEntry,
  upgradeConfig,
  setBaseFee,
  setBaseReserve,
  impersonateAccount,
  stopImpersonatingAccount,
  impersonatedAccounts,
  snapshot,
  revert,
  setNextCloseTime,
  advanceTime,
  dumpState,
];
