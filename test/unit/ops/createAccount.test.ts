import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, accountId, innerCode, muxed, runOp } from './support.ts';
import { accountAddress, muxedAccountAddress, transferEvent } from '../../../src/ledger/sacEvents.ts';
import { NETWORK_ID } from './support.ts';

const alice = accountId('alice');
const bob = accountId('bob');
const create = (destination = bob, startingBalance = 10n * XLM): xdr.OperationBodyWire =>
  ({ type: 0, createAccountOp: { destination, startingBalance } });

test('CreateAccount creates the destination with the starting balance and debits the source', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  const r = runOp(state, create(), alice, { ledger: { ledgerSeq: 77 } });
  assert.equal(r.outcome.success, true);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.account(alice)!.balance, 90n * XLM);
  const b = state.account(bob)!;
  assert.equal(b.balance, 10n * XLM);
  assert.equal(b.seqNum, 77n << 32n);
  assert.deepEqual([...b.thresholds], [1, 0, 0, 0]);
  assert.equal(b.numSubEntries, 0);
  assert.equal(b.signers.length, 0);
  assert.equal(b.flags, 0);
  assert.equal(r.changes.filter((c) => c.type === 0).length, 1, 'one created entry');
  // CAP-67: a native transfer from the source to the new account.
  assert.equal(r.events.length, 1);
  assert.deepEqual(r.events[0], transferEvent(NETWORK_ID, { type: 0 }, accountAddress(alice), accountAddress(bob), 10n * XLM, { type: 0 }));
});

test('CreateAccount fails with ALREADY_EXIST when the destination exists', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM), accountEntry(bob, 5n * XLM)]);
  const r = runOp(state, create(), alice);
  assert.equal(r.outcome.success, false);
  assert.equal(innerCode(r.outcome), -4);
  assert.equal(state.account(alice)!.balance, 100n * XLM);
});

test('CreateAccount needs two base reserves as starting balance (LOW_RESERVE)', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  const r = runOp(state, create(bob, 2n * BigInt(BASE_RESERVE) - 1n), alice);
  assert.equal(innerCode(r.outcome), -3);
  assert.equal(state.account(bob), undefined);
  const ok = runOp(state, create(bob, 2n * BigInt(BASE_RESERVE)), alice);
  assert.equal(innerCode(ok.outcome), 0);
});

test('CreateAccount is UNDERFUNDED when the source would drop below its own reserve', () => {
  // alice: 1 sub-entry → reserve 3 * 0.5 XLM = 1.5 XLM; she holds 11.5 XLM, so 10 XLM is spendable.
  const state = new MemoryState([accountEntry(alice, 115n * XLM / 10n, { numSubEntries: 1 })]);
  const r = runOp(state, create(bob, 10n * XLM + 1n), alice);
  assert.equal(innerCode(r.outcome), -2);
  const ok = runOp(state, create(bob, 10n * XLM), alice);
  assert.equal(innerCode(ok.outcome), 0);
  assert.equal(state.account(alice)!.balance, 15n * XLM / 10n);
});

test('CreateAccount respects selling liabilities on the source', () => {
  const state = new MemoryState([accountEntry(alice, 20n * XLM, {
    ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 9n * XLM }, ext: { v: 0 } } },
  })]);
  // available = 20 - 1 (reserve) - 9 (selling) = 10 XLM
  assert.equal(innerCode(runOp(state, create(bob, 10n * XLM + 1n), alice).outcome), -2);
  assert.equal(innerCode(runOp(state, create(bob, 10n * XLM), alice).outcome), 0);
});

test('CreateAccount checkValid: negative balance or self as destination is MALFORMED', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  const neg = runOp(state, create(bob, -1n), alice);
  assert.equal(neg.stage, 'checkValid');
  assert.equal(innerCode(neg.outcome), -1);
  const self = runOp(state, create(alice), alice);
  assert.equal(self.stage, 'checkValid');
  assert.equal(innerCode(self.outcome), -1);
});

test('CreateAccount event carries the memo as to_muxed_id and drops the muxed source id', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  const r = runOp(state, create(), alice, { sourceMuxed: muxed(alice, 9n), memo: { type: 2, id: 42n } });
  const ev = r.events[0];
  assert.deepEqual(ev.body.v0.topics[1], { type: 18, address: accountAddress(alice) });
  assert.deepEqual(ev.body.v0.data, {
    type: 17,
    map: [
      { key: { type: 15, sym: new xdr.XdrString('amount') }, val: { type: 10, i128: { hi: 0n, lo: 10n * XLM } } },
      { key: { type: 15, sym: new xdr.XdrString('to_muxed_id') }, val: { type: 5, u64: 42n } },
    ],
  });
  assert.deepEqual(muxedAccountAddress(muxed(alice)), accountAddress(alice));
});
