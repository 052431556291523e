// Reserves of entries and sub-entries, and who pays them (stellar-core's SponsorshipUtils): an
// entry's reserve is paid by its owner, or by the account sponsoring it (CAP-33), which then counts
// it in numSponsoring while the owner counts it in numSponsored. A claimable balance is no one's
// sub-entry; its creator sponsors it unless someone sponsors the creator.
import type { LedgerTxn } from './ledgerTxn.ts';
import type { AccountEntry, AccountId, LedgerEntry } from '../xdr/codec.ts';
import type { LedgerContext } from './ops/types.ts';
import { ACCOUNT_SUBENTRY_LIMIT, UINT32_MAX, accountIdEquals, accountOf, availableBalance, extV2, loadAccountOrThrow, numSponsored, numSponsoring, prepareAccountExtV2 } from './ops/accounts.ts';

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

export const sponsorOf = (e: LedgerEntry): AccountId | null => (e.ext.v === 1 ? e.ext.v1.sponsoringId : null);

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

export type SponsorshipResult = 'ok' | 'lowReserve' | 'tooManySubentries' | 'tooManySponsoring' | 'tooManySponsored';

/**
 * Pays the reserve of a new entry (stellar-core's createEntryWithPossibleSponsorship): by the
 * account sponsoring the owner's future reserves, if any, else by the owner. `entry` gets its
 * sponsoringId when sponsored; `owner` is the caller's working copy of the owning account (for a new
 * account, the new account entry itself; for a claimable balance, its creator). Both are edited only
 * on 'ok'; a sponsor is loaded and written back here.
 */
export function createEntryWithPossibleSponsorship(ltx: LedgerTxn, ledger: LedgerContext, entry: LedgerEntry,
  owner: LedgerEntry): SponsorshipResult {
  const acc = accountOf(owner);
  if (entry.data.type === 4) {
    // a claimable balance is sponsored by its creator
    const res = canEstablishSponsorship(ledger, acc, undefined, reserveMultiplier(entry));
    if (res === 'ok') establishEntrySponsorship(entry, acc, undefined);
    return res;
  }
  const mult = reserveMultiplier(entry);
  if (entry.data.type === 0) {
    return entry.data.account.balance < minBalanceOf(ledger, acc) ? 'lowReserve' : 'ok';
  }
  const check = canAddSubEntries(ledger, acc, mult);
  if (check !== 'ok') return check;
  acc.numSubEntries += mult;
  return 'ok';
}

/**
 * Releases the reserve of an entry about to be erased (stellar-core's
 * removeEntryWithPossibleSponsorship). `owner` as for createEntryWithPossibleSponsorship.
 */
export function removeEntryWithPossibleSponsorship(ltx: LedgerTxn, entry: LedgerEntry, owner: LedgerEntry): void {
  if (entry.data.type === 4) {
    const sponsor = sponsorOf(entry);
    if (!sponsor) throw new Error('claimable balance without a sponsor');
    const ownerAcc = accountOf(owner);
    const mult = reserveMultiplier(entry);
    if (accountIdEquals(sponsor, ownerAcc.accountId)) {
      prepareAccountExtV2(ownerAcc).numSponsoring -= mult;
    } else {
      const sponsorEntry = loadAccountOrThrow(ltx, sponsor);
      prepareAccountExtV2(accountOf(sponsorEntry)).numSponsoring -= mult;
      ltx.update(sponsorEntry);
    }
    return;
  }
  releaseEntryReserve(ltx, entry, owner);
}

function minBalanceOf(ledger: LedgerContext, acc: AccountEntry): bigint {
  const eff = 2n + BigInt(acc.numSubEntries) + BigInt(numSponsoring(acc)) - BigInt(numSponsored(acc));
  return eff * BigInt(ledger.baseReserve);
}

/** Whether `sponsoring` can take on `mult` more reserves for `sponsored` (undefined: no sponsored account). */
function canEstablishSponsorship(ledger: LedgerContext, sponsoring: AccountEntry, sponsored: AccountEntry | undefined,
  mult: number): SponsorshipResult {
  if (sponsored && numSponsored(sponsored) > UINT32_MAX - mult) return 'tooManySponsored';
  if (numSponsoring(sponsoring) > UINT32_MAX - mult) return 'tooManySponsoring';
  if (availableBalance(ledger, sponsoring) < BigInt(mult) * BigInt(ledger.baseReserve)) return 'lowReserve';
  return 'ok';
}

function establishEntrySponsorship(entry: LedgerEntry, sponsoring: AccountEntry, sponsored: AccountEntry | undefined): void {
  const mult = reserveMultiplier(entry);
  if (entry.ext.v === 0) entry.ext = { v: 1, v1: { sponsoringId: null, ext: { v: 0 } } };
  entry.ext.v1.sponsoringId = sponsoring.accountId;
  prepareAccountExtV2(sponsoring).numSponsoring += mult;
  if (sponsored) prepareAccountExtV2(sponsored).numSponsored += mult;
}
