// One hop of a trade: sheep for wheat through the order book or the liquidity pool of the pair,
// whichever gives the taker the better rate (stellar-core's convertWithOffersAndPools). Both are
// tried; the book wins only when it fills completely at a better price than the pool. Offers (which
// never trade with pools, core's rounding mode NORMAL) go to the book alone.
import type { xdr } from '../../xdr/xdr.ts';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { LedgerContext } from '../ops/types.ts';
import type { Asset } from '../../xdr/codec.ts';
import { convertWithOffers, type ClaimAtom, type Converted, type OfferFilterResult } from './crossOffers.ts';
import type { Rounding } from './exchangeMath.ts';
import { exchangeWithPool } from './poolExchange.ts';
import { poolIdForAssets } from '../liquidityPools.ts';

/** Offers a trade may still cross (core's MAX_OFFERS_TO_CROSS per operation, a pool counting as one). */
export interface CrossingBudget { remaining: number }

export const MAX_OFFERS_TO_CROSS = 1000;

export function convertWithOffersAndPools(ltxOuter: LedgerTxn, ledger: LedgerContext, sheep: Asset, maxSheepSend: bigint,
  wheat: Asset, maxWheatReceive: bigint, round: Rounding, filter: (offer: xdr.OfferEntryWire) => OfferFilterResult,
  budget: CrossingBudget): Converted {
  // what the pool would give, in a level that is always rolled back
  const trial = ltxOuter.nest();
  const pool = exchangeWithPool(trial, ledger, sheep, maxSheepSend, wheat, maxWheatReceive, round, budget.remaining);
  trial.rollback();

  const bookLtx = ltxOuter.nest();
  const book = convertWithOffers(bookLtx, ledger, sheep, maxSheepSend, wheat, maxWheatReceive, round, filter, budget.remaining);
  // the book is taken unless the pool traded and the book either fell short or gave a worse rate
  const useBook = !pool || (book.result === 'ok' && pool.toPool * book.wheatReceived > pool.fromPool * book.sheepSend);
  if (useBook) {
    bookLtx.commit();
    budget.remaining -= book.trail.length;
    return book;
  }
  bookLtx.rollback();
  // since protocol 27 the offers the book tried count against the limit even when the pool wins
  if (ledger.protocolVersion >= 27) {
    if (book.trail.length >= budget.remaining) return { result: 'crossedTooMany', sheepSend: 0n, wheatReceived: 0n, trail: [] };
    budget.remaining -= book.trail.length;
  }

  const traded = exchangeWithPool(ltxOuter, ledger, sheep, maxSheepSend, wheat, maxWheatReceive, round, budget.remaining);
  const sheepSend = traded?.toPool ?? 0n;
  const wheatReceived = traded?.fromPool ?? 0n;
  const atom: ClaimAtom = {
    type: 2,
    liquidityPool: { liquidityPoolId: poolIdForAssets(sheep, wheat), assetSold: wheat, amountSold: wheatReceived, assetBought: sheep, amountBought: sheepSend },
  };
  budget.remaining -= 1;
  return { result: 'ok', sheepSend, wheatReceived, trail: [atom] };
}
