// The arithmetic of crossing two offers, as stellar-core's OfferExchange does it since protocol 10
// (exchangeV10): which side is the smaller offer, how much of each asset changes hands, which way
// the rounding goes, and the 1% price-error bound. Pure functions over bigint: core computes these
// in 128-bit integers, and every rounding decides a result byte.

import { INT64_MAX, bigDivideOrThrow, divide128OrThrow } from '../numeric.ts';

export type Price = { n: number; d: number };

/** How a crossing rounds: offers against offers, or one side of a path payment. */
export const Rounding = { NORMAL: 0, PATH_PAYMENT_STRICT_SEND: 1, PATH_PAYMENT_STRICT_RECEIVE: 2 } as const;
export type Rounding = typeof Rounding[keyof typeof Rounding];

const offerValue = (priceN: number, priceD: number, maxSend: bigint, maxReceive: bigint): bigint => {
  const send = maxSend * BigInt(priceN);
  const receive = maxReceive * BigInt(priceD);
  return send < receive ? send : receive;
};

export interface Exchange {
  /** Wheat (what the resting offer sells) that the taker receives. */
  wheatReceived: bigint;
  /** Sheep (what the resting offer buys) that the taker sends. */
  sheepSend: bigint;
  /** The resting offer is the larger one and stays in the book. */
  wheatStays: boolean;
}

/**
 * The amounts of one crossing before the price-error check. The smaller offer is taken whole; the
 * rounding favours the offer that stays in the book.
 */
export function exchangeWithoutPriceErrorThresholds(price: Price, maxWheatSend: bigint, maxWheatReceive: bigint,
  maxSheepSend: bigint, maxSheepReceive: bigint, round: Rounding): Exchange {
  const n = BigInt(price.n), d = BigInt(price.d);
  const wheatValue = offerValue(price.n, price.d, maxWheatSend, maxSheepReceive);
  const sheepValue = offerValue(price.d, price.n, maxSheepSend, maxWheatReceive);
  const wheatStays = wheatValue > sheepValue;

  let wheatReceived: bigint;
  let sheepSend: bigint;
  if (wheatStays) {
    if (round === Rounding.PATH_PAYMENT_STRICT_SEND) {
      wheatReceived = divide128OrThrow(sheepValue, n, false);
      sheepSend = maxSheepSend < maxSheepReceive ? maxSheepSend : maxSheepReceive;
    } else if (price.n > price.d || round === Rounding.PATH_PAYMENT_STRICT_RECEIVE) {
      wheatReceived = divide128OrThrow(sheepValue, n, false);
      sheepSend = bigDivideOrThrow(wheatReceived, n, d, true);
    } else {
      sheepSend = divide128OrThrow(sheepValue, d, false);
      wheatReceived = bigDivideOrThrow(sheepSend, d, n, false);
    }
  } else if (price.n > price.d) {
    wheatReceived = divide128OrThrow(wheatValue, n, false);
    sheepSend = bigDivideOrThrow(wheatReceived, n, d, false);
  } else {
    sheepSend = divide128OrThrow(wheatValue, d, false);
    wheatReceived = bigDivideOrThrow(sheepSend, d, n, true);
  }

  const wheatCap = maxWheatReceive < maxWheatSend ? maxWheatReceive : maxWheatSend;
  const sheepCap = maxSheepReceive < maxSheepSend ? maxSheepReceive : maxSheepSend;
  if (wheatReceived < 0n || wheatReceived > wheatCap) throw new Error('wheatReceive out of bounds');
  if (sheepSend < 0n || sheepSend > sheepCap) throw new Error('sheepSend out of bounds');
  return { wheatReceived, sheepSend, wheatStays };
}

/**
 * Whether the effective price sheepSend/wheatReceive is within 1% of `price`; with `canFavorWheat`
 * any error in the resting (wheat) seller's favour passes.
 */
export function checkPriceErrorBound(price: Price, wheatReceive: bigint, sheepSend: bigint, canFavorWheat: boolean): boolean {
  const lhs = 100n * BigInt(price.n) * wheatReceive;
  const rhs = 100n * BigInt(price.d) * sheepSend;
  if (canFavorWheat && rhs > lhs) return true;
  const diff = lhs > rhs ? lhs - rhs : rhs - lhs;
  return diff <= BigInt(price.n) * wheatReceive;
}

/** Rejects a crossing whose rounding moved the price too far (then nothing trades, for offers). */
export function applyPriceErrorThresholds(price: Price, wheatReceived: bigint, sheepSend: bigint, wheatStays: boolean,
  round: Rounding): Exchange {
  if (wheatReceived > 0n && sheepSend > 0n) {
    const wheatValue = wheatReceived * BigInt(price.n);
    const sheepValue = sheepSend * BigInt(price.d);
    if (wheatStays && sheepValue < wheatValue) throw new Error('favored sheep when wheat stays');
    if (!wheatStays && sheepValue > wheatValue) throw new Error('favored wheat when sheep stays');
    if (round === Rounding.NORMAL) {
      if (!checkPriceErrorBound(price, wheatReceived, sheepSend, false)) { wheatReceived = 0n; sheepSend = 0n; }
    } else if (!checkPriceErrorBound(price, wheatReceived, sheepSend, true)) {
      throw new Error('exceeded price error bound');
    }
  } else if (round === Rounding.PATH_PAYMENT_STRICT_SEND) {
    // a strict send may have to give sheep for no wheat to send exactly its amount; never nothing
    if (sheepSend === 0n) throw new Error('invalid amount of sheep sent');
  } else {
    wheatReceived = 0n;
    sheepSend = 0n;
  }
  return { wheatReceived, sheepSend, wheatStays };
}

/** One crossing of offers (core's exchangeV10). */
export function exchangeV10(price: Price, maxWheatSend: bigint, maxWheatReceive: bigint, maxSheepSend: bigint,
  maxSheepReceive: bigint, round: Rounding): Exchange {
  const before = exchangeWithoutPriceErrorThresholds(price, maxWheatSend, maxWheatReceive, maxSheepSend, maxSheepReceive, round);
  return applyPriceErrorThresholds(price, before.wheatReceived, before.sheepSend, before.wheatStays, round);
}

/**
 * The amount an offer can honestly stand for: what its seller can sell and receive at its price,
 * so that crossing it whole never fails (core's adjustOffer; applying it twice changes nothing).
 */
export function adjustOffer(price: Price, maxWheatSend: bigint, maxSheepReceive: bigint): bigint {
  return exchangeV10(price, maxWheatSend, INT64_MAX, INT64_MAX, maxSheepReceive, Rounding.NORMAL).wheatReceived;
}

/** What an offer of `amount` at `price` commits its seller to: buying (sheep) and selling (wheat). */
export function offerLiabilities(price: Price, amount: bigint): { buying: bigint; selling: bigint } {
  const r = exchangeWithoutPriceErrorThresholds(price, amount, INT64_MAX, INT64_MAX, INT64_MAX, Rounding.NORMAL);
  return { buying: r.sheepSend, selling: r.wheatReceived };
}

/** a > b for prices, compared exactly by cross-multiplication (core's operator>). */
export const priceGreater = (a: Price, b: Price): boolean => BigInt(a.n) * BigInt(b.d) > BigInt(a.d) * BigInt(b.n);
/** a >= b for prices (core's operator>=). */
export const priceGreaterOrEqual = (a: Price, b: Price): boolean => BigInt(a.n) * BigInt(b.d) >= BigInt(a.d) * BigInt(b.n);
