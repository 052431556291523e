// The replay's state: the metas' values, the network's changes written over them, and a log of what a
// transaction read that no meta shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '../../../src/xdr/xdr.ts';
import { InitialState } from '../../../src/replay/initialState.ts';
import { ScratchState } from '../../../src/replay/scratchState.ts';
import { accountKey, encodeLedgerKey, trustLineKey, type LedgerEntry, type LedgerKey } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { assetToTrustLineAsset } from '../../../src/ledger/assets.ts';
import { XLM, accountEntry, accountId, credit, trustLineEntry } from '../ops/support.ts';

const alice = accountId('alice');
const bob = accountId('bob');
const issuer = accountId('issuer');
const USD = credit('USD', issuer);
const usdLine = (id: xdr.PublicKeyWire) => trustLineKey(id, assetToTrustLineAsset(USD as Extract<xdr.AssetWire, { type: 1 }>));

function offer(seller: xdr.PublicKeyWire, offerId: bigint, n = 1): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 1,
    data: { type: 2, offer: { sellerId: seller, offerId, selling: USD, buying: { type: 0 }, amount: 10n, price: { n, d: 1 }, flags: 0, ext: { v: 0 } } },
    ext: { v: 0 },
  };
}

const get = (s: ScratchState, key: LedgerKey) => s.getEntry(encodeLedgerKey(key));
const seeded = (lists: xdr.LedgerEntryChangeWire[][]) => {
  const initial = new InitialState();
  initial.observe(100, lists);
  return initial;
};

test('reads give the seeded value, then the network\'s changes; a key first seen CREATED is absent and not a blind read', () => {
  const start = accountEntry(alice, 10n * XLM);
  const later = accountEntry(alice, 4n * XLM);
  const bobs = accountEntry(bob, XLM);
  const s = new ScratchState(seeded([[{ type: 3, state: start }, { type: 1, updated: later }], [{ type: 0, created: bobs }]]), 0n);
  s.beginTransaction();
  assert.deepEqual(get(s, accountKey(alice)), start);
  assert.equal(get(s, accountKey(bob)), undefined);
  assert.equal(s.endTransaction().unknownKeys.size, 0);
  s.apply([{ type: 3, state: start }, { type: 1, updated: later }, { type: 0, created: bobs }]);
  assert.deepEqual(get(s, accountKey(alice)), later);
  assert.deepEqual(get(s, accountKey(bob)), bobs);
  s.apply([{ type: 3, state: bobs }, { type: 2, removed: accountKey(bob) }]);
  assert.equal(get(s, accountKey(bob)), undefined);
});

test('reading a key no meta shows is logged, and so is every look at the order book', () => {
  const s = new ScratchState(seeded([[{ type: 3, state: accountEntry(alice, XLM) }]]), 0n);
  s.beginTransaction();
  assert.equal(get(s, usdLine(alice)), undefined);
  s.offers(USD, { type: 0 });
  s.offersBySeller(bob);
  const reads = s.endTransaction();
  assert.deepEqual([...reads.unknownKeys].length, 1);
  assert.equal(reads.bookQueries, 2);
  s.beginTransaction();
  assert.equal(s.endTransaction().unknownKeys.size, 0, 'each transaction starts a fresh log');
});

test('the order book holds the offers the metas show, in book order, and follows the network\'s changes', () => {
  const cheap = offer(bob, 7n, 1);
  const dear = offer(bob, 5n, 3);
  const s = new ScratchState(seeded([[{ type: 3, state: dear }]]), 7n);
  s.apply([{ type: 0, created: cheap }]);
  assert.deepEqual(s.offers(USD, { type: 0 }).map((e) => e.data.type === 2 && e.data.offer.offerId), [7n, 5n]);
  s.apply([{ type: 3, state: cheap }, { type: 2, removed: ledgerKeyOf(cheap.data) }]);
  assert.deepEqual(s.offers(USD, { type: 0 }).map((e) => e.data.type === 2 && e.data.offer.offerId), [5n]);
  assert.deepEqual(s.offersBySeller(bob).map((e) => e.data.type === 2 && e.data.offer.offerId), [5n]);
});

test('idPool follows the offers the network creates', () => {
  const s = new ScratchState(seeded([]), 10n);
  s.apply([{ type: 0, created: offer(bob, 11n) }]);
  s.apply([{ type: 0, created: offer(bob, 12n) }]);
  assert.equal(s.idPool, 12n);
  s.apply([{ type: 3, state: offer(bob, 3n) }, { type: 1, updated: offer(bob, 3n, 2) }]);
  assert.equal(s.idPool, 12n, 'updating an older offer hands out no id');
});

test('an account that owns entries in the state exists: read through a stand-in while it owns any', () => {
  const line = trustLineEntry(bob, USD, 5n, 100n, 1);
  const s = new ScratchState(seeded([[{ type: 3, state: line }]]), 0n);
  s.beginTransaction();
  const standIn = get(s, accountKey(bob));
  assert.equal(standIn?.data.type, 0);
  let reads = s.endTransaction();
  assert.equal(reads.placeholders.size, 1);
  assert.equal(reads.unknownKeys.size, 0);
  s.apply([{ type: 3, state: line }, { type: 2, removed: ledgerKeyOf(line.data) }]);
  s.beginTransaction();
  assert.equal(get(s, accountKey(bob)), undefined);
  reads = s.endTransaction();
  assert.equal(reads.unknownKeys.size, 1, 'owning nothing any more, the account is unknown again');
});

test('entries the result shows were found are stood in for, bare or full, for that transaction only', () => {
  const s = new ScratchState(seeded([]), 0n);
  s.beginTransaction([accountKey(alice), usdLine(alice)], { version: 'bare', baseReserve: 5_000_000 });
  const bare = get(s, usdLine(alice));
  assert.ok(bare?.data.type === 1 && bare.data.trustLine.balance === 0n && bare.data.trustLine.flags === 0);
  assert.ok(get(s, accountKey(alice))?.data.type === 0);
  assert.equal(s.endTransaction().placeholders.size, 2);
  s.beginTransaction([usdLine(alice)], { version: 'full', baseReserve: 5_000_000 });
  const full = get(s, usdLine(alice));
  assert.ok(full?.data.type === 1 && full.data.trustLine.balance > 0n && full.data.trustLine.flags === 1);
  s.endTransaction();
  s.beginTransaction();
  assert.equal(get(s, usdLine(alice)), undefined);
  assert.equal(s.endTransaction().unknownKeys.size, 1);
});

test("a stand-in agrees with what the state knows its account owns: sub-entries, offers' liabilities", () => {
  const line = trustLineEntry(bob, USD, 30n, 100n, 1);
  const selling = offer(bob, 9n, 2); // sells 10 USD for XLM at 2: buys 20 XLM
  const s = new ScratchState(seeded([[{ type: 3, state: line }, { type: 3, state: selling }]]), 9n);
  s.beginTransaction([usdLine(alice)], { version: 'bare', baseReserve: 5_000_000 });
  const account = get(s, accountKey(bob));
  assert.ok(account?.data.type === 0);
  assert.equal(account.data.account.numSubEntries, 2);
  assert.ok(account.data.account.ext.v === 1);
  assert.deepEqual(account.data.account.ext.v1.liabilities, { buying: 20n, selling: 0n });
  s.endTransaction();
});
