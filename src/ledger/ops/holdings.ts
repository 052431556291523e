// What an account holds of one asset, whichever way it holds it: native in the account entry, a
// credit asset through a trustline, or its own asset as issuer (unbounded, always authorized,
// movements are mints and burns). stellar-core's TrustLineWrapper plus the native account.
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { AccountId, Asset, LedgerEntry } from '../../xdr/codec.ts';
import type { LedgerContext } from './types.ts';
import { isIssuer } from '../assets.ts';
import {
  INT64_MAX, accountOf, addAccountBalance, addTrustLineBalance, availableBalance, isAuthorized, isAuthorizedToMaintainLiabilities, loadAccountOrThrow,
  loadTrustLine, trustLineAvailableBalance, trustLineOf,
} from './accounts.ts';

export interface Holding {
  isAuthorized(): boolean;
  /** What can be spent: above the reserve and selling liabilities. */
  available(): bigint;
  /** Adds `delta` to the working copy within the balance rules; false (unchanged) when it does not fit. */
  add(delta: bigint): boolean;
  /** Writes the working copy back into the LedgerTxn (nothing to write for an issuer). */
  save(): void;
}

function nativeHolding(ltx: LedgerTxn, ledger: LedgerContext, entry: LedgerEntry): Holding {
  const acc = accountOf(entry);
  return {
    isAuthorized: () => true,
    available: () => availableBalance(ledger, acc),
    add: (delta) => addAccountBalance(ledger, acc, delta),
    save: () => ltx.update(entry),
  };
}

const issuerHolding: Holding = { isAuthorized: () => true, available: () => INT64_MAX, add: () => true, save: () => {} };

function trustLineHolding(ltx: LedgerTxn, entry: LedgerEntry): Holding {
  const tl = trustLineOf(entry);
  return {
    isAuthorized: () => isAuthorized(tl),
    available: () => trustLineAvailableBalance(tl),
    // A line not even authorized to maintain liabilities takes no balance change. stellar-core treats
    // reaching one here as impossible (revoking authorization redeems the holder's pool shares); this
    // engine does not redeem them yet, so a pool withdrawal into such a line fails as LINE_FULL.
    add: (delta) => delta === 0n || (isAuthorizedToMaintainLiabilities(tl) && addTrustLineBalance(tl, delta)),
    save: () => ltx.update(entry),
  };
}

/** The owner's holding of `asset`; undefined when a credit asset it does not issue has no trustline. */
export function loadHolding(ltx: LedgerTxn, ledger: LedgerContext, owner: AccountId, asset: Asset): Holding | undefined {
  if (asset.type === 0) return nativeHolding(ltx, ledger, loadAccountOrThrow(ltx, owner));
  if (isIssuer(owner, asset)) return issuerHolding;
  const entry = loadTrustLine(ltx, owner, asset);
  return entry ? trustLineHolding(ltx, entry) : undefined;
}
