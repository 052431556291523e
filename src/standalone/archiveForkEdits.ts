// The first ledger a fork from a history archive closes (src/fork/archiveFork.ts), N + 1: it has no
// genesis to hold the faucet's lumens and the test accounts, so they come as developer edits
// (lumen_setBalance's edit), in the one data path every ledger takes.
import type { Config } from '../config/config.ts';
import type { Store } from '../store/types.ts';
import type { LedgerTxn } from '../ledger/ledgerTxn.ts';
import { rootSigner } from '../ledger/rootAccount.ts';
import { accountKey, type AccountId } from '../xdr/codec.ts';
import { ARCHIVE_FORK_ROOT_BALANCE, FORK_ARCHIVE_ROOT_PENDING } from '../fork/archiveFork.ts';
import type { StandaloneNetwork } from './standaloneNetwork.ts';
import { devEditStep, setNativeBalance } from './stateEdits.ts';
import { genesisTestAccounts } from './devGenesis.ts';

/**
 * The fork's first ledger, N + 1: the local root gets the faucet's lumens and the test accounts
 * (--accounts) theirs, as developer edits. A real network's root is locked (pubnet's master weight
 * is 0 from its first ledgers), and anyone may have changed a test account, since its keys are
 * public, so each of them also gets master weight 1 and thresholds 0: its own key signs alone
 * again. Other signers, subentries and flags stay as the forked network left them.
 */
export async function closeArchiveForkEdits(network: StandaloneNetwork, store: Store, config: Config): Promise<void> {
  const root = { type: 0 as const, ed25519: rootSigner(network.networkId).publicKey };
  const accounts = [
    { id: root, balance: ARCHIVE_FORK_ROOT_BALANCE },
    ...genesisTestAccounts(config).map((a) => ({ id: { type: 0 as const, ed25519: a.publicKey }, balance: a.balance })),
  ];
  await network.closeNextLedger([devEditStep((ltx, header) => {
    for (const a of accounts) {
      setNativeBalance(ltx, header, a.id, a.balance);
      unlockMasterKey(ltx, a.id);
    }
  })]);
  store.setMetadata(FORK_ARCHIVE_ROOT_PENDING, 'false');
}

function unlockMasterKey(ltx: LedgerTxn, id: AccountId): void {
  const entry = ltx.load(accountKey(id));
  if (entry?.data.type !== 0) return;
  const thresholds = entry.data.account.thresholds;
  if (thresholds[0] === 1 && thresholds[1] === 0 && thresholds[2] === 0 && thresholds[3] === 0) return;
  entry.data.account.thresholds = new Uint8Array([1, 0, 0, 0]);
  ltx.update(entry);
}
