// A resting offer commits its seller: it may sell at most what it has (selling liabilities) and must
// be able to receive what it buys (buying liabilities), on the account for native and on the
// trustline otherwise. Every change to an offer releases its liabilities first and acquires the new
// ones after (stellar-core's acquireLiabilities / releaseLiabilities); the entries touched are
// written, as core records them.
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { LedgerContext } from '../ops/types.ts';
import { accountOf, loadAccount } from '../ops/accounts.ts';
import { offerOf } from '../orderBook.ts';
import { addAccountBuyingLiabilities, addAccountSellingLiabilities, addLineBuyingLiabilities, addLineSellingLiabilities, loadCreditLine, saveLine } from '../holdings.ts';
import { offerLiabilities } from './exchangeMath.ts';
import { assetEquals } from '../assets.ts';
import type { LedgerEntry } from '../../xdr/codec.ts';

export const acquireLiabilities = (ltx: LedgerTxn, ledger: LedgerContext, offer: LedgerEntry): void =>
  changeLiabilities(ltx, ledger, offer, 1n);

export const releaseLiabilities = (ltx: LedgerTxn, ledger: LedgerContext, offer: LedgerEntry): void =>
  changeLiabilities(ltx, ledger, offer, -1n);

function changeLiabilities(ltx: LedgerTxn, ledger: LedgerContext, offerEntry: LedgerEntry, sign: 1n | -1n): void {
  const offer = offerOf(offerEntry);
  if (assetEquals(offer.buying, offer.selling)) throw new Error('offer buying and selling the same asset');
  const { buying, selling } = offerLiabilities(offer.price, offer.amount);

  if (offer.buying.type === 0) {
    const account = loadAccount(ltx, offer.sellerId);
    if (!account) throw new Error('offer seller account does not exist');
    if (!addAccountBuyingLiabilities(accountOf(account), sign * buying)) throw new Error('could not add buying liabilities');
    ltx.update(account);
  } else {
    const line = loadCreditLine(ltx, offer.sellerId, offer.buying);
    if (!line) throw new Error('offer seller trustline does not exist');
    if (!addLineBuyingLiabilities(line, sign * buying)) throw new Error('could not add buying liabilities');
    saveLine(ltx, line);
  }

  if (offer.selling.type === 0) {
    const account = loadAccount(ltx, offer.sellerId);
    if (!account) throw new Error('offer seller account does not exist');
    if (!addAccountSellingLiabilities(ledger, accountOf(account), sign * selling)) throw new Error('could not add selling liabilities');
    ltx.update(account);
  } else {
    const line = loadCreditLine(ltx, offer.sellerId, offer.selling);
    if (!line) throw new Error('offer seller trustline does not exist');
    if (!addLineSellingLiabilities(line, sign * selling)) throw new Error('could not add selling liabilities');
    saveLine(ltx, line);
  }
}
