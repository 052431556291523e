// Path payments through the order book over real LedgerTxn levels: strict send and strict receive
// over two hops, their constraints, the offers list and last payment of the result, the events, and
// TOO_FEW_OFFERS / OFFER_CROSS_SELF / OVER_SENDMAX / UNDER_DESTMIN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import {
  MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry,
} from './support.ts';
import { accountAddress, transferEvent } from '../../../src/ledger/sacEvents.ts';
import type { Asset, MuxedAccount } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const maker1 = accountId('maker1');   // sells USD for XLM at 2 XLM each
const maker2 = accountId('maker2');   // sells EUR for USD at 1 USD each
const carol = accountId('carol');     // pays in XLM
const erin = accountId('erin');       // receives EUR
const USD = credit('USD', issuer);
const EUR = credit('EUR', issuer);
const NATIVE: Asset = { type: 0 };
const AUTHORIZED = 1;

const sell = (selling: Asset, buying: Asset, amount: bigint, n: number, d: number): xdr.OperationBodyWire =>
  ({ type: 3, manageSellOfferOp: { selling, buying, amount, price: { n, d }, offerId: 0n } });
const strictSend = (sendAmount: bigint, destination: MuxedAccount, destMin: bigint, path: Asset[]): xdr.OperationBodyWire =>
  ({ type: 13, pathPaymentStrictSendOp: { sendAsset: NATIVE, sendAmount, destination, destAsset: EUR, destMin, path } });
const strictReceive = (sendMax: bigint, destination: MuxedAccount, destAmount: bigint, path: Asset[]): xdr.OperationBodyWire =>
  ({ type: 2, pathPaymentStrictReceiveOp: { sendAsset: NATIVE, sendMax, destination, destAsset: EUR, destAmount, path } });

function market(): MemoryState {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM),
    accountEntry(maker1, 1000n * XLM, { numSubEntries: 1 }),
    accountEntry(maker2, 1000n * XLM, { numSubEntries: 2 }),
    accountEntry(carol, 1000n * XLM),
    accountEntry(erin, 100n * XLM, { numSubEntries: 1 }),
    trustLineEntry(maker1, USD, 100n * XLM, 10_000n * XLM, AUTHORIZED),
    trustLineEntry(maker2, USD, 0n, 10_000n * XLM, AUTHORIZED),
    trustLineEntry(maker2, EUR, 100n * XLM, 10_000n * XLM, AUTHORIZED),
    trustLineEntry(erin, EUR, 0n, 10_000n * XLM, AUTHORIZED),
  ]);
  assert.equal(runOp(state, sell(USD, NATIVE, 100n * XLM, 2, 1), maker1).outcome.success, true);
  assert.equal(runOp(state, sell(EUR, USD, 100n * XLM, 1, 1), maker2).outcome.success, true);
  return state;
}

type Success = { code: 0; success: { offers: xdr.ClaimAtomWire[]; last: xdr.SimplePaymentResultWire } };
const successOf = (tr: xdr.OperationResultTrWire): Success['success'] => {
  const arm = Object.entries(tr).find(([k]) => k !== 'type')![1] as Success;
  assert.equal(arm.code, 0);
  return arm.success;
};

test('strict send over two hops: XLM to USD to EUR through the book', () => {
  const state = market();
  const r = runOp(state, strictSend(100n * XLM, muxed(erin), 50n * XLM, [USD]), carol);
  const s = successOf(r.outcome.tr);
  assert.deepEqual(s.last, { destination: erin, asset: EUR, amount: 50n * XLM });
  assert.deepEqual(s.offers.map((a) => a.type === 1 && [a.orderBook.offerId, a.orderBook.amountSold, a.orderBook.amountBought]),
    [[1n, 50n * XLM, 100n * XLM], [2n, 50n * XLM, 50n * XLM]]);
  assert.equal(state.account(carol)!.balance, 900n * XLM);
  assert.equal(state.trustLine(erin, EUR)!.balance, 50n * XLM);
  assert.equal(state.trustLine(maker1, USD)!.balance, 50n * XLM);
  assert.equal(state.trustLine(maker2, USD)!.balance, 50n * XLM);
  assert.equal(state.trustLine(maker2, EUR)!.balance, 50n * XLM);
  // each trade both ways, then the payment itself
  assert.deepEqual(r.events, [
    transferEvent(NETWORK_ID, NATIVE, accountAddress(carol), accountAddress(maker1), 100n * XLM),
    transferEvent(NETWORK_ID, USD, accountAddress(maker1), accountAddress(carol), 50n * XLM),
    transferEvent(NETWORK_ID, USD, accountAddress(carol), accountAddress(maker2), 50n * XLM),
    transferEvent(NETWORK_ID, EUR, accountAddress(maker2), accountAddress(carol), 50n * XLM),
    transferEvent(NETWORK_ID, EUR, accountAddress(carol), accountAddress(erin), 50n * XLM),
  ]);
});

test('strict send below the destination minimum is UNDER_DESTMIN and changes nothing', () => {
  const state = market();
  const r = runOp(state, strictSend(100n * XLM, muxed(erin), 50n * XLM + 1n, [USD]), carol);
  assert.equal(innerCode(r.outcome), -12);
  assert.equal(state.account(carol)!.balance, 1000n * XLM);
});

test('strict receive over two hops pays what the path costs', () => {
  const state = market();
  const r = runOp(state, strictReceive(40n * XLM, muxed(erin), 20n * XLM, [USD]), carol);
  const s = successOf(r.outcome.tr);
  assert.deepEqual(s.last, { destination: erin, asset: EUR, amount: 20n * XLM });
  // offers are listed in path order (source side first)
  assert.deepEqual(s.offers.map((a) => a.type === 1 && a.orderBook.offerId), [1n, 2n]);
  assert.equal(state.account(carol)!.balance, 960n * XLM);
  assert.equal(state.trustLine(erin, EUR)!.balance, 20n * XLM);
});

test('strict receive over the send maximum is OVER_SENDMAX', () => {
  const state = market();
  assert.equal(innerCode(runOp(state, strictReceive(40n * XLM - 1n, muxed(erin), 20n * XLM, [USD]), carol).outcome), -12);
});

test('more than the book holds is TOO_FEW_OFFERS; a path through one\'s own offer is OFFER_CROSS_SELF', () => {
  const state = market();
  assert.equal(innerCode(runOp(state, strictReceive(1000n * XLM, muxed(erin), 101n * XLM, [USD]), carol).outcome), -10);
  assert.equal(innerCode(runOp(state, strictSend(100n * XLM, muxed(erin), 1n, [credit('GBP', issuer)]), carol).outcome), -10);
  // maker1 pays through its own USD offer
  const own = runOp(state, { type: 13, pathPaymentStrictSendOp: { sendAsset: NATIVE, sendAmount: XLM, destination: muxed(maker2), destAsset: USD, destMin: 1n, path: [] } }, maker1);
  assert.equal(innerCode(own.outcome), -11);
});

test('malformed path payments and missing destinations get core\'s codes', () => {
  const state = market();
  assert.equal(innerCode(runOp(state, strictSend(0n, muxed(erin), 1n, [USD]), carol).outcome), -1);
  assert.equal(innerCode(runOp(state, strictReceive(1n, muxed(erin), -1n, [USD]), carol).outcome), -1);
  assert.equal(innerCode(runOp(state, strictSend(1n, muxed(accountId('nobody')), 1n, [USD]), carol).outcome), -5);
  assert.equal(innerCode(runOp(state, strictSend(2000n * XLM, muxed(erin), 1n, [USD]), carol).outcome), -2);
});
