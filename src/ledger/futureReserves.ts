// The sponsorships a transaction has begun (CAP-33): BeginSponsoringFutureReserves makes its source
// pay the reserves of whatever the sponsored account creates until that account's
// EndSponsoringFutureReserves. stellar-core keeps these as internal ledger entries that never reach
// the ledger: SPONSORSHIP (sponsored -> sponsoring) and SPONSORSHIP_COUNTER (how many accounts a
// sponsoring account is sponsoring right now). Here they are LedgerTxn internal values, so they
// nest, commit and roll back with the operation and transaction that made them.
import type { LedgerTxn } from './ledgerTxn.ts';
import { toHex, type AccountId } from '../xdr/codec.ts';

const SPONSORSHIP = 'sponsorship:';
const SPONSORSHIP_COUNTER = 'sponsorshipCounter:';

const sponsorshipName = (sponsored: AccountId): string => SPONSORSHIP + toHex(sponsored.ed25519);
const counterName = (sponsoring: AccountId): string => SPONSORSHIP_COUNTER + toHex(sponsoring.ed25519);

/** The account paying `sponsored`'s future reserves, if a sponsorship is open (core's loadSponsorship). */
export const activeSponsorOf = (ltx: LedgerTxn, sponsored: AccountId): AccountId | undefined =>
  ltx.getInternal<AccountId>(sponsorshipName(sponsored));

/** How many open sponsorships `sponsoring` has begun, if any (core's loadSponsorshipCounter). */
export const openSponsorshipCount = (ltx: LedgerTxn, sponsoring: AccountId): number | undefined =>
  ltx.getInternal<number>(counterName(sponsoring));

/** Opens a sponsorship; the caller has checked that none is open for `sponsored`. */
export function openSponsorship(ltx: LedgerTxn, sponsoring: AccountId, sponsored: AccountId): void {
  if (activeSponsorOf(ltx, sponsored)) throw new Error('sponsorship already open');
  ltx.setInternal(sponsorshipName(sponsored), sponsoring);
  ltx.setInternal(counterName(sponsoring), (openSponsorshipCount(ltx, sponsoring) ?? 0) + 1);
}

/** Closes `sponsored`'s open sponsorship; the caller has checked that one is open. */
export function closeSponsorship(ltx: LedgerTxn, sponsored: AccountId): void {
  const sponsoring = activeSponsorOf(ltx, sponsored);
  if (!sponsoring) throw new Error('no open sponsorship');
  const count = openSponsorshipCount(ltx, sponsoring);
  if (count === undefined) throw new Error('no sponsorship counter');
  if (count === 0) throw new Error('bad sponsorship counter');
  // a counter that reaches zero is erased, as core does: only open sponsorships leave a trace
  ltx.setInternal(counterName(sponsoring), count === 1 ? undefined : count - 1);
  ltx.setInternal(sponsorshipName(sponsored), undefined);
}

/** Whether any sponsorship is still open (core's hasSponsorshipEntry): a transaction may not end so. */
export function hasOpenSponsorship(ltx: LedgerTxn): boolean {
  return ltx.internalsWithPrefix(SPONSORSHIP).length > 0 || ltx.internalsWithPrefix(SPONSORSHIP_COUNTER).length > 0;
}
