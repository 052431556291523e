// Seeding the replay's state from what the metas show: the first sight of each key decides its value
// before the first replayed ledger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '../../../src/xdr/xdr.ts';
import { InitialState, entryIdOf, entryIdOfKey, keyXdrOf } from '../../../src/replay/initialState.ts';
import { accountKey, decodeLedgerEntry, encodeLedgerKey, trustLineKey, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { keyId, ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { XLM, accountEntry, accountId, credit, trustLineEntry } from '../ops/support.ts';

const alice = accountId('alice');
const bob = accountId('bob');
const carol = accountId('carol');
const USD = credit('USD', carol);

const state = (e: LedgerEntry): xdr.LedgerEntryChangeWire => ({ type: 3, state: e });
const updated = (e: LedgerEntry): xdr.LedgerEntryChangeWire => ({ type: 1, updated: e });
const created = (e: LedgerEntry): xdr.LedgerEntryChangeWire => ({ type: 0, created: e });
const removed = (e: LedgerEntry): xdr.LedgerEntryChangeWire => ({ type: 2, removed: ledgerKeyOf(e.data) });

const valueAtStart = (initial: InitialState, e: LedgerEntry): LedgerEntry | null | 'unknown' => {
  const id = entryIdOfKey(ledgerKeyOf(e.data));
  if (!initial.shows(id)) return 'unknown';
  const found = [...initial.entries()].map(decodeLedgerEntry).find((x) => entryIdOfKey(ledgerKeyOf(x.data)) === id);
  return found ?? null;
};

test('the first STATE of a key is its value at the start, whatever changes follow', () => {
  const before = accountEntry(alice, 10n * XLM);
  const after = accountEntry(alice, 9n * XLM);
  const initial = new InitialState();
  initial.observe(100, [[state(before), updated(after)], [state(after), updated(accountEntry(alice, 8n * XLM))]]);
  assert.deepEqual(valueAtStart(initial, before), before);
});

test('a key first seen CREATED did not exist at the start, even if removed and shown again later', () => {
  const line = trustLineEntry(bob, USD, 0n, 100n, 1);
  const initial = new InitialState();
  initial.observe(100, [[created(line)]]);
  initial.observe(101, [[state(line), removed(line)]]);
  assert.equal(valueAtStart(initial, line), null);
});

test('first sight wins across ledgers, whatever order the ledgers are observed in', () => {
  const early = accountEntry(bob, 5n * XLM);
  const late = accountEntry(bob, 7n * XLM);
  const forward = new InitialState();
  forward.observe(100, [[state(early), updated(late)]]);
  forward.observe(105, [[state(late)]]);
  const backward = new InitialState();
  backward.observe(105, [[state(late)]]);
  backward.observe(100, [[state(early), updated(late)]]);
  assert.deepEqual(valueAtStart(forward, early), early);
  assert.deepEqual(valueAtStart(backward, early), early);

  // an entry first shown in a later ledger as STATE was unchanged until then: its value held at the start
  const quiet = accountEntry(carol, 3n * XLM);
  forward.observe(107, [[state(quiet), removed(quiet)]]);
  assert.deepEqual(valueAtStart(forward, quiet), quiet);
});

test('within a ledger the first list wins (fees come before the transactions that spend them)', () => {
  const beforeFee = accountEntry(alice, 10n * XLM);
  const afterFee = accountEntry(alice, 10n * XLM - 100n);
  const initial = new InitialState();
  initial.observe(100, [[state(beforeFee), updated(afterFee)], [state(afterFee), updated(accountEntry(alice, XLM))]]);
  assert.deepEqual(valueAtStart(initial, beforeFee), beforeFee);
});

test('keys no meta shows stay unknown', () => {
  const initial = new InitialState();
  initial.observe(100, [[state(accountEntry(alice, XLM))]]);
  assert.equal(initial.shows(entryIdOfKey(accountKey(bob))), false);
  assert.equal(initial.size, 1);
});

test('entry ids are the same from keys and from their XDR', () => {
  for (const key of [accountKey(alice), { type: 2 as const, offer: { sellerId: bob, offerId: 7n } }, trustLineKey(bob, { type: 1, alphaNum4: { assetCode: new Uint8Array([85, 83, 68, 0]), issuer: carol } })]) {
    const bytes = encodeLedgerKey(key);
    assert.deepEqual(Buffer.from(keyXdrOf(key)), Buffer.from(bytes));
    assert.equal(entryIdOf(bytes), entryIdOfKey(key));
    assert.equal(entryIdOfKey(key), keyId(key));
  }
});
