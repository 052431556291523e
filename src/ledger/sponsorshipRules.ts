// The rules of sponsored reserves (CAP-33, stellar-core's SponsorshipUtils), on working copies of
// entries: whether a sponsorship of an entry or a signer can be established, removed or moved to
// another sponsor, and the bookkeeping that does it. An entry's reserve counts `mult` base reserves
// (reserveMultiplier); whoever pays them counts them in numSponsoring, and the account that would
// otherwise pay counts them in numSponsored. Nothing here loads or writes state: callers load the
// accounts involved and write them back (./sponsorship.ts, the RevokeSponsorship operation).
//
// Checks return a SponsorshipResult; a state that contradicts the counters (a sponsor that does not
// match, a counter about to go negative) is an internal error and throws, as in core.
import type { AccountEntry, AccountId, LedgerEntry } from '../xdr/codec.ts';
import type { LedgerContext } from './ops/types.ts';
import {
  ACCOUNT_SUBENTRY_LIMIT, UINT32_MAX, accountIdEquals, availableBalance, extV2, numSponsored, numSponsoring,
  prepareAccountExtV2,
} from './ops/accounts.ts';

export type SponsorshipResult = 'ok' | 'lowReserve' | 'tooManySubentries' | 'tooManySponsoring' | 'tooManySponsored';

/** Reserve units an entry counts for (core's computeMultiplier). */
export function reserveMultiplier(e: LedgerEntry): number {
  switch (e.data.type) {
    case 0: return 2;
    case 1: return e.data.trustLine.asset.type === 3 ? 2 : 1;
    case 2: case 3: return 1;
    case 4: return e.data.claimableBalance.claimants.length;
    default: throw new Error(`entry type ${e.data.type} is not reserve-backed`);
  }
}

/** Trustlines, offers and data entries count in their owner's numSubEntries; accounts and claimable balances do not. */
export function isSubEntry(e: LedgerEntry): boolean {
  switch (e.data.type) {
    case 0: case 4: return false;
    case 1: case 2: case 3: return true;
    default: throw new Error(`entry type ${e.data.type} is not reserve-backed`);
  }
}

/** The account paying an entry's reserve when someone other than its owner does (LedgerEntryExtensionV1). */
export const sponsorOf = (e: LedgerEntry): AccountId | null => (e.ext.v === 1 ? e.ext.v1.sponsoringId : null);

/** Who sponsors signer `index` of the account, if anyone (AccountEntryExtensionV2.signerSponsoringIDs). */
export const signerSponsorOf = (acc: AccountEntry, index: number): AccountId | null =>
  extV2(acc)?.signerSponsoringIDs[index] ?? null;

// ---------------------------------------------------------------------------------------------
// Limits

/** numSponsoring + numSubEntries must stay within uint32 (protocol 18+). */
const sumWithinLimit = (acc: AccountEntry, mult: number): boolean =>
  numSponsoring(acc) + acc.numSubEntries + mult <= UINT32_MAX;

function tooManySponsoring(acc: AccountEntry, mult: number): boolean {
  return numSponsoring(acc) > UINT32_MAX - mult || !sumWithinLimit(acc, mult);
}

/** Whether `mult` more sub-entries would pass the sub-entry limit (core's tooManyNumSubEntries). */
export function tooManySubEntries(acc: AccountEntry, mult: number): boolean {
  return acc.numSubEntries > ACCOUNT_SUBENTRY_LIMIT - mult || !sumWithinLimit(acc, mult);
}

const reserveOf = (ledger: LedgerContext, mult: number): bigint => BigInt(mult) * BigInt(ledger.baseReserve);

// ---------------------------------------------------------------------------------------------
// Whether a sponsorship can be established, removed or transferred (any entry or signer)

function canEstablish(ledger: LedgerContext, sponsoring: AccountEntry, sponsored: AccountEntry | null, mult: number): SponsorshipResult {
  if (availableBalance(ledger, sponsoring) < reserveOf(ledger, mult)) return 'lowReserve';
  if (tooManySponsoring(sponsoring, mult)) return 'tooManySponsoring';
  if (sponsored && numSponsored(sponsored) > UINT32_MAX - mult) return 'tooManySponsored';
  return 'ok';
}

/** The sponsored account takes the reserve back, so it must be able to afford it. */
function canRemove(ledger: LedgerContext, sponsoring: AccountEntry, sponsored: AccountEntry | null, mult: number): SponsorshipResult {
  if (numSponsoring(sponsoring) < mult) throw new Error('insufficient numSponsoring');
  if (sponsored && numSponsored(sponsored) < mult) throw new Error('insufficient numSponsored');
  if (sponsored && availableBalance(ledger, sponsored) < reserveOf(ledger, mult)) return 'lowReserve';
  return 'ok';
}

function canTransfer(ledger: LedgerContext, oldSponsoring: AccountEntry, newSponsoring: AccountEntry, mult: number): SponsorshipResult {
  const removable = canRemove(ledger, oldSponsoring, null, mult);
  return removable !== 'ok' ? removable : canEstablish(ledger, newSponsoring, null, mult);
}

function assertSponsor(sponsoringId: AccountId | null, sponsoring: AccountEntry): void {
  if (!sponsoringId || !accountIdEquals(sponsoringId, sponsoring.accountId)) throw new Error('sponsorship does not match');
}

// ---------------------------------------------------------------------------------------------
// Entries

export function canEstablishEntrySponsorship(ledger: LedgerContext, le: LedgerEntry, sponsoring: AccountEntry,
  sponsored: AccountEntry | null): SponsorshipResult {
  if (sponsorOf(le)) throw new Error('sponsoring a sponsored entry');
  return canEstablish(ledger, sponsoring, sponsored, reserveMultiplier(le));
}

export function canRemoveEntrySponsorship(ledger: LedgerContext, le: LedgerEntry, sponsoring: AccountEntry,
  sponsored: AccountEntry | null): SponsorshipResult {
  const sponsor = sponsorOf(le);
  if (!sponsor) throw new Error('removing the sponsorship of an unsponsored entry');
  assertSponsor(sponsor, sponsoring);
  return canRemove(ledger, sponsoring, sponsored, reserveMultiplier(le));
}

export function canTransferEntrySponsorship(ledger: LedgerContext, le: LedgerEntry, oldSponsoring: AccountEntry,
  newSponsoring: AccountEntry): SponsorshipResult {
  const sponsor = sponsorOf(le);
  if (!sponsor) throw new Error('transferring the sponsorship of an unsponsored entry');
  assertSponsor(sponsor, oldSponsoring);
  return canTransfer(ledger, oldSponsoring, newSponsoring, reserveMultiplier(le));
}

export function establishEntrySponsorship(le: LedgerEntry, sponsoring: AccountEntry, sponsored: AccountEntry | null): void {
  const mult = reserveMultiplier(le);
  if (le.ext.v === 0) le.ext = { v: 1, v1: { sponsoringId: null, ext: { v: 0 } } };
  le.ext.v1.sponsoringId = sponsoring.accountId;
  prepareAccountExtV2(sponsoring).numSponsoring += mult;
  if (sponsored) prepareAccountExtV2(sponsored).numSponsored += mult;
}

export function removeEntrySponsorship(le: LedgerEntry, sponsoring: AccountEntry, sponsored: AccountEntry | null): void {
  if (le.ext.v !== 1) throw new Error('entry has no sponsorship extension');
  assertSponsor(le.ext.v1.sponsoringId, sponsoring);
  le.ext.v1.sponsoringId = null;
  const mult = reserveMultiplier(le);
  existingExtV2(sponsoring).numSponsoring -= mult;
  if (sponsored) existingExtV2(sponsored).numSponsored -= mult;
}

export function transferEntrySponsorship(le: LedgerEntry, oldSponsoring: AccountEntry, newSponsoring: AccountEntry): void {
  if (le.ext.v !== 1) throw new Error('entry has no sponsorship extension');
  assertSponsor(le.ext.v1.sponsoringId, oldSponsoring);
  const mult = reserveMultiplier(le);
  le.ext.v1.sponsoringId = newSponsoring.accountId;
  // the new sponsor may never have sponsored anything: its extension may not exist yet
  prepareAccountExtV2(newSponsoring).numSponsoring += mult;
  existingExtV2(oldSponsoring).numSponsoring -= mult;
}

// ---------------------------------------------------------------------------------------------
// Signers (each counts one reserve)

type SignerSponsorship = 'doesNotExist' | 'sponsored' | 'notSponsored';

/** Whether signer `index` of `sponsored` is sponsored; if it is, by `sponsoring` or the state is broken. */
function signerSponsorship(sponsored: AccountEntry, index: number, sponsoring: AccountEntry): SignerSponsorship {
  if (index < 0 || index >= sponsored.signers.length) return 'doesNotExist';
  const v2 = extV2(sponsored);
  if (v2) {
    if (index >= v2.signerSponsoringIDs.length) throw new Error('signerSponsoringIDs out of step with signers');
    const id = v2.signerSponsoringIDs[index];
    if (id) {
      assertSponsor(id, sponsoring);
      return 'sponsored';
    }
  }
  return 'notSponsored';
}

export function canEstablishSignerSponsorship(ledger: LedgerContext, sponsored: AccountEntry, index: number,
  sponsoring: AccountEntry): SponsorshipResult {
  if (signerSponsorship(sponsored, index, sponsoring) !== 'notSponsored') throw new Error('bad signer sponsorship');
  return canEstablish(ledger, sponsoring, sponsored, 1);
}

export function canRemoveSignerSponsorship(ledger: LedgerContext, sponsored: AccountEntry, index: number,
  sponsoring: AccountEntry): SponsorshipResult {
  if (signerSponsorship(sponsored, index, sponsoring) !== 'sponsored') throw new Error('bad signer sponsorship');
  return canRemove(ledger, sponsoring, sponsored, 1);
}

export function canTransferSignerSponsorship(ledger: LedgerContext, sponsored: AccountEntry, index: number,
  oldSponsoring: AccountEntry, newSponsoring: AccountEntry): SponsorshipResult {
  if (signerSponsorship(sponsored, index, oldSponsoring) !== 'sponsored') throw new Error('bad signer sponsorship');
  return canTransfer(ledger, oldSponsoring, newSponsoring, 1);
}

export function establishSignerSponsorship(sponsored: AccountEntry, index: number, sponsoring: AccountEntry): void {
  // preparing the extension gives every existing signer (this one included) a null sponsor first
  const v2 = prepareAccountExtV2(sponsored);
  v2.signerSponsoringIDs[index] = sponsoring.accountId;
  v2.numSponsored += 1;
  prepareAccountExtV2(sponsoring).numSponsoring += 1;
}

export function removeSignerSponsorship(sponsored: AccountEntry, index: number, sponsoring: AccountEntry): void {
  const v2 = existingExtV2(sponsored);
  assertSponsor(v2.signerSponsoringIDs[index] ?? null, sponsoring);
  v2.signerSponsoringIDs[index] = null;
  v2.numSponsored -= 1;
  existingExtV2(sponsoring).numSponsoring -= 1;
}

export function transferSignerSponsorship(sponsored: AccountEntry, index: number, oldSponsoring: AccountEntry,
  newSponsoring: AccountEntry): void {
  const v2 = existingExtV2(sponsored);
  assertSponsor(v2.signerSponsoringIDs[index] ?? null, oldSponsoring);
  v2.signerSponsoringIDs[index] = newSponsoring.accountId;
  prepareAccountExtV2(newSponsoring).numSponsoring += 1;
  existingExtV2(oldSponsoring).numSponsoring -= 1;
}

/** An account's sponsorship counters, which must exist where a sponsorship is being undone. */
function existingExtV2(acc: AccountEntry) {
  const v2 = extV2(acc);
  if (!v2) throw new Error('account has no sponsorship counters');
  return v2;
}
