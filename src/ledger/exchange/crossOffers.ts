// Crossing the order book: take the best offers selling wheat for sheep, one at a time, until the
// taker has sent or received enough, the book runs out, or a filter stops it (stellar-core's
// crossOfferV10 and convertWithOffers). Each crossed offer's seller is paid from the taker's sheep
// and pays wheat; the offer shrinks, or is taken whole and leaves the book with its reserve.
import type { xdr } from '../../xdr/xdr.ts';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { LedgerContext } from '../ops/types.ts';
import { accountOf, loadAccountOrThrow } from '../ops/accounts.ts';
import { canBuyAtMost, canSellAtMost, lineAddBalance, loadCreditLine, saveLine, type CreditLine } from '../holdings.ts';
import { addAccountBalance } from '../ops/accounts.ts';
import { removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { offerOf } from '../orderBook.ts';
import { acquireLiabilities, releaseLiabilities } from './offerLiabilities.ts';
import { adjustOffer, exchangeV10, type Rounding } from './exchangeMath.ts';
import { accountKey, type Asset, type LedgerEntry } from '../../xdr/codec.ts';

export type ClaimAtom = xdr.ClaimAtomWire;

/** What a filter says of the next best offer before it is crossed. */
export type OfferFilterResult = 'keep' | 'stopBadPrice' | 'stopCrossSelf';

/** How a conversion ended (core's ConvertResult). */
export type ConvertResult = 'ok' | 'partial' | 'stopBadPrice' | 'stopCrossSelf' | 'crossedTooMany';

export interface Converted {
  result: ConvertResult;
  sheepSend: bigint;
  wheatReceived: bigint;
  trail: ClaimAtom[];
}

/**
 * Adjusts the offer to what its seller can honour now: never more than they can sell, and no more
 * than they can receive the price of.
 */
function adjustToSeller(ledger: LedgerContext, offer: xdr.OfferEntryWire, account: LedgerEntry | undefined,
  wheatLine: CreditLine | undefined, sheepLine: CreditLine | undefined): void {
  const canSell = canSellAtMost(ledger, account, offer.selling, wheatLine);
  const maxWheatSend = offer.amount < canSell ? offer.amount : canSell;
  offer.amount = adjustOffer(offer.price, maxWheatSend, canBuyAtMost(account, offer.buying, sheepLine));
}

/** Crosses one offer; returns what changed hands and whether the offer stays. */
function crossOffer(ltx: LedgerTxn, ledger: LedgerContext, offerEntry: LedgerEntry, maxWheatReceive: bigint,
  maxSheepSend: bigint, round: Rounding, trail: ClaimAtom[]): { wheatReceived: bigint; sheepSend: bigint; wheatStays: boolean; taken: boolean } {
  if (maxWheatReceive <= 0n || maxSheepSend <= 0n) throw new Error('crossing an offer with nothing to trade');
  const offer = offerOf(offerEntry);
  const { sellerId, offerId, selling: wheat, buying: sheep } = offer;
  if (!ltx.exists(accountKey(sellerId))) throw new Error('invalid state: offer without a seller account');

  releaseLiabilities(ltx, ledger, offerEntry);
  // core loads (and so records) the seller's account only when one side is native, and both lines
  const account = wheat.type === 0 || sheep.type === 0 ? loadAccountOrThrow(ltx, sellerId) : undefined;
  const sheepLine = sheep.type === 0 ? undefined : loadCreditLine(ltx, sellerId, sheep);
  const wheatLine = wheat.type === 0 ? undefined : loadCreditLine(ltx, sellerId, wheat);

  adjustToSeller(ledger, offer, account, wheatLine, sheepLine);
  const canSell = canSellAtMost(ledger, account, wheat, wheatLine);
  const maxWheatSend = offer.amount < canSell ? offer.amount : canSell;
  const maxSheepReceive = canBuyAtMost(account, sheep, sheepLine);
  const ex = exchangeV10(offer.price, maxWheatSend, maxWheatReceive, maxSheepSend, maxSheepReceive, round);

  if (ex.sheepSend !== 0n) {
    const ok = sheep.type === 0 ? addAccountBalance(ledger, accountOf(account!), ex.sheepSend) : lineAddBalance(sheepLine!, ex.sheepSend);
    if (!ok) throw new Error('overflowed sheep balance');
  }
  if (ex.wheatReceived !== 0n) {
    const ok = wheat.type === 0 ? addAccountBalance(ledger, accountOf(account!), -ex.wheatReceived) : lineAddBalance(wheatLine!, -ex.wheatReceived);
    if (!ok) throw new Error('overflowed wheat balance');
  }
  if (account) ltx.update(account);
  if (sheepLine) saveLine(ltx, sheepLine);
  if (wheatLine) saveLine(ltx, wheatLine);

  if (ex.wheatStays) {
    offer.amount -= ex.wheatReceived;
    adjustToSeller(ledger, offer, account, wheatLine, sheepLine);
  } else {
    offer.amount = 0n;
  }

  const taken = offer.amount === 0n;
  const key = { type: 2 as const, offer: { sellerId, offerId } };
  if (taken) {
    const owner = loadAccountOrThrow(ltx, sellerId);
    removeEntryWithPossibleSponsorship(ltx, offerEntry, owner);
    ltx.update(owner);
    ltx.erase(key);
  } else {
    ltx.update(offerEntry);
    acquireLiabilities(ltx, ledger, offerEntry);
  }
  trail.push({
    type: 1,
    orderBook: { sellerId, offerId, assetSold: wheat, amountSold: ex.wheatReceived, assetBought: sheep, amountBought: ex.sheepSend },
  });
  return { wheatReceived: ex.wheatReceived, sheepSend: ex.sheepSend, wheatStays: ex.wheatStays, taken };
}

/**
 * Sends up to `maxSheepSend` sheep to receive up to `maxWheatReceive` wheat through the book, in
 * `ltxOuter` (each crossing in its own level, kept only when the crossing completes).
 */
export function convertWithOffers(ltxOuter: LedgerTxn, ledger: LedgerContext, sheep: Asset, maxSheepSend: bigint,
  wheat: Asset, maxWheatReceive: bigint, round: Rounding, filter: (offer: xdr.OfferEntryWire) => OfferFilterResult,
  maxOffersToCross: number): Converted {
  const trail: ClaimAtom[] = [];
  let sheepSend = 0n;
  let wheatReceived = 0n;
  const done = (result: ConvertResult): Converted => ({ result, sheepSend, wheatReceived, trail });

  let needMore = maxWheatReceive > 0n && maxSheepSend > 0n;
  if (needMore && maxOffersToCross === 0) return done('crossedTooMany');

  while (needMore) {
    const ltx = ltxOuter.nest();
    const offerEntry = ltx.bestOffer(wheat, sheep);
    if (!offerEntry) { ltx.rollback(); break; }
    const verdict = filter(offerOf(offerEntry));
    if (verdict !== 'keep') { ltx.rollback(); return done(verdict); }
    if (trail.length >= maxOffersToCross) { ltx.rollback(); return done('crossedTooMany'); }

    const crossed = crossOffer(ltx, ledger, offerEntry, maxWheatReceive, maxSheepSend, round, trail);
    ltx.commit();
    sheepSend += crossed.sheepSend;
    maxSheepSend -= crossed.sheepSend;
    wheatReceived += crossed.wheatReceived;
    maxWheatReceive -= crossed.wheatReceived;

    needMore = !crossed.wheatStays && maxWheatReceive > 0n && maxSheepSend > 0n;
    if (!needMore) return done('ok');
    if (!crossed.taken) return done('partial');
  }
  return done(needMore ? 'partial' : 'ok');
}

