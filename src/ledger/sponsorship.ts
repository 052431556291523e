// Who pays the reserve of an entry or signer being created or removed (stellar-core's
// *WithPossibleSponsorship): the account sponsoring the owner's future reserves if a sponsorship is
// open (./futureReserves.ts), else the owner. A claimable balance is no one's sub-entry; its creator
// sponsors it unless someone sponsors the creator. The rules themselves are in ./sponsorshipRules.ts.
//
// Working copies: `owner` (and the entry) are the caller's copies, edited here only on success and
// written back by the caller. A sponsor is loaded and written back here, so the caller must not hold
// its own copy of the sponsor across the call (none of the operations has one: a sponsor is never the
// owner).
import type { LedgerTxn } from './ledgerTxn.ts';
import type { AccountEntry, LedgerEntry } from '../xdr/codec.ts';
import type { LedgerContext } from './ops/types.ts';
import { accountIdEquals, accountOf, availableBalance, extV2, loadAccountOrThrow, minBalance, numSponsored, numSponsoring } from './ops/accounts.ts';
import { activeSponsorOf } from './futureReserves.ts';
import {
  canEstablishEntrySponsorship, canEstablishSignerSponsorship, establishEntrySponsorship, establishSignerSponsorship,
  isSubEntry, removeEntrySponsorship, removeSignerSponsorship, reserveMultiplier, signerSponsorOf, sponsorOf,
  tooManySubEntries, type SponsorshipResult,
} from './sponsorshipRules.ts';

export { reserveMultiplier, sponsorOf, type SponsorshipResult } from './sponsorshipRules.ts';

// ---------------------------------------------------------------------------------------------
// Entries

/**
 * Pays the reserve of a new entry. `owner` is the owning account (for a new account, the new
 * account entry itself; for a claimable balance, its creator). On 'ok' the entry carries its
 * sponsoringId when sponsored and the counters are updated; otherwise nothing changed.
 */
export function createEntryWithPossibleSponsorship(ltx: LedgerTxn, ledger: LedgerContext, entry: LedgerEntry,
  owner: LedgerEntry): SponsorshipResult {
  const ownerAcc = accountOf(entry.data.type === 0 ? entry : owner);
  // a claimable balance has no sponsored account: its reserve is always someone's sponsorship
  const sponsored = entry.data.type === 4 ? null : ownerAcc;
  const sponsorId = activeSponsorOf(ltx, ownerAcc.accountId);
  if (sponsorId) {
    const sponsorEntry = loadAccountOrThrow(ltx, sponsorId);
    const res = createSponsored(ledger, entry, accountOf(sponsorEntry), sponsored);
    if (res === 'ok') ltx.update(sponsorEntry);
    return res;
  }
  if (!sponsored) return createSponsored(ledger, entry, ownerAcc, null);

  const res = canCreateUnsponsored(ledger, entry, ownerAcc);
  if (res === 'ok' && isSubEntry(entry)) ownerAcc.numSubEntries += reserveMultiplier(entry);
  return res;
}

function createSponsored(ledger: LedgerContext, entry: LedgerEntry, sponsoring: AccountEntry, sponsored: AccountEntry | null): SponsorshipResult {
  const mult = reserveMultiplier(entry);
  const subEntry = sponsored !== null && isSubEntry(entry);
  if (subEntry && tooManySubEntries(sponsored, mult)) return 'tooManySubentries';
  const res = canEstablishEntrySponsorship(ledger, entry, sponsoring, sponsored);
  if (res !== 'ok') return res;
  if (subEntry) sponsored.numSubEntries += mult;
  establishEntrySponsorship(entry, sponsoring, sponsored);
  return 'ok';
}

/** A new account must hold its own minimum balance; anything else needs the owner's available balance. */
function canCreateUnsponsored(ledger: LedgerContext, entry: LedgerEntry, owner: AccountEntry): SponsorshipResult {
  if (entry.data.type === 0) return entry.data.account.balance < minBalance(ledger, owner) ? 'lowReserve' : 'ok';
  const mult = reserveMultiplier(entry);
  if (tooManySubEntries(owner, mult)) return 'tooManySubentries';
  if (availableBalance(ledger, owner) < BigInt(mult) * BigInt(ledger.baseReserve)) return 'lowReserve';
  return 'ok';
}

/**
 * Releases the reserve of an entry about to be erased: the owner's sub-entry count drops and, when
 * the entry is sponsored, the sponsor's numSponsoring and the owner's numSponsored drop too. `owner`
 * as for createEntryWithPossibleSponsorship (for an account, the account entry itself; for a
 * claimable balance, the account claiming or clawing it back, which may be its sponsor).
 */
export function removeEntryWithPossibleSponsorship(ltx: LedgerTxn, entry: LedgerEntry, owner: LedgerEntry): void {
  const ownerAcc = accountOf(owner);
  const mult = reserveMultiplier(entry);
  const sponsorId = sponsorOf(entry);
  if (!sponsorId) {
    if (entry.data.type === 4) throw new Error('claimable balance without a sponsor');
    if (entry.data.type === 0) return;
    if (ownerAcc.numSubEntries < mult) throw new Error('invalid account state: numSubEntries underflow');
    ownerAcc.numSubEntries -= mult;
    return;
  }

  const sponsored = entry.data.type === 4 ? null : ownerAcc;
  if (entry.data.type === 0 && !accountIdEquals(entry.data.account.accountId, ownerAcc.accountId)) {
    throw new Error('an account entry is its own owner');
  }
  if (accountIdEquals(sponsorId, ownerAcc.accountId)) {
    if (entry.data.type !== 4) throw new Error('entry sponsored by its own owner');
    removeSponsored(entry, ownerAcc, null, mult);
    return;
  }
  const sponsorEntry = loadAccountOrThrow(ltx, sponsorId);
  removeSponsored(entry, accountOf(sponsorEntry), sponsored, mult);
  ltx.update(sponsorEntry);
}

function removeSponsored(entry: LedgerEntry, sponsoring: AccountEntry, sponsored: AccountEntry | null, mult: number): void {
  if (numSponsoring(sponsoring) < mult) throw new Error('invalid sponsoring account state');
  const subEntry = sponsored !== null && isSubEntry(entry);
  if (sponsored && ((subEntry && sponsored.numSubEntries < mult) || numSponsored(sponsored) < mult)) {
    throw new Error('invalid sponsored account state');
  }
  if (subEntry) sponsored.numSubEntries -= mult;
  removeEntrySponsorship(entry, sponsoring, sponsored);
}

// ---------------------------------------------------------------------------------------------
// Signers

/**
 * Pays the reserve of signer `index`, which the caller has just inserted into the working copy of
 * `owner` (with a null entry in signerSponsoringIDs when the account has that extension). On a
 * result other than 'ok' the caller fails the operation and discards its copy.
 */
export function createSignerWithPossibleSponsorship(ltx: LedgerTxn, ledger: LedgerContext, owner: LedgerEntry,
  index: number): SponsorshipResult {
  const acc = accountOf(owner);
  const sponsorId = activeSponsorOf(ltx, acc.accountId);
  if (tooManySubEntries(acc, 1)) return 'tooManySubentries';
  if (sponsorId) {
    const sponsorEntry = loadAccountOrThrow(ltx, sponsorId);
    const sponsoring = accountOf(sponsorEntry);
    const res = canEstablishSignerSponsorship(ledger, acc, index, sponsoring);
    if (res !== 'ok') return res;
    acc.numSubEntries += 1;
    establishSignerSponsorship(acc, index, sponsoring);
    ltx.update(sponsorEntry);
    return 'ok';
  }
  if (availableBalance(ledger, acc) < BigInt(ledger.baseReserve)) return 'lowReserve';
  acc.numSubEntries += 1;
  return 'ok';
}

/** Removes signer `index` from the working copy of `owner`, releasing its reserve (and sponsorship). */
export function removeSignerWithPossibleSponsorship(ltx: LedgerTxn, owner: LedgerEntry, index: number): void {
  const acc = accountOf(owner);
  const sponsorId = signerSponsorOf(acc, index);
  if (sponsorId) {
    const sponsorEntry = loadAccountOrThrow(ltx, sponsorId);
    const sponsoring = accountOf(sponsorEntry);
    if (numSponsoring(sponsoring) < 1) throw new Error('invalid sponsoring account state');
    if (acc.numSubEntries < 1 || numSponsored(acc) < 1) throw new Error('invalid sponsored account state');
    removeSignerSponsorship(acc, index, sponsoring);
    ltx.update(sponsorEntry);
  } else if (acc.numSubEntries < 1) {
    throw new Error('invalid account state: numSubEntries underflow');
  }
  acc.numSubEntries -= 1;
  extV2(acc)?.signerSponsoringIDs.splice(index, 1);
  acc.signers.splice(index, 1);
}
