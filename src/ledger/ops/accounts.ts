// Shared arithmetic and state helpers for the classic operations: account and trustline flags,
// balances, reserves, liabilities, and sub-entry bookkeeping (with the sponsorship counters that
// existing entries may carry). Assets are in ../assets.ts, results in ./opResult.ts. The rules follow stellar-core at protocol >= 19;
// older-protocol branches are deliberately not reproduced.
import type { xdr } from '../../xdr/xdr.ts';
import { StrKey } from '@stellar/stellar-sdk';
import type { LedgerTxn } from '../ledgerTxn.ts';
import {
  accountKey, bytesEqual, trustLineKey,
  type AccountEntry, type AccountId, type Asset, type LedgerEntry, type TrustLineAsset, type TrustLineEntry,
} from '../../xdr/codec.ts';
import type { LedgerContext } from './types.ts';
import { compareBytes } from '../assets.ts';
import { INT64_MAX } from '../numeric.ts';

export const UINT32_MAX = 0xffff_ffff;

// AccountFlags
export const AUTH_REQUIRED_FLAG = 0x1;
export const AUTH_REVOCABLE_FLAG = 0x2;
export const AUTH_IMMUTABLE_FLAG = 0x4;
export const AUTH_CLAWBACK_ENABLED_FLAG = 0x8;
export const MASK_ACCOUNT_FLAGS_V17 = 0xf;
export const ALL_ACCOUNT_AUTH_FLAGS = AUTH_REQUIRED_FLAG | AUTH_REVOCABLE_FLAG | AUTH_IMMUTABLE_FLAG | AUTH_CLAWBACK_ENABLED_FLAG;

// TrustLineFlags
export const AUTHORIZED_FLAG = 0x1;
export const AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG = 0x2;
export const TRUSTLINE_CLAWBACK_ENABLED_FLAG = 0x4;
export const TRUSTLINE_AUTH_FLAGS = AUTHORIZED_FLAG | AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG;
export const MASK_TRUSTLINE_FLAGS_V17 = 0x7;

export const MAX_SIGNERS = 20;
/** stellar-core's ACCOUNT_SUBENTRY_LIMIT (enforced since protocol 11). */
export const ACCOUNT_SUBENTRY_LIMIT = 1000;

// ---------------------------------------------------------------------------------------------
// Identity and entry access

export const accountIdEquals = (a: AccountId, b: AccountId): boolean => bytesEqual(a.ed25519, b.ed25519);

export function accountOf(e: LedgerEntry): AccountEntry {
  if (e.data.type !== 0) throw new Error('expected an account entry');
  return e.data.account;
}

export function trustLineOf(e: LedgerEntry): TrustLineEntry {
  if (e.data.type !== 1) throw new Error('expected a trustline entry');
  return e.data.trustLine;
}

export const loadAccount = (ltx: LedgerTxn, id: AccountId): LedgerEntry | undefined => ltx.load(accountKey(id));

/** Loads an account that must exist (the operation source, a sponsor); a missing one is an internal error. */
export function loadAccountOrThrow(ltx: LedgerTxn, id: AccountId): LedgerEntry {
  const e = ltx.load(accountKey(id));
  if (!e) throw new Error(`account ${StrKey.encodeEd25519PublicKey(Buffer.from(id.ed25519))} does not exist`);
  return e;
}

export const loadTrustLine = (ltx: LedgerTxn, id: AccountId, asset: Asset | TrustLineAsset): LedgerEntry | undefined =>
  ltx.load(trustLineKey(id, asset as TrustLineAsset));

// ---------------------------------------------------------------------------------------------
// Sponsorship counters (AccountEntryExtensionV2) and extension preparation

export function extV2(acc: AccountEntry): xdr.AccountEntryExtensionV2Wire | undefined {
  return acc.ext.v === 1 && acc.ext.v1.ext.v === 2 ? acc.ext.v1.ext.v2 : undefined;
}

export const numSponsoring = (acc: AccountEntry): number => extV2(acc)?.numSponsoring ?? 0;
export const numSponsored = (acc: AccountEntry): number => extV2(acc)?.numSponsored ?? 0;

export function prepareAccountExtV1(acc: AccountEntry): xdr.AccountEntryExtensionV1Wire {
  if (acc.ext.v === 0) acc.ext = { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 0 } } };
  return acc.ext.v1;
}

export function prepareAccountExtV2(acc: AccountEntry): xdr.AccountEntryExtensionV2Wire {
  const v1 = prepareAccountExtV1(acc);
  if (v1.ext.v === 0) {
    v1.ext = { v: 2, v2: { numSponsored: 0, numSponsoring: 0, signerSponsoringIDs: acc.signers.map(() => null), ext: { v: 0 } } };
  }
  return v1.ext.v2;
}

export function prepareAccountExtV3(acc: AccountEntry): xdr.AccountEntryExtensionV3Wire {
  const v2 = prepareAccountExtV2(acc);
  if (v2.ext.v === 0) v2.ext = { v: 3, v3: { ext: { v: 0 }, seqLedger: 0, seqTime: 0n } };
  return v2.ext.v3;
}

/** When the account's sequence number last changed (AccountEntryExtensionV3); zeros if never recorded. */
export function sequenceStamp(acc: AccountEntry): { seqLedger: number; seqTime: bigint } {
  const v3 = acc.ext.v === 1 && acc.ext.v1.ext.v === 2 && acc.ext.v1.ext.v2.ext.v === 3 ? acc.ext.v1.ext.v2.ext.v3 : undefined;
  return v3 ? { seqLedger: v3.seqLedger, seqTime: v3.seqTime } : { seqLedger: 0, seqTime: 0n };
}

/** Records when the sequence number last changed (protocol 19+, CAP-21). */
export function touchSeqLedger(ledger: LedgerContext, acc: AccountEntry): void {
  if (ledger.protocolVersion < 19) return;
  const v3 = prepareAccountExtV3(acc);
  v3.seqLedger = ledger.ledgerSeq;
  v3.seqTime = ledger.closeTime;
}

// ---------------------------------------------------------------------------------------------
// Reserves, liabilities, balances

export function minBalanceFor(ledger: LedgerContext, numSubEntries: number, sponsoring: number, sponsored: number): bigint {
  const eff = 2n + BigInt(numSubEntries) + BigInt(sponsoring) - BigInt(sponsored);
  if (eff < 0n) throw new Error('unexpected account state: negative reserve count');
  return eff * BigInt(ledger.baseReserve);
}

/** (2 + numSubEntries + numSponsoring - numSponsored) * baseReserve */
export const minBalance = (ledger: LedgerContext, acc: AccountEntry): bigint =>
  minBalanceFor(ledger, acc.numSubEntries, numSponsoring(acc), numSponsored(acc));

export const accountLiabilities = (acc: AccountEntry): xdr.LiabilitiesWire =>
  acc.ext.v === 1 ? acc.ext.v1.liabilities : { buying: 0n, selling: 0n };

export const trustLineLiabilities = (tl: TrustLineEntry): xdr.LiabilitiesWire =>
  tl.ext.v === 1 ? tl.ext.v1.liabilities : { buying: 0n, selling: 0n };

/** What the account can spend: balance above its reserve, less what its offers have committed. */
export const availableBalance = (ledger: LedgerContext, acc: AccountEntry): bigint =>
  acc.balance - minBalance(ledger, acc) - accountLiabilities(acc).selling;

export const trustLineAvailableBalance = (tl: TrustLineEntry): bigint => tl.balance - trustLineLiabilities(tl).selling;

/** How much more native the account can receive. */
export const accountMaxReceive = (acc: AccountEntry): bigint => INT64_MAX - acc.balance - accountLiabilities(acc).buying;

/** How much more the trustline can receive (0 when not even authorized to maintain liabilities). */
export function trustLineMaxReceive(tl: TrustLineEntry): bigint {
  if (!isAuthorizedToMaintainLiabilities(tl)) return 0n;
  return tl.limit - tl.balance - trustLineLiabilities(tl).buying;
}

/** 0 <= balance + delta <= max, i.e. stellar-core's overflow-safe addBalance on raw numbers. */
function addWithin(balance: bigint, delta: bigint, max: bigint): bigint | undefined {
  const next = balance + delta;
  return next < 0n || next > max ? undefined : next;
}

/**
 * Adds `delta` stroops to a native balance, honouring the reserve and liabilities. Mutates the
 * entry and returns true on success; leaves it untouched and returns false otherwise.
 */
export function addAccountBalance(ledger: LedgerContext, acc: AccountEntry, delta: bigint): boolean {
  if (delta === 0n) return true;
  const next = addWithin(acc.balance, delta, INT64_MAX);
  if (next === undefined) return false;
  const liab = accountLiabilities(acc);
  if (delta < 0n && next - minBalance(ledger, acc) < liab.selling) return false;
  if (next > INT64_MAX - liab.buying) return false;
  acc.balance = next;
  return true;
}

/**
 * Adds `delta` to a trustline balance within [selling liabilities, limit - buying liabilities].
 * The caller has checked authorization; a line not even authorized to maintain liabilities is an
 * internal error, as in stellar-core.
 */
export function addTrustLineBalance(tl: TrustLineEntry, delta: bigint): boolean {
  if (delta === 0n) return true;
  if (!isAuthorizedToMaintainLiabilities(tl)) throw new Error('invalid authorization on trustline balance change');
  return addTrustLineBalanceSkipAuthorization(tl, delta);
}

/**
 * addTrustLineBalance without the authorization requirement: for the issuer's clawback, which may
 * take from a line it has deauthorized. Liabilities still bound the result.
 */
export function addTrustLineBalanceSkipAuthorization(tl: TrustLineEntry, delta: bigint): boolean {
  const next = addWithin(tl.balance, delta, tl.limit);
  if (next === undefined) return false;
  const liab = trustLineLiabilities(tl);
  if (next < liab.selling) return false;
  if (next > tl.limit - liab.buying) return false;
  tl.balance = next;
  return true;
}

/** The lowest limit a trustline may be set to: its balance plus buying liabilities. */
export const trustLineMinimumLimit = (tl: TrustLineEntry): bigint => tl.balance + trustLineLiabilities(tl).buying;

export const isAuthorized = (tl: TrustLineEntry): boolean => (tl.flags & AUTHORIZED_FLAG) !== 0;

export function isAuthorizedToMaintainLiabilities(tl: TrustLineEntry): boolean {
  if (tl.asset.type === 3) return true; // pool-share lines carry no auth flags
  return (tl.flags & TRUSTLINE_AUTH_FLAGS) !== 0;
}

/** Only one of AUTHORIZED and AUTHORIZED_TO_MAINTAIN_LIABILITIES may be set, and no unknown bits. */
export const trustLineFlagsValid = (flags: number): boolean =>
  (flags & ~MASK_TRUSTLINE_FLAGS_V17) === 0 && (flags & TRUSTLINE_AUTH_FLAGS) !== TRUSTLINE_AUTH_FLAGS;

/** Sequence numbers an account created in this ledger starts from: ledgerSeq << 32. */
export function startingSequenceNumber(ledger: LedgerContext): bigint {
  if (ledger.ledgerSeq > 0x7fff_ffff) throw new Error('overflowed starting sequence number');
  return BigInt(ledger.ledgerSeq) << 32n;
}

// ---------------------------------------------------------------------------------------------
// Strings and signer keys

/** Every byte printable ASCII (0x20..0x7e): stellar-core's isStringValid, for home domains and data names. */
export function isStringValid(s: xdr.XdrString | Uint8Array): boolean {
  const bytes = s instanceof Uint8Array ? s : s.bytes;
  for (const b of bytes) if (b < 0x20 || b > 0x7e) return false;
  return true;
}

/** XDR ordering of SignerKeys (type, then key bytes; signed payloads by key, then payload). */
export function compareSignerKeys(a: xdr.SignerKeyWire, b: xdr.SignerKeyWire): number {
  if (a.type !== b.type) return a.type - b.type;
  switch (a.type) {
    case 0: return compareBytes(a.ed25519, (b as typeof a).ed25519);
    case 1: return compareBytes(a.preAuthTx, (b as typeof a).preAuthTx);
    case 2: return compareBytes(a.hashX, (b as typeof a).hashX);
    case 3: {
      const x = a.ed25519SignedPayload, y = (b as typeof a).ed25519SignedPayload;
      return compareBytes(x.ed25519, y.ed25519) || compareBytes(x.payload, y.payload);
    }
  }
}
