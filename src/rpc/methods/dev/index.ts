// Every developer method (lumen_*), one file each, grouped as docs/developer-methods.md lists them.
import type { DevMethod } from './types.ts';
import { closeLedgers } from './closeLedgers.ts';
import { setCloseMode } from './setCloseMode.ts';
import { advanceTime } from './advanceTime.ts';
import { setNextCloseTime } from './setNextCloseTime.ts';
import { snapshot } from './snapshot.ts';
import { revert } from './revert.ts';
import { setLedgerEntry } from './setLedgerEntry.ts';
import { deleteLedgerEntry } from './deleteLedgerEntry.ts';
import { setBalance } from './setBalance.ts';
import { setTrustlineBalance } from './setTrustlineBalance.ts';
import { setSacBalance } from './setSacBalance.ts';
import { setContractWasm } from './setContractWasm.ts';
import { setContractData } from './setContractData.ts';
import { setTtl } from './setTtl.ts';
import { archiveEntry } from './archiveEntry.ts';
import { impersonateAccount } from './impersonateAccount.ts';
import { stopImpersonatingAccount } from './stopImpersonatingAccount.ts';
import { impersonatedAccounts } from './impersonatedAccounts.ts';
import { upgradeConfig } from './upgradeConfig.ts';
import { setBaseFee } from './setBaseFee.ts';
import { setBaseReserve } from './setBaseReserve.ts';
import { dumpState } from './dumpState.ts';
import { upgradeProtocol } from './upgradeProtocol.ts';

const methods: DevMethod[] = [
  // ledgers and time
  closeLedgers, setCloseMode, advanceTime, setNextCloseTime,
  // snapshot and revert
  snapshot, revert,
  // state
  setLedgerEntry, deleteLedgerEntry, setBalance, setTrustlineBalance, setSacBalance, setContractWasm, setContractData, setTtl, archiveEntry,
  // impersonation
  impersonateAccount, stopImpersonatingAccount, impersonatedAccounts,
  // network settings
  upgradeConfig, setBaseFee, setBaseReserve, upgradeProtocol,
  // dump (loading is --load-state, at start)
  dumpState,
];

// our own API: a misspelt param is refused (-32602 naming the params each takes), not ignored; and
// each changes the network outside the protocol, so only the callers rpc/callerPolicy.ts admits reach it
export const devMethods: DevMethod[] = methods.map((m) => ({ ...m, strictParams: true, privileged: true }));
