// Shared arithmetic and state helpers for the classic operations: balances, reserves, liabilities,
// sub-entry bookkeeping (with the sponsorship counters that existing entries may carry), asset
// helpers and the small result-building utilities. The rules follow stellar-core at protocol >= 19;
// older-protocol branches are deliberately not reproduced.
import type { xdr } from '@stellar/stellar-sdk';
import { StrKey } from '@stellar/stellar-sdk';
import type { LedgerTxn } from '../ledgerTxn.ts';
import {
  accountKey, bytesEqual, trustLineKey,
  type AccountEntry, type AccountId, type Asset, type LedgerEntry, type TrustLineAsset, type TrustLineEntry,
} from '../../xdr/codec.ts';
import type { LedgerContext, OpOutcome } from './types.ts';

export const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
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
// Results

/** OperationResult codes other than opINNER that an operation itself may produce. */
export const OP_NOT_SUPPORTED = -3;
export const OP_TOO_MANY_SUBENTRIES = -4;
export const OP_TOO_MANY_SPONSORING = -6;

export const succeed = (tr: xdr.OperationResultTrWire): OpOutcome => ({ tr, success: true });
export const failWith = (tr: xdr.OperationResultTrWire): OpOutcome => ({ tr, success: false });
/** A failure reported as a top-level OperationResult code; `tr` is only a placeholder (see OpOutcome.code). */
export const failOp = (code: -3 | -4 | -6, placeholder: xdr.OperationResultTrWire): OpOutcome =>
  ({ tr: placeholder, success: false, code });

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

function extV2(acc: AccountEntry): xdr.AccountEntryExtensionV2Wire | undefined {
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
// Sub-entries (trustlines, data entries, signers)

export type SubEntryCheck = 'ok' | 'lowReserve' | 'tooManySubentries';

/**
 * Whether the account can take on `mult` more sub-entries that it pays the reserve for itself
 * (stellar-core's canCreateEntryWithoutSponsorship / canCreateSignerWithoutSponsorship).
 */
export function canAddSubEntries(ledger: LedgerContext, acc: AccountEntry, mult: number): SubEntryCheck {
  if (acc.numSubEntries > ACCOUNT_SUBENTRY_LIMIT - mult) return 'tooManySubentries';
  if (numSponsoring(acc) + acc.numSubEntries + mult > UINT32_MAX) return 'tooManySubentries';
  if (availableBalance(ledger, acc) < BigInt(mult) * BigInt(ledger.baseReserve)) return 'lowReserve';
  return 'ok';
}

/** Reserve units an entry counts for (stellar-core's computeMultiplier). */
export function reserveMultiplier(e: LedgerEntry): number {
  switch (e.data.type) {
    case 0: return 2;
    case 1: return e.data.trustLine.asset.type === 3 ? 2 : 1;
    case 2: case 3: return 1;
    case 4: return e.data.claimableBalance.claimants.length;
    default: throw new Error(`entry type ${e.data.type} is not reserve-backed`);
  }
}

const sponsorOf = (e: LedgerEntry): AccountId | null => (e.ext.v === 1 ? e.ext.v1.sponsoringId : null);

/**
 * Releases the reserve of an entry about to be erased: the owner's sub-entry count drops and, when
 * the entry is sponsored, the sponsor's numSponsoring and the owner's numSponsored drop too. `owner`
 * is the caller's working copy of the owning account (for an account entry, the account itself); the
 * sponsor is loaded and written back here.
 */
export function releaseEntryReserve(ltx: LedgerTxn, entry: LedgerEntry, owner: LedgerEntry): void {
  const ownerAcc = accountOf(owner);
  const mult = reserveMultiplier(entry);
  const isSub = entry.data.type !== 0;
  if (isSub && ownerAcc.numSubEntries < mult) throw new Error('invalid account state: numSubEntries underflow');
  const sponsor = sponsorOf(entry);
  if (sponsor) {
    if (accountIdEquals(sponsor, ownerAcc.accountId)) throw new Error('entry sponsored by its own owner');
    const sponsorEntry = loadAccountOrThrow(ltx, sponsor);
    const sponsorAcc = accountOf(sponsorEntry);
    if (numSponsoring(sponsorAcc) < mult || numSponsored(ownerAcc) < mult) throw new Error('invalid sponsorship state');
    prepareAccountExtV2(sponsorAcc).numSponsoring -= mult;
    prepareAccountExtV2(ownerAcc).numSponsored -= mult;
    ltx.update(sponsorEntry);
  }
  if (isSub) ownerAcc.numSubEntries -= mult;
}

/** Removes signer `index` from the working copy of an account, releasing its reserve (and sponsorship). */
export function removeSignerAt(ltx: LedgerTxn, owner: LedgerEntry, index: number): void {
  const acc = accountOf(owner);
  if (acc.numSubEntries < 1) throw new Error('invalid account state: numSubEntries underflow');
  const v2 = extV2(acc);
  const sponsor = v2?.signerSponsoringIDs[index] ?? null;
  if (sponsor) {
    const sponsorEntry = loadAccountOrThrow(ltx, sponsor);
    const sponsorAcc = accountOf(sponsorEntry);
    if (numSponsoring(sponsorAcc) < 1 || v2!.numSponsored < 1) throw new Error('invalid sponsorship state');
    prepareAccountExtV2(sponsorAcc).numSponsoring -= 1;
    v2!.numSponsored -= 1;
    ltx.update(sponsorEntry);
  }
  acc.numSubEntries -= 1;
  if (v2) v2.signerSponsoringIDs.splice(index, 1);
  acc.signers.splice(index, 1);
}

// ---------------------------------------------------------------------------------------------
// Assets

type CreditAsset = Extract<Asset, { type: 1 | 2 }>;
type AnyAsset = Asset | TrustLineAsset | xdr.ChangeTrustAssetWire;

export function alphaNum(a: CreditAsset): { assetCode: Uint8Array; issuer: AccountId } {
  return a.type === 1 ? a.alphaNum4 : a.alphaNum12;
}

export function assetIssuer(a: AnyAsset): AccountId | undefined {
  return a.type === 1 ? a.alphaNum4.issuer : a.type === 2 ? a.alphaNum12.issuer : undefined;
}

/** True when `id` issues the (credit) asset; never for native or pool shares. */
export function isIssuer(id: AccountId, a: AnyAsset): boolean {
  const issuer = assetIssuer(a);
  return issuer !== undefined && accountIdEquals(issuer, id);
}

/** The asset code without its NUL padding. */
export function assetCodeString(code: Uint8Array): string {
  let end = code.indexOf(0);
  if (end < 0) end = code.length;
  return Buffer.from(code.subarray(0, end)).toString('latin1');
}

const isAlnum = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);

/** An asset code is ASCII alphanumerics followed only by NUL padding: 1..4 chars, or 5..12 for alphanum12. */
function assetCodeValid(code: Uint8Array, minChars: number): boolean {
  let zeros = false;
  let chars = 0;
  for (const b of code) {
    if (b === 0) zeros = true;
    else if (zeros || !isAlnum(b)) return false;
    else chars++;
  }
  return chars >= minChars;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** XDR ordering of Assets (type, then code, then issuer), as used for liquidity-pool parameters. */
export function compareAssets(a: Asset, b: Asset): number {
  if (a.type !== b.type) return a.type - b.type;
  if (a.type === 0 || b.type === 0) return 0;
  const x = alphaNum(a), y = alphaNum(b);
  return compareBytes(x.assetCode, y.assetCode) || compareBytes(x.issuer.ed25519, y.issuer.ed25519);
}

export function assetEquals(a: Asset, b: Asset): boolean {
  return compareAssets(a, b) === 0;
}

/** stellar-core's isAssetValid for Asset / TrustLineAsset / ChangeTrustAsset (protocol >= 18). */
export function isAssetValid(a: AnyAsset): boolean {
  switch (a.type) {
    case 0: return true;
    case 1: return assetCodeValid(a.alphaNum4.assetCode, 1);
    case 2: return assetCodeValid(a.alphaNum12.assetCode, 5);
    case 3: {
      if (!('liquidityPool' in a)) return true; // a TrustLineAsset pool id
      const cp = a.liquidityPool.constantProduct;
      return isAssetValid(cp.assetA) && isAssetValid(cp.assetB) && compareAssets(cp.assetA, cp.assetB) < 0 && cp.fee === 30;
    }
    default: return false;
  }
}

export function assetToTrustLineAsset(a: CreditAsset): TrustLineAsset {
  return a.type === 1 ? { type: 1, alphaNum4: a.alphaNum4 } : { type: 2, alphaNum12: a.alphaNum12 };
}

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
