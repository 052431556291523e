// The crossing arithmetic (core's exchangeV10): which offer stays, the rounding direction per mode,
// the 1% price-error bound, adjustOffer's idempotence and the liabilities of an offer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Rounding, adjustOffer, checkPriceErrorBound, exchangeV10, offerLiabilities, priceGreater, priceGreaterOrEqual,
} from '../../../src/ledger/exchange/exchangeMath.ts';
import { INT64_MAX, bigDivide } from '../../../src/ledger/numeric.ts';

test('bigDivide rounds down or up and refuses results beyond int64', () => {
  assert.equal(bigDivide(7n, 3n, 2n, false), 10n);
  assert.equal(bigDivide(7n, 3n, 2n, true), 11n);
  assert.equal(bigDivide(INT64_MAX, 2n, 1n, false), undefined);
  assert.throws(() => bigDivide(1n, 1n, 0n, false));
});

test('the smaller side is taken whole; the rounding favours the offer that stays', () => {
  // resting offer sells 10 wheat at 3 sheep each (price 3/1); the taker sends at most 10 sheep
  const r = exchangeV10({ n: 3, d: 1 }, 10n, INT64_MAX, 10n, INT64_MAX, Rounding.NORMAL);
  assert.equal(r.wheatStays, true);
  // wheat is the more valuable: wheat = floor(10 / 3) = 3, sheep = ceil(3 * 3) = 9 (in the stayer's favour)
  assert.deepEqual([r.wheatReceived, r.sheepSend], [3n, 9n]);
  // the taker is the bigger one: the resting offer goes whole, 10 wheat for 30 sheep
  const t = exchangeV10({ n: 3, d: 1 }, 10n, INT64_MAX, 100n, INT64_MAX, Rounding.NORMAL);
  assert.deepEqual([t.wheatStays, t.wheatReceived, t.sheepSend], [false, 10n, 30n]);
});

test('a trade whose rounding moves the price more than 1% does not happen for offers', () => {
  // price 1/3: 1 sheep buys 3 wheat; a taker with 1 stroop of room would distort it
  const r = exchangeV10({ n: 2, d: 3 }, 1n, INT64_MAX, 1n, INT64_MAX, Rounding.NORMAL);
  assert.deepEqual([r.wheatReceived, r.sheepSend], [0n, 0n]);
  assert.equal(checkPriceErrorBound({ n: 100, d: 1 }, 1n, 100n, false), true);
  assert.equal(checkPriceErrorBound({ n: 100, d: 1 }, 1n, 102n, false), false);
  assert.equal(checkPriceErrorBound({ n: 100, d: 1 }, 1n, 102n, true), true);
});

test('strict send spends exactly its sheep when the resting offer stays', () => {
  const r = exchangeV10({ n: 3, d: 1 }, 100n, INT64_MAX, 10n, INT64_MAX, Rounding.PATH_PAYMENT_STRICT_SEND);
  assert.deepEqual([r.wheatStays, r.sheepSend, r.wheatReceived], [true, 10n, 3n]);
});

test('adjustOffer is idempotent and shrinks an offer to what its seller can honour', () => {
  const once = adjustOffer({ n: 7, d: 3 }, 1000n, 500n);
  assert.equal(adjustOffer({ n: 7, d: 3 }, once, 500n), once);
  assert.ok(once * 7n <= 500n * 3n + 7n);
});

test('an offer\'s liabilities: what it sells and what it would receive', () => {
  assert.deepEqual(offerLiabilities({ n: 2, d: 1 }, 100n), { selling: 100n, buying: 200n });
  // 10 at 1/3 buys 3 whole sheep, which only 9 of the 10 wheat are worth: the liabilities are 9 and 3
  assert.deepEqual(offerLiabilities({ n: 1, d: 3 }, 10n), { selling: 9n, buying: 3n });
});

test('prices compare exactly by cross-multiplication', () => {
  assert.equal(priceGreater({ n: 2, d: 6 }, { n: 1, d: 3 }), false);
  assert.equal(priceGreaterOrEqual({ n: 2, d: 6 }, { n: 1, d: 3 }), true);
  assert.equal(priceGreater({ n: 2147483647, d: 2147483646 }, { n: 2147483646, d: 2147483645 }), false);
});
