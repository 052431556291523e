// The pool side of an exchange: core's constant-product amounts with a 30 bps fee, their refusals at
// the edges, and the reserves moved inside a LedgerTxn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { exchangeWithPool, poolExchangeAmounts } from '../../../src/ledger/exchange/poolExchange.ts';
import { Rounding } from '../../../src/ledger/exchange/exchangeMath.ts';
import { constantProductParams, liquidityPoolKey, poolIdForAssets } from '../../../src/ledger/liquidityPools.ts';
import { MemoryState, accountId, credit } from '../ops/support.ts';
import type { Asset, LedgerEntry } from '../../../src/xdr/codec.ts';

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const FEE = 30;
const SEND = Rounding.PATH_PAYMENT_STRICT_SEND;
const RECEIVE = Rounding.PATH_PAYMENT_STRICT_RECEIVE;

const strictSend = (reservesTo: bigint, send: bigint, reservesFrom: bigint) =>
  poolExchangeAmounts(reservesTo, send, reservesFrom, INT64_MAX, FEE, SEND);
const strictReceive = (reservesTo: bigint, receive: bigint, reservesFrom: bigint) =>
  poolExchangeAmounts(reservesTo, INT64_MAX, reservesFrom, receive, FEE, RECEIVE);

/**
 * The constant-product rule the amounts must satisfy, stated independently of core's formulas: with
 * 99.7% of what is sent counted, the product of the reserves does not fall.
 * (10000 * rTo + 9970 * sent) * (rFrom - received) >= 10000 * rTo * rFrom
 */
const keepsProduct = (rTo: bigint, sent: bigint, rFrom: bigint, received: bigint): boolean =>
  (10_000n * rTo + 9_970n * sent) * (rFrom - received) >= 10_000n * rTo * rFrom;

test('strict send, worked by hand: 100 into 1000/1000 gives 90', () => {
  // floor(9970 * 1000 * 100 / (10000 * 1000 + 9970 * 100)) = floor(997,000,000 / 10,997,000) = floor(90.66) = 90
  assert.deepEqual(strictSend(1000n, 100n, 1000n), { toPool: 100n, fromPool: 90n });
  // asymmetric: 10^15 into 10^18 / 5*10^17: floor(9970 * 5e17 * 1e15 / (1e22 + 9.97e18)) = floor(498003490519951.6)
  assert.deepEqual(strictSend(10n ** 18n, 10n ** 15n, 5n * 10n ** 17n), { toPool: 10n ** 15n, fromPool: 498_003_490_519_951n });
});

test('strict receive, worked by hand: 90 out of 1000/1000 costs 100', () => {
  // ceil(10000 * 1000 * 90 / ((1000 - 90) * 9970)) = ceil(900,000,000 / 9,072,700) = ceil(99.198) = 100
  assert.deepEqual(strictReceive(1000n, 90n, 1000n), { toPool: 100n, fromPool: 90n });
  // all but one unit: ceil(10000 * 1000 * 999 / (1 * 9970)) = ceil(1,002,006.018) = 1,002,007
  assert.deepEqual(strictReceive(1000n, 999n, 1000n), { toPool: 1_002_007n, fromPool: 999n });
});

test('tiny amounts: a strict send that rounds down to nothing is refused', () => {
  // 1 into 1000/1000: floor(9,970,000 / 10,009,970) = 0 → no trade; 2 → floor(19,940,000 / 10,019,940) = 1
  assert.equal(strictSend(1000n, 1n, 1000n), undefined);
  assert.deepEqual(strictSend(1000n, 2n, 1000n), { toPool: 2n, fromPool: 1n });
  // receiving 1 from a deep pool still costs at least 1
  assert.deepEqual(strictReceive(10n ** 12n, 1n, 10n ** 12n), { toPool: 2n, fromPool: 1n });
});

test('a pool is never emptied; a strict receive of its whole reserve (or more) is refused', () => {
  assert.equal(strictReceive(1000n, 1000n, 1000n), undefined);
  assert.equal(strictReceive(1000n, 1001n, 1000n), undefined);
});

test('near INT64_MAX: the reserve receiving must keep room for what is sent', () => {
  // strict send: INT64_MAX - 5 + 5 fits, + 6 does not
  assert.equal(strictSend(INT64_MAX - 5n, 6n, INT64_MAX), undefined);
  // floor(9970 * INT64_MAX * 5 / (10000 * (INT64_MAX - 5) + 9970 * 5)) = floor(4.985...) = 4
  assert.deepEqual(strictSend(INT64_MAX - 5n, 5n, INT64_MAX), { toPool: 5n, fromPool: 4n });
  // ...and from a shallow reserve the same send buys nothing
  assert.equal(strictSend(INT64_MAX - 5n, 5n, 1000n), undefined);
  // strict receive: 1 out of 1000 against INT64_MAX - 10 costs ceil(10000 * (INT64_MAX - 10) / (999 * 9970)),
  // about 9.26e15, far more than the 10 units of room
  assert.equal(strictReceive(INT64_MAX - 10n, 1n, 1000n), undefined);
  // exactly filling the room is allowed, one unit past it is not: for rTo = 9,214,120,939,278,484,887,
  // 1 out of 1000 costs ceil(10000 * rTo / (999 * 9970)) = 9,251,097,576,290,920 = INT64_MAX - rTo
  const rTo = 9_214_120_939_278_484_887n;
  assert.deepEqual(strictReceive(rTo, 1n, 1000n), { toPool: INT64_MAX - rTo, fromPool: 1n });
  assert.equal(strictReceive(rTo + 1n, 1n, 1000n), undefined);
  // a cost past INT64_MAX itself is refused (hugeDivide's quotient bound)
  assert.equal(strictReceive(INT64_MAX / 2n, INT64_MAX - 1n, INT64_MAX), undefined);
  // the biggest strict send the pool can take
  const big = strictSend(1n, INT64_MAX - 1n, INT64_MAX);
  assert.ok(big && big.toPool === INT64_MAX - 1n && keepsProduct(1n, big.toPool, INT64_MAX, big.fromPool));
});

test('amounts keep the product and are the best the pool allows (random reserves and amounts)', () => {
  let s = 0x2545f4914f6cdd1dn;
  const next = (max: bigint): bigint => {
    s ^= (s << 13n) & 0xffff_ffff_ffff_ffffn; s ^= s >> 7n; s ^= (s << 17n) & 0xffff_ffff_ffff_ffffn;
    return 1n + (s % max);
  };
  let sends = 0, receives = 0;
  for (let i = 0; i < 3000; i++) {
    const scale = [1_000n, 10n ** 9n, 10n ** 15n, INT64_MAX / 2n][i % 4];
    const rTo = next(scale), rFrom = next(scale), amount = next(scale);
    const sent = strictSend(rTo, amount, rFrom);
    if (sent) {
      sends++;
      assert.ok(sent.fromPool > 0n && keepsProduct(rTo, amount, rFrom, sent.fromPool), `send ${amount} into ${rTo}/${rFrom}`);
      assert.ok(!keepsProduct(rTo, amount, rFrom, sent.fromPool + 1n), 'one more out would break the product');
    } else {
      assert.ok(amount > INT64_MAX - rTo || !keepsProduct(rTo, amount, rFrom, 1n), `refused send ${amount} into ${rTo}/${rFrom}`);
    }
    if (amount < rFrom) {
      const got = strictReceive(rTo, amount, rFrom);
      if (got) {
        receives++;
        assert.ok(keepsProduct(rTo, got.toPool, rFrom, amount), `receive ${amount} from ${rTo}/${rFrom}`);
        assert.ok(!keepsProduct(rTo, got.toPool - 1n, rFrom, amount), 'one less in would break the product');
        assert.ok(got.toPool <= INT64_MAX - rTo);
      }
    }
  }
  assert.ok(sends > 1000 && receives > 500, `enough trades happened (${sends}, ${receives})`);
});

test('caller errors throw: fee out of range, non-positive reserves, a bound where none belongs, normal rounding', () => {
  assert.throws(() => poolExchangeAmounts(1n, 1n, 1n, INT64_MAX, 10_000, SEND), /fee/);
  assert.throws(() => poolExchangeAmounts(1n, 1n, 1n, INT64_MAX, -1, SEND), /fee/);
  assert.throws(() => poolExchangeAmounts(0n, 1n, 1n, INT64_MAX, FEE, SEND), /reserve/);
  assert.throws(() => poolExchangeAmounts(1n, 1n, 1n, 5n, FEE, SEND), /bounded/);
  assert.throws(() => poolExchangeAmounts(1n, 5n, 10n, 1n, FEE, RECEIVE), /bounded/);
  assert.throws(() => poolExchangeAmounts(1n, 1n, 1n, 1n, FEE, Rounding.NORMAL), /rounding/);
});

// ---------------------------------------------------------------------------------------------
// On a LedgerTxn

const issuer = accountId('issuer');
const EUR = credit('EUR', issuer);
const USD = credit('USD', issuer);

function poolEntry(x: Asset, y: Asset, reserveA: bigint, reserveB: bigint): LedgerEntry {
  const params = constantProductParams(x, y);
  return {
    lastModifiedLedgerSeq: 1,
    data: { type: 5, liquidityPool: { liquidityPoolId: poolIdForAssets(x, y), body: { type: 0, constantProduct: { params, reserveA, reserveB, totalPoolShares: 1000n, poolSharesTrustLineCount: 1n } } } },
    ext: { v: 0 },
  };
}

const reservesIn = (ltx: LedgerTxn, x: Asset, y: Asset): [bigint, bigint] => {
  const e = ltx.load(liquidityPoolKey(poolIdForAssets(x, y)));
  if (e?.data.type !== 5) throw new Error('no pool');
  const cp = e.data.liquidityPool.body.constantProduct;
  return [cp.reserveA, cp.reserveB];
};

const p23 = { protocolVersion: 23 };

test('exchangeWithPool moves the reserves in either direction and commits into the given LedgerTxn', () => {
  // EUR is asset A, USD asset B
  const state = new MemoryState([poolEntry(USD, EUR, 1000n, 1000n)]);
  const ltx = new LedgerTxn(state, 100).nest();
  const sellEur = exchangeWithPool(ltx, p23, EUR, 100n, USD, INT64_MAX, SEND, 1000);
  assert.deepEqual(sellEur, { toPool: 100n, fromPool: 90n });
  assert.deepEqual(reservesIn(ltx, EUR, USD), [1100n, 910n]);
  // back the other way, strict receive: 90 EUR out of 1100 against 910 USD in reserve
  // ceil(10000 * 910 * 90 / ((1100 - 90) * 9970)) = ceil(819,000,000 / 10,069,700) = ceil(81.33) = 82
  const buyEur = exchangeWithPool(ltx, p23, USD, INT64_MAX, EUR, 90n, RECEIVE, 1000);
  assert.deepEqual(buyEur && [buyEur.toPool, buyEur.fromPool], [82n, 90n]);
  assert.deepEqual(reservesIn(ltx, EUR, USD), [1010n, 992n]);
  assert.ok(ltx.modified(liquidityPoolKey(poolIdForAssets(EUR, USD))));
  ltx.rollback();
  // nothing reached the state: pricing on a LedgerTxn that is rolled back leaves no trace
  assert.deepEqual(reservesIn(new LedgerTxn(state, 100), EUR, USD), [1000n, 1000n]);
});

test('exchangeWithPool refuses (undefined, LedgerTxn untouched) where core does', () => {
  const state = new MemoryState([poolEntry(EUR, USD, 1000n, 1000n), poolEntry(EUR, { type: 0 }, 0n, 0n)]);
  const ltx = new LedgerTxn(state, 100).nest();
  const key = liquidityPoolKey(poolIdForAssets(EUR, USD));
  const refused = [
    exchangeWithPool(ltx, { protocolVersion: 17 }, EUR, 100n, USD, INT64_MAX, SEND, 1000),
    exchangeWithPool(ltx, p23, EUR, 100n, USD, INT64_MAX, Rounding.NORMAL, 1000),
    exchangeWithPool(ltx, p23, EUR, 100n, USD, INT64_MAX, SEND, 0),
    exchangeWithPool(ltx, p23, EUR, 1n, USD, INT64_MAX, SEND, 1000), // rounds to nothing
    exchangeWithPool(ltx, p23, USD, INT64_MAX, EUR, 1000n, RECEIVE, 1000), // the whole reserve
    exchangeWithPool(ltx, p23, { type: 0 }, 100n, EUR, INT64_MAX, SEND, 1000), // a pool nobody deposited into
    exchangeWithPool(ltx, p23, { type: 0 }, 100n, USD, INT64_MAX, SEND, 1000), // no such pool
  ];
  assert.deepEqual(refused, refused.map(() => undefined));
  assert.equal(ltx.modified(key), false);
  assert.deepEqual(reservesIn(ltx, EUR, USD), [1000n, 1000n]);
});

