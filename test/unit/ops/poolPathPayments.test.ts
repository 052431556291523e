// Path payments through a liquidity pool: the pool's side of a hop as path payments see it (the
// amounts of core's constant-product formulas with the 30 bps fee, the liquidity claim atom, the
// CAP-67 events to and from the pool's address), and the choice between the pool and the book.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import { MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry } from './support.ts';
import { accountAddress, liquidityPoolAddress, transferEvent } from '../../../src/ledger/sacEvents.ts';
import { constantProductParams, liquidityPoolKey, poolIdForAssets } from '../../../src/ledger/liquidityPools.ts';
import type { Asset, MuxedAccount } from '../../../src/xdr/codec.ts';

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const issuer = accountId('issuer');
const provider = accountId('provider'); // deposits 1000 stroops of XLM and 1000 EUR
const maker = accountId('maker');       // sells EUR for XLM in the book
const carol = accountId('carol');       // pays in XLM
const erin = accountId('erin');         // receives EUR
const EUR = credit('EUR', issuer);
const NATIVE: Asset = { type: 0 };
const POOL_ID = poolIdForAssets(NATIVE, EUR);

const strictSend = (sendAmount: bigint, destination: MuxedAccount, destMin: bigint): xdr.OperationBodyWire =>
  ({ type: 13, pathPaymentStrictSendOp: { sendAsset: NATIVE, sendAmount, destination, destAsset: EUR, destMin, path: [] } });
const strictReceive = (sendMax: bigint, destination: MuxedAccount, destAmount: bigint): xdr.OperationBodyWire =>
  ({ type: 2, pathPaymentStrictReceiveOp: { sendAsset: NATIVE, sendMax, destination, destAsset: EUR, destAmount, path: [] } });

function okRun(state: MemoryState, body: xdr.OperationBodyWire, source: typeof carol) {
  const r = runOp(state, body, source);
  assert.equal(r.outcome.success, true, `operation ${body.type} failed with ${innerCode(r.outcome)}`);
  return r;
}

/** A native/EUR pool holding 1000 / 1000 (provided through real ChangeTrust and deposit operations). */
function market(): MemoryState {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM),
    accountEntry(provider, 1000n * XLM, { numSubEntries: 1 }),
    accountEntry(maker, 1000n * XLM, { numSubEntries: 1 }),
    accountEntry(carol, 1000n * XLM),
    accountEntry(erin, 100n * XLM, { numSubEntries: 1 }),
    trustLineEntry(provider, EUR, 1000n, INT64_MAX, 1),
    trustLineEntry(maker, EUR, 1000n, INT64_MAX, 1),
    trustLineEntry(erin, EUR, 0n, INT64_MAX, 1),
  ]);
  okRun(state, { type: 6, changeTrustOp: { line: { type: 3, liquidityPool: { type: 0, constantProduct: constantProductParams(NATIVE, EUR) } }, limit: INT64_MAX } }, provider);
  okRun(state, { type: 22, liquidityPoolDepositOp: { liquidityPoolId: POOL_ID, maxAmountA: 1000n, maxAmountB: 1000n, minPrice: { n: 1, d: 1 }, maxPrice: { n: 1, d: 1 } } }, provider);
  return state;
}

const reserves = (state: MemoryState): [bigint, bigint] => {
  const e = state.get(liquidityPoolKey(POOL_ID));
  if (e?.data.type !== 5) throw new Error('no pool');
  const cp = e.data.liquidityPool.body.constantProduct;
  return [cp.reserveA, cp.reserveB];
};

const offersOf = (tr: xdr.OperationResultTrWire): xdr.ClaimAtomWire[] => {
  const arm = Object.entries(tr).find(([k]) => k !== 'type')![1] as { code: number; success: { offers: xdr.ClaimAtomWire[] } };
  assert.equal(arm.code, 0);
  return arm.success.offers;
};

const sellEur = (amount: bigint, n: number, d: number): xdr.OperationBodyWire =>
  ({ type: 3, manageSellOfferOp: { selling: EUR, buying: NATIVE, amount, price: { n, d }, offerId: 0n } });

test('strict send through the pool: 100 XLM into 1000/1000 delivers 90 EUR', () => {
  const state = market();
  const r = okRun(state, strictSend(100n, muxed(erin), 90n), carol);
  // floor(9970 * 1000 * 100 / (10000 * 1000 + 9970 * 100)) = floor(90.66) = 90
  assert.deepEqual(offersOf(r.outcome.tr), [
    { type: 2, liquidityPool: { liquidityPoolId: POOL_ID, assetSold: EUR, amountSold: 90n, assetBought: NATIVE, amountBought: 100n } },
  ]);
  assert.deepEqual(reserves(state), [1100n, 910n]);
  assert.equal(state.trustLine(erin, EUR)!.balance, 90n);
  assert.equal(state.account(carol)!.balance, 1000n * XLM - 100n);
  const pool = liquidityPoolAddress(POOL_ID);
  assert.deepEqual(r.events, [
    transferEvent(NETWORK_ID, NATIVE, accountAddress(carol), pool, 100n),
    transferEvent(NETWORK_ID, EUR, pool, accountAddress(carol), 90n),
    transferEvent(NETWORK_ID, EUR, accountAddress(carol), accountAddress(erin), 90n),
  ]);
  // one more EUR than the pool gives is UNDER_DESTMIN
  assert.equal(innerCode(runOp(market(), strictSend(100n, muxed(erin), 91n), carol).outcome), -12);
});

test('strict receive through the pool: 90 EUR out of 1000/1000 costs 100 XLM', () => {
  const state = market();
  const r = okRun(state, strictReceive(100n, muxed(erin), 90n), carol);
  // ceil(10000 * 1000 * 90 / ((1000 - 90) * 9970)) = ceil(99.198) = 100
  assert.deepEqual(offersOf(r.outcome.tr).map((a) => a.type === 2 && [a.liquidityPool.amountBought, a.liquidityPool.amountSold]), [[100n, 90n]]);
  assert.deepEqual(reserves(state), [1100n, 910n]);
  assert.equal(innerCode(runOp(market(), strictReceive(99n, muxed(erin), 90n), carol).outcome), -12, 'OVER_SENDMAX');
});

test('the pool refuses what core refuses: a send too small to buy anything, the whole reserve', () => {
  const state = market();
  // 1 stroop: floor(9,970,000 / 10,009,970) = 0
  assert.equal(innerCode(runOp(state, strictSend(1n, muxed(erin), 1n), carol).outcome), -10);
  assert.equal(innerCode(runOp(state, strictReceive(INT64_MAX, muxed(erin), 1000n), carol).outcome), -10);
  assert.deepEqual(reserves(state), [1000n, 1000n]);
});

test('pool or book: the book wins only at a strictly better rate; a tie goes to the pool', () => {
  // the book sells 100 EUR at 1 XLM each: 100 EUR for 100 XLM beats the pool's 90
  const better = market();
  okRun(better, sellEur(100n, 1, 1), maker);
  const b = okRun(better, strictSend(100n, muxed(erin), 1n), carol);
  assert.deepEqual(offersOf(b.outcome.tr).map((a) => a.type), [1]);
  assert.equal(better.trustLine(erin, EUR)!.balance, 100n);
  assert.deepEqual(reserves(better), [1000n, 1000n], 'the pool was only priced');

  // the book sells 90 EUR at 10/9 XLM each: 90 EUR for 100 XLM, the pool's rate exactly
  const tie = market();
  okRun(tie, sellEur(90n, 10, 9), maker);
  const t = okRun(tie, strictSend(100n, muxed(erin), 1n), carol);
  assert.deepEqual(offersOf(t.outcome.tr).map((a) => a.type), [2]);
  assert.deepEqual(reserves(tie), [1100n, 910n]);

  // a worse book (2 XLM per EUR) loses too, and keeps its offer
  const worse = market();
  okRun(worse, sellEur(100n, 2, 1), maker);
  const w = okRun(worse, strictSend(100n, muxed(erin), 1n), carol);
  assert.deepEqual(offersOf(w.outcome.tr).map((a) => a.type), [2]);
  assert.equal(worse.trustLine(erin, EUR)!.balance, 90n);
});
