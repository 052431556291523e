// Offers on the order book through real LedgerTxn levels: resting, crossing partly and fully,
// updating, deleting, passive offers, liabilities and reserves, the result's claim atoms and the
// CAP-67 events of the trades, and every failure code reachable without sponsorship.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import {
  MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, runOp, trustLineEntry,
} from './support.ts';
import { accountAddress, transferEvent } from '../../../src/ledger/sacEvents.ts';
import { accountLiabilities, trustLineLiabilities } from '../../../src/ledger/ops/accounts.ts';
import { operationResultOf } from '../../../src/ledger/ops/index.ts';
import type { AccountId, Asset, LedgerEntry } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const USD = credit('USD', issuer);
const EUR = credit('EUR', issuer);
const NATIVE: Asset = { type: 0 };
const AUTHORIZED = 1;

const sell = (selling: Asset, buying: Asset, amount: bigint, n: number, d: number, offerId = 0n): xdr.OperationBodyWire =>
  ({ type: 3, manageSellOfferOp: { selling, buying, amount, price: { n, d }, offerId } });
const buy = (selling: Asset, buying: Asset, buyAmount: bigint, n: number, d: number, offerId = 0n): xdr.OperationBodyWire =>
  ({ type: 12, manageBuyOfferOp: { selling, buying, buyAmount, price: { n, d }, offerId } });
const passive = (selling: Asset, buying: Asset, amount: bigint, n: number, d: number): xdr.OperationBodyWire =>
  ({ type: 4, createPassiveSellOfferOp: { selling, buying, amount, price: { n, d } } });

function world(): MemoryState {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM),
    accountEntry(alice, 1000n * XLM, { numSubEntries: 2 }),
    accountEntry(bob, 1000n * XLM, { numSubEntries: 2 }),
    trustLineEntry(alice, USD, 500n * XLM, 10_000n * XLM, AUTHORIZED),
    trustLineEntry(bob, USD, 0n, 10_000n * XLM, AUTHORIZED),
    trustLineEntry(alice, EUR, 0n, 10_000n * XLM, AUTHORIZED),
    trustLineEntry(bob, EUR, 500n * XLM, 10_000n * XLM, AUTHORIZED),
  ]);
  return state;
}

type SuccessArm = { code: 0; success: xdr.ManageOfferSuccessResultWire };
const success = (tr: xdr.OperationResultTrWire): xdr.ManageOfferSuccessResultWire => {
  const arm = Object.entries(tr).find(([k]) => k !== 'type')![1] as SuccessArm;
  assert.equal(arm.code, 0);
  return arm.success;
};

const offers = (state: MemoryState, selling: Asset, buying: Asset) =>
  state.offers(selling, buying).map((e: LedgerEntry) => (e.data as Extract<LedgerEntry['data'], { type: 2 }>).offer);

const usdLine = (state: MemoryState, who: AccountId) => state.trustLine(who, USD)!;

test('a new offer that crosses nothing rests in the book with liabilities and a reserve', () => {
  const state = world();
  const r = runOp(state, sell(USD, NATIVE, 100n * XLM, 2, 1), alice);
  const s = success(r.outcome.tr);
  assert.deepEqual(s.offersClaimed, []);
  assert.equal(s.offer.effect, 0);
  assert.equal(s.offer.effect === 0 && s.offer.offer.offerId, 1n);
  assert.equal(state.idPool, 1n);
  const [o] = offers(state, USD, NATIVE);
  assert.equal(o.amount, 100n * XLM);
  assert.equal(state.account(alice)!.numSubEntries, 3);
  // selling 100 USD at 2 XLM each: 100 USD committed, 200 XLM to receive
  assert.equal(trustLineLiabilities(usdLine(state, alice)).selling, 100n * XLM);
  assert.equal(accountLiabilities(state.account(alice)!).buying, 200n * XLM);
  assert.deepEqual(r.events, []);
});

test('a crossing offer trades at the resting price, fully and then partly, and reports the claims', () => {
  const state = world();
  runOp(state, sell(USD, NATIVE, 100n * XLM, 2, 1), alice);

  // bob sells 100 XLM at 0.5 USD each: takes half of alice's offer, nothing of his rests
  const r = runOp(state, sell(NATIVE, USD, 100n * XLM, 1, 2), bob);
  const s = success(r.outcome.tr);
  assert.equal(s.offer.effect, 2);
  assert.deepEqual(s.offersClaimed, [{
    type: 1,
    orderBook: { sellerId: alice, offerId: 1n, assetSold: USD, amountSold: 50n * XLM, assetBought: NATIVE, amountBought: 100n * XLM },
  }]);
  assert.equal(usdLine(state, bob).balance, 50n * XLM);
  assert.equal(usdLine(state, alice).balance, 450n * XLM);
  assert.equal(state.account(alice)!.balance, 1100n * XLM);
  assert.equal(state.account(bob)!.balance, 900n * XLM);
  assert.equal(offers(state, USD, NATIVE)[0].amount, 50n * XLM);
  assert.equal(trustLineLiabilities(usdLine(state, alice)).selling, 50n * XLM);
  assert.equal(accountLiabilities(state.account(alice)!).buying, 100n * XLM);
  assert.equal(state.account(bob)!.numSubEntries, 2);
  assert.deepEqual(r.events, [
    transferEvent(NETWORK_ID, NATIVE, accountAddress(bob), accountAddress(alice), 100n * XLM),
    transferEvent(NETWORK_ID, USD, accountAddress(alice), accountAddress(bob), 50n * XLM),
  ]);

  // bob sells 300 XLM more: alice's remaining 50 USD is taken whole, 200 XLM of bob's rests
  const r2 = runOp(state, sell(NATIVE, USD, 300n * XLM, 1, 2), bob);
  const s2 = success(r2.outcome.tr);
  assert.equal(s2.offer.effect, 0);
  assert.equal(s2.offer.effect === 0 && s2.offer.offer.amount, 200n * XLM);
  assert.deepEqual(offers(state, USD, NATIVE), []);
  assert.equal(state.account(alice)!.numSubEntries, 2);
  assert.equal(trustLineLiabilities(usdLine(state, alice)).selling, 0n);
  assert.equal(accountLiabilities(state.account(alice)!).buying, 0n);
  assert.equal(offers(state, NATIVE, USD)[0].amount, 200n * XLM);
  assert.equal(offers(state, NATIVE, USD)[0].offerId, 2n);
  assert.equal(state.account(bob)!.numSubEntries, 3);
});

test('offers are updated and deleted, releasing liabilities and the reserve', () => {
  const state = world();
  runOp(state, sell(USD, NATIVE, 100n * XLM, 2, 1), alice);
  const upd = success(runOp(state, sell(USD, NATIVE, 30n * XLM, 3, 1, 1n), alice).outcome.tr);
  assert.equal(upd.offer.effect, 1);
  assert.equal(offers(state, USD, NATIVE)[0].amount, 30n * XLM);
  assert.equal(trustLineLiabilities(usdLine(state, alice)).selling, 30n * XLM);
  assert.equal(accountLiabilities(state.account(alice)!).buying, 90n * XLM);

  const del = success(runOp(state, sell(USD, NATIVE, 0n, 3, 1, 1n), alice).outcome.tr);
  assert.equal(del.offer.effect, 2);
  assert.deepEqual(offers(state, USD, NATIVE), []);
  assert.equal(state.account(alice)!.numSubEntries, 2);
  assert.equal(trustLineLiabilities(usdLine(state, alice)).selling, 0n);
  assert.equal(accountLiabilities(state.account(alice)!).buying, 0n);
});

test('a passive offer does not take an offer at exactly its price; a normal one does', () => {
  const state = world();
  runOp(state, passive(USD, NATIVE, 10n * XLM, 2, 1), alice);
  const p = success(runOp(state, passive(NATIVE, USD, 20n * XLM, 1, 2), bob).outcome.tr);
  assert.deepEqual(p.offersClaimed, []);
  assert.equal(offers(state, USD, NATIVE).length, 1);
  assert.equal(offers(state, NATIVE, USD).length, 1);
  assert.equal(offers(state, USD, NATIVE)[0].flags, 1);

  const n = success(runOp(state, sell(NATIVE, USD, 20n * XLM, 1, 2), bob).outcome.tr);
  assert.equal(n.offersClaimed.length, 1);
  assert.deepEqual(offers(state, USD, NATIVE), []);
});

test('a buy offer states what it receives and rests at the inverse price', () => {
  const state = world();
  // alice wants to buy 10 EUR paying 2 USD each
  const r = success(runOp(state, buy(USD, EUR, 10n * XLM, 2, 1), alice).outcome.tr);
  assert.equal(r.offer.effect, 0);
  const [o] = offers(state, USD, EUR);
  assert.deepEqual(o.price, { n: 1, d: 2 });
  assert.equal(o.amount, 20n * XLM);
  // bob sells 4 EUR at 2 USD each: alice's offer gets 4 EUR for 8 USD
  const s = success(runOp(state, sell(EUR, USD, 4n * XLM, 2, 1), bob).outcome.tr);
  assert.equal(s.offersClaimed.length, 1);
  assert.equal(state.trustLine(alice, EUR)!.balance, 4n * XLM);
  assert.equal(usdLine(state, bob).balance, 8n * XLM);
  assert.equal(offers(state, USD, EUR)[0].amount, 12n * XLM);
});

test('crossing one\'s own offer is CROSS_SELF and changes nothing', () => {
  const state = world();
  runOp(state, sell(USD, NATIVE, 10n * XLM, 2, 1), alice);
  const r = runOp(state, sell(NATIVE, USD, 20n * XLM, 1, 2), alice);
  assert.equal(innerCode(r.outcome), -8);
  assert.equal(offers(state, NATIVE, USD).length, 0);
  assert.equal(offers(state, USD, NATIVE)[0].amount, 10n * XLM);
});

test('malformed offers and missing trust are refused with core\'s codes', () => {
  const state = world();
  const code = (body: xdr.OperationBodyWire, who: AccountId = alice) => innerCode(runOp(state, body, who).outcome);
  assert.equal(code(sell(USD, NATIVE, -1n, 1, 1)), -1);           // negative amount
  assert.equal(code(sell(USD, NATIVE, 1n, 0, 1)), -1);            // zero price
  assert.equal(code(sell(USD, NATIVE, 1n, 1, -3)), -1);           // negative price
  assert.equal(code(sell(USD, USD, 1n, 1, 1)), -1);               // same asset both sides
  assert.equal(code(sell(USD, NATIVE, 0n, 1, 1)), -1);            // delete without an id
  assert.equal(code(sell(USD, NATIVE, 1n, 1, 1, -5n)), -1);       // negative id
  assert.equal(code(sell(USD, NATIVE, 0n, 1, 1, 77n)), -11);      // NOT_FOUND
  assert.equal(code(sell(USD, NATIVE, 1n, 1, 1), bob), -7);       // bob holds no USD: UNDERFUNDED
  assert.equal(code(sell(credit('GBP', issuer), NATIVE, 1n, 1, 1)), -2);  // SELL_NO_TRUST
  assert.equal(code(sell(NATIVE, credit('GBP', issuer), 1n, 1, 1)), -3);  // BUY_NO_TRUST
  assert.equal(code(sell(USD, NATIVE, 501n * XLM, 1, 1)), -7);    // more than alice has: UNDERFUNDED
  assert.equal(code(sell(NATIVE, USD, 10_001n * XLM, 1, 1)), -6); // more USD than the line holds: LINE_FULL
  assert.equal(state.idPool, 0n);
});

test('an offer needs the reserve of its entry', () => {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM),
    // 2 + 2 sub-entries = 2 XLM reserve; exactly that much: no room for another entry
    accountEntry(alice, 2n * XLM, { numSubEntries: 2 }),
    trustLineEntry(alice, USD, 5n, 100n, AUTHORIZED),
    trustLineEntry(alice, EUR, 0n, 100n, AUTHORIZED),
  ]);
  const r = runOp(state, sell(USD, EUR, 5n, 1, 1), alice);
  assert.equal(innerCode(r.outcome), -12);
});

test('the issuer sells its own asset without a trustline and without liabilities on it', () => {
  const state = world();
  const r = runOp(state, sell(USD, NATIVE, 1000n * XLM, 1, 1), issuer);
  assert.equal(r.outcome.success, true);
  const s = success(runOp(state, sell(NATIVE, USD, 10n * XLM, 1, 1), bob).outcome.tr);
  assert.equal(s.offersClaimed.length, 1);
  assert.equal(usdLine(state, bob).balance, 10n * XLM);
  assert.equal(offers(state, USD, NATIVE)[0].amount, 990n * XLM);
  assert.deepEqual(operationResultOf(r.outcome).code, 0);
});

test('revoking a holder\'s authorization pulls its offers in that asset, and only those', () => {
  const state = world();
  const revocable = state.account(issuer)!;
  state.put(accountEntry(issuer, revocable.balance, { flags: 0x2 }));
  runOp(state, sell(USD, NATIVE, 10n * XLM, 2, 1), alice);   // sells USD: pulled
  runOp(state, sell(NATIVE, EUR, 10n * XLM, 1, 1), alice);   // EUR for XLM: stays
  assert.equal(state.account(alice)!.numSubEntries, 4);

  const r = runOp(state, { type: 21, setTrustLineFlagsOp: { trustor: alice, asset: USD, clearFlags: AUTHORIZED, setFlags: 0 } }, issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.deepEqual(offers(state, USD, NATIVE), []);
  assert.equal(offers(state, NATIVE, EUR).length, 1);
  assert.equal(state.account(alice)!.numSubEntries, 3);
  assert.equal(trustLineLiabilities(usdLine(state, alice)).selling, 0n);
  assert.equal(usdLine(state, alice).flags, 0);
  // the XLM side of the EUR offer still commits its selling liabilities
  assert.equal(accountLiabilities(state.account(alice)!).selling, 10n * XLM);
  assert.equal(accountLiabilities(state.account(alice)!).buying, 0n);
});
