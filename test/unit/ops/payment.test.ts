import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import {
  MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry,
} from './support.ts';
import { accountAddress, burnEvent, mintEvent, transferEvent } from '../../../src/ledger/sacEvents.ts';
import type { Asset, MuxedAccount } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const USD = credit('USD', issuer);
const NATIVE: Asset = { type: 0 };
const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const AUTHORIZED = 1, MAINTAIN = 2;

const pay = (destination: MuxedAccount, asset: Asset, amount: bigint): xdr.OperationBodyWire =>
  ({ type: 1, paymentOp: { destination, asset, amount } });

function world() {
  return new MemoryState([
    accountEntry(issuer, 100n * XLM),
    accountEntry(alice, 100n * XLM, { numSubEntries: 1 }),
    accountEntry(bob, 100n * XLM, { numSubEntries: 1 }),
    trustLineEntry(alice, USD, 500n, 1000n, AUTHORIZED),
    trustLineEntry(bob, USD, 0n, 1000n, AUTHORIZED),
  ]);
}

test('native payment moves lumens and emits a transfer', () => {
  const state = world();
  const r = runOp(state, pay(muxed(bob), NATIVE, 7n * XLM), alice);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.account(alice)!.balance, 93n * XLM);
  assert.equal(state.account(bob)!.balance, 107n * XLM);
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, NATIVE, accountAddress(alice), accountAddress(bob), 7n * XLM)]);
});

test('native payment: reserve edge (exactly the spendable amount works, one more stroop is UNDERFUNDED)', () => {
  const state = world();
  // alice: 1 sub-entry → reserve 1.5 XLM → spendable 98.5 XLM
  const spendable = 100n * XLM - 15n * XLM / 10n;
  assert.equal(innerCode(runOp(state, pay(muxed(bob), NATIVE, spendable + 1n), alice).outcome), -2);
  assert.equal(state.account(bob)!.balance, 100n * XLM, 'failed payment leaves the destination untouched');
  assert.equal(innerCode(runOp(state, pay(muxed(bob), NATIVE, spendable), alice).outcome), 0);
  assert.equal(state.account(alice)!.balance, 15n * XLM / 10n);
});

test('native payment to a missing account is NO_DESTINATION', () => {
  const state = world();
  assert.equal(innerCode(runOp(state, pay(muxed(accountId('nobody')), NATIVE, 1n), alice).outcome), -5);
});

test('native payment overflowing the destination is LINE_FULL (incl. buying liabilities)', () => {
  const state = new MemoryState([
    accountEntry(alice, 100n * XLM),
    accountEntry(bob, INT64_MAX - 10n, { ext: { v: 1, v1: { liabilities: { buying: 5n, selling: 0n }, ext: { v: 0 } } } }),
  ]);
  assert.equal(innerCode(runOp(state, pay(muxed(bob), NATIVE, 6n), alice).outcome), -8);
  assert.equal(innerCode(runOp(state, pay(muxed(bob), NATIVE, 5n), alice).outcome), 0);
});

test('native payment to oneself succeeds without changes but reports a transfer', () => {
  const state = world();
  const r = runOp(state, pay(muxed(alice, 3n), NATIVE, 1000n * XLM), alice);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.account(alice)!.balance, 100n * XLM);
  assert.equal(r.changes.length, 0);
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].body.v0.topics[0].type === 15 && r.events[0].body.v0.topics[0].sym.toString(), 'transfer');
});

test('credit payment between holders moves the trustline balances', () => {
  const state = world();
  const r = runOp(state, pay(muxed(bob), USD, 200n), alice);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 300n);
  assert.equal(state.trustLine(bob, USD)!.balance, 200n);
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, USD, accountAddress(alice), accountAddress(bob), 200n)]);
});

test('credit payment failures: NO_TRUST, NOT_AUTHORIZED, LINE_FULL, SRC_NO_TRUST, SRC_NOT_AUTHORIZED, UNDERFUNDED', () => {
  const carol = accountId('carol');
  const dave = accountId('dave');
  const base = () => {
    const s = world();
    s.put(accountEntry(carol, 10n * XLM));
    s.put(accountEntry(dave, 10n * XLM, { numSubEntries: 1 }));
    s.put(trustLineEntry(dave, USD, 0n, 1000n, 0));
    return s;
  };
  assert.equal(innerCode(runOp(base(), pay(muxed(carol), USD, 1n), alice).outcome), -6, 'no trustline');
  assert.equal(innerCode(runOp(base(), pay(muxed(dave), USD, 1n), alice).outcome), -7, 'unauthorized destination');
  assert.equal(innerCode(runOp(base(), pay(muxed(bob), USD, 1001n), alice).outcome), -8, 'over the limit');
  assert.equal(innerCode(runOp(base(), pay(muxed(bob), USD, 1n), carol).outcome), -3, 'sender has no trustline');
  assert.equal(innerCode(runOp(base(), pay(muxed(bob), USD, 1n), dave).outcome), -4, 'sender unauthorized');
  assert.equal(innerCode(runOp(base(), pay(muxed(bob), USD, 501n), alice).outcome), -2, 'more than the sender holds');
  // Maintain-liabilities is not enough to receive or to send.
  const s = base();
  s.put(trustLineEntry(bob, USD, 10n, 1000n, MAINTAIN));
  assert.equal(innerCode(runOp(s, pay(muxed(bob), USD, 1n), alice).outcome), -7);
  assert.equal(innerCode(runOp(s, pay(muxed(alice), USD, 1n), bob).outcome), -4);
});

test('credit payment honours trustline liabilities', () => {
  const state = world();
  state.put(trustLineEntry(alice, USD, 500n, 1000n, AUTHORIZED, { ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 100n }, ext: { v: 0 } } } }));
  state.put(trustLineEntry(bob, USD, 0n, 1000n, AUTHORIZED, { ext: { v: 1, v1: { liabilities: { buying: 950n, selling: 0n }, ext: { v: 0 } } } }));
  assert.equal(innerCode(runOp(state, pay(muxed(bob), USD, 51n), alice).outcome), -8, 'limit - buying liabilities = 50');
  state.put(trustLineEntry(bob, USD, 0n, 1000n, AUTHORIZED));
  assert.equal(innerCode(runOp(state, pay(muxed(bob), USD, 401n), alice).outcome), -2, 'balance - selling liabilities = 400');
  assert.equal(innerCode(runOp(state, pay(muxed(bob), USD, 400n), alice).outcome), 0);
});

test('issuer sends its own asset without a trustline: mint', () => {
  const state = world();
  const r = runOp(state, pay(muxed(bob), USD, 1000n), issuer, { memo: { type: 2, id: 5n } });
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(bob, USD)!.balance, 1000n);
  assert.deepEqual(r.events, [mintEvent(NETWORK_ID, USD, accountAddress(bob), 1000n, { type: 2, id: 5n })]);
  assert.equal(r.events[0].body.v0.data.type, 17, 'memo carried as to_muxed_id');
});

test('paying the issuer burns, needs no trustline and not even an existing issuer account', () => {
  const ghost = accountId('ghost-issuer');
  const EUR = credit('EURO', ghost);
  const state = world();
  state.put(trustLineEntry(alice, EUR, 300n, INT64_MAX, AUTHORIZED));
  const r = runOp(state, pay(muxed(ghost, 8n), EUR, 300n), alice, { memo: { type: 2, id: 5n } });
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(alice, EUR)!.balance, 0n);
  assert.deepEqual(r.events, [burnEvent(NETWORK_ID, EUR, accountAddress(alice), 300n)]);
  assert.equal(r.events[0].body.v0.data.type, 10, 'burn data is a plain i128');
});

test('issuer paying itself its own asset is a no-op transfer', () => {
  const state = world();
  const r = runOp(state, pay(muxed(issuer), USD, 10n), issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(r.changes.length, 0);
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, USD, accountAddress(issuer), accountAddress(issuer), 10n)]);
});

test('credit payment to self still needs room on the line (credit first, then debit)', () => {
  const state = world();
  assert.equal(innerCode(runOp(state, pay(muxed(alice), USD, 501n), alice).outcome), -8, '500 + 501 > 1000');
  assert.equal(innerCode(runOp(state, pay(muxed(alice), USD, 500n), alice).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 500n);
});

test('payment to a muxed destination puts its id in to_muxed_id (over the memo)', () => {
  const state = world();
  const r = runOp(state, pay(muxed(bob, 77n), NATIVE, 1n), alice, { sourceMuxed: muxed(alice, 1n), memo: { type: 2, id: 5n } });
  assert.equal(innerCode(r.outcome), 0);
  const ev = r.events[0];
  assert.deepEqual(ev.body.v0.topics.slice(1, 3), [{ type: 18, address: accountAddress(alice) }, { type: 18, address: accountAddress(bob) }]);
  assert.ok(ev.body.v0.data.type === 17 && ev.body.v0.data.map);
  assert.deepEqual(ev.body.v0.data.map![1].val, { type: 5, u64: 77n });
});

test('payment checkValid: non-positive amount or malformed asset code', () => {
  const state = world();
  for (const body of [pay(muxed(bob), NATIVE, 0n), pay(muxed(bob), NATIVE, -5n), pay(muxed(bob), credit('U$D', issuer), 1n),
    pay(muxed(bob), credit('ABCD', issuer), 1n) /* ok */]) {
    const r = runOp(state, body, alice);
    if (body.type === 1 && body.paymentOp.asset.type === 1 && body.paymentOp.asset.alphaNum4.assetCode[0] === 0x41) {
      assert.equal(r.stage, 'apply');
    } else {
      assert.equal(r.stage, 'checkValid');
      assert.equal(innerCode(r.outcome), -1);
    }
  }
  // zeros only as trailing padding; alphanum12 needs 5+ characters
  const bad4: Asset = { type: 1, alphaNum4: { assetCode: new Uint8Array([0x41, 0, 0x42, 0]), issuer } };
  const short12: Asset = { type: 2, alphaNum12: { assetCode: new Uint8Array([0x41, 0x42, 0x43, 0x44, 0, 0, 0, 0, 0, 0, 0, 0]), issuer } };
  assert.equal(innerCode(runOp(state, pay(muxed(bob), bad4, 1n), alice).outcome), -1);
  assert.equal(innerCode(runOp(state, pay(muxed(bob), short12, 1n), alice).outcome), -1);
});
