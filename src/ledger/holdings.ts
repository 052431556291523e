// What an account holds of one asset, whatever the asset: its native balance, its trustline, or, for
// the asset's issuer, an unlimited holding with no entry at all (stellar-core's TrustLineWrapper and
// its issuer case). Offers and path payments move assets through these without asking which kind
// each side is; the one rule is that only real entries are written back.
import type { xdr } from '../xdr/xdr.ts';
import type { LedgerTxn } from './ledgerTxn.ts';
import { isIssuer } from './assets.ts';
import { INT64_MAX } from './numeric.ts';
import {
  accountLiabilities, accountMaxReceive, accountOf, addAccountBalance, addTrustLineBalance, availableBalance,
  isAuthorized, isAuthorizedToMaintainLiabilities, loadTrustLine, minBalance, prepareAccountExtV1,
  trustLineLiabilities, trustLineMaxReceive, trustLineOf,
} from './ops/accounts.ts';
import type { LedgerContext } from './ops/types.ts';
import type { AccountId, Asset, LedgerEntry, TrustLineEntry } from '../xdr/codec.ts';

/** A credit holding: the account's trustline entry, or the issuer's own unlimited holding. */
export type CreditLine = { issuer: true } | { issuer: false; entry: LedgerEntry };

/**
 * The holding of a credit asset: undefined when a non-issuer has no trustline. (Core's loadTrustLine
 * returns the issuer case without reading anything.)
 */
export function loadCreditLine(ltx: LedgerTxn, id: AccountId, asset: Asset): CreditLine | undefined {
  if (isIssuer(id, asset)) return { issuer: true };
  const entry = loadTrustLine(ltx, id, asset);
  return entry ? { issuer: false, entry } : undefined;
}

export const lineIsAuthorized = (line: CreditLine): boolean => line.issuer || isAuthorized(trustLineOf(line.entry));

export const lineIsAuthorizedToMaintainLiabilities = (line: CreditLine): boolean =>
  line.issuer || isAuthorizedToMaintainLiabilities(trustLineOf(line.entry));

export const lineBalance = (line: CreditLine): bigint => (line.issuer ? INT64_MAX : trustLineOf(line.entry).balance);

export const lineAvailableBalance = (line: CreditLine): bigint => {
  if (line.issuer) return INT64_MAX;
  const tl = trustLineOf(line.entry);
  return tl.balance - trustLineLiabilities(tl).selling;
};

export const lineMaxReceive = (line: CreditLine): bigint => (line.issuer ? INT64_MAX : trustLineMaxReceive(trustLineOf(line.entry)));

/** Adds to the holding (the issuer's always succeeds and changes nothing). */
export const lineAddBalance = (line: CreditLine, delta: bigint): boolean =>
  line.issuer || addTrustLineBalance(trustLineOf(line.entry), delta);

/** Writes a trustline back; the issuer's holding has nothing to write. */
export function saveLine(ltx: LedgerTxn, line: CreditLine): void {
  if (!line.issuer) ltx.update(line.entry);
}

// ---------------------------------------------------------------------------------------------
// Liabilities (what resting offers have committed), stellar-core's addBuying/SellingLiabilities

/** `liab + delta` kept within [0, max], or undefined. */
function addWithin(liab: bigint, delta: bigint, max: bigint): bigint | undefined {
  const next = liab + delta;
  return next < 0n || next > max ? undefined : next;
}

function prepareTrustLineExtV1(tl: TrustLineEntry): xdr.TrustLineEntryV1Wire {
  if (tl.ext.v === 0) tl.ext = { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 0 } } };
  return tl.ext.v1;
}

export function addAccountBuyingLiabilities(acc: xdr.AccountEntryWire, delta: bigint): boolean {
  if (delta === 0n) return true;
  const next = addWithin(accountLiabilities(acc).buying, delta, INT64_MAX - acc.balance);
  if (next === undefined) return false;
  prepareAccountExtV1(acc).liabilities.buying = next;
  return true;
}

export function addAccountSellingLiabilities(ledger: LedgerContext, acc: xdr.AccountEntryWire, delta: bigint): boolean {
  if (delta === 0n) return true;
  const max = acc.balance - minBalance(ledger, acc);
  if (max < 0n) return false;
  const next = addWithin(accountLiabilities(acc).selling, delta, max);
  if (next === undefined) return false;
  prepareAccountExtV1(acc).liabilities.selling = next;
  return true;
}

function requireMaintainLiabilities(tl: TrustLineEntry): void {
  if (!isAuthorizedToMaintainLiabilities(tl)) throw new Error('invalid authorization on trustline liabilities');
}

export function addLineBuyingLiabilities(line: CreditLine, delta: bigint): boolean {
  if (line.issuer || delta === 0n) return true;
  const tl = trustLineOf(line.entry);
  requireMaintainLiabilities(tl);
  const next = addWithin(trustLineLiabilities(tl).buying, delta, tl.limit - tl.balance);
  if (next === undefined) return false;
  prepareTrustLineExtV1(tl).liabilities.buying = next;
  return true;
}

export function addLineSellingLiabilities(line: CreditLine, delta: bigint): boolean {
  if (line.issuer || delta === 0n) return true;
  const tl = trustLineOf(line.entry);
  requireMaintainLiabilities(tl);
  const next = addWithin(trustLineLiabilities(tl).selling, delta, tl.balance);
  if (next === undefined) return false;
  prepareTrustLineExtV1(tl).liabilities.selling = next;
  return true;
}

// ---------------------------------------------------------------------------------------------
// How much an account can trade of an asset

/** What the holder can sell of `asset` now: available native above the reserve, or the line's available balance. */
export function canSellAtMost(ledger: LedgerContext, account: LedgerEntry | undefined, asset: Asset, line: CreditLine | undefined): bigint {
  if (asset.type === 0) {
    const avail = availableBalance(ledger, accountOf(account!));
    return avail > 0n ? avail : 0n;
  }
  if (line && lineIsAuthorizedToMaintainLiabilities(line)) {
    const avail = lineAvailableBalance(line);
    return avail > 0n ? avail : 0n;
  }
  return 0n;
}

/** What the holder can still receive of `asset`. */
export function canBuyAtMost(account: LedgerEntry | undefined, asset: Asset, line: CreditLine | undefined): bigint {
  if (asset.type === 0) {
    const max = accountMaxReceive(accountOf(account!));
    return max > 0n ? max : 0n;
  }
  if (!line) return 0n;
  const max = lineMaxReceive(line);
  return max > 0n ? max : 0n;
}

/** Adds to a native balance honouring reserve and liabilities (re-exported beside the line helpers). */
export const addNativeBalance = (ledger: LedgerContext, account: LedgerEntry, delta: bigint): boolean =>
  addAccountBalance(ledger, accountOf(account), delta);

