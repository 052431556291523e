// Fast-forward (src/standalone/fastForward.ts, emptyLedgers.ts): empty ledgers made from patched
// templates are the XDR js-xdr would encode, chain by sha256(header XDR), and leave exactly the
// state closing the same ledgers one by one leaves: the same evicted keys in the same ledgers (at
// most maxEntriesToArchive entries a ledger), the same state-size averages and window entry, the
// same entries, whether every ledger is stored or most fall out of the retention window at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { xdr } from '../../../src/xdr/xdr.ts';
import type { Clock } from '../../../src/standalone/clock.ts';
import type { LedgerUpgradeStep } from '../../../src/ledger/closeLedger.ts';
import { encodeLedgerKey, sha256, toHex, type LedgerEntry, type LedgerHeader, type LedgerKey } from '../../../src/xdr/codec.ts';
import { ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { WINDOW_KEY } from '../../../src/ingest/stateSizeWindow.ts';
import { loadNative, nativeAvailable } from '../../../src/host/native.ts';
import { EmptyLedgerChain } from '../../../src/standalone/emptyLedgers.ts';
import { emptyTxSet } from '../../../src/ledger/txSet.ts';
import { headerHash, nextHeader } from '../../../src/ledger/header.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import { editArchivalSettings, standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';

class FixedClock implements Clock {
  nowSeconds(): bigint { return 1_800_000_000n; }
}

const contract = { type: 1 as const, contractId: new Uint8Array(32).fill(7) };
const dataEntry = (n: number, durability: 0 | 1): LedgerEntry => ({
  lastModifiedLedgerSeq: 2,
  data: { type: 6, contractData: { ext: { v: 0 }, contract, key: { type: 3, u32: n }, durability, val: { type: 13, bytes: new Uint8Array(20 + n) } } },
  ext: { v: 0 },
});
const ttlEntry = (key: LedgerKey, liveUntilLedgerSeq: number): LedgerEntry =>
  ({ lastModifiedLedgerSeq: 2, data: { type: 9, ttl: { keyHash: ttlKeyFor(key).ttl.keyHash, liveUntilLedgerSeq } }, ext: { v: 0 } });

/**
 * Ledger 2: archival settings small enough to show in a few thousand ledgers (3 entries evicted a
 * ledger at most, a state-size sample every 16 ledgers) and 60 contract entries, temporary and
 * persistent, whose TTLs end in clusters (10 at once, more than a ledger evicts) and one by one.
 */
const setup: LedgerUpgradeStep = {
  upgrade: { type: 3, newMaxTxSetSize: 10000 },
  apply(ltx) {
    editArchivalSettings(ltx, (settings) => {
      settings.maxEntriesToArchive = 3;
      settings.liveSorobanStateSizeWindowSamplePeriod = 16;
    });
    for (let n = 0; n < 60; n++) {
      const durability = n % 3 === 0 ? 0 : 1;
      const liveUntil = n < 20 ? 100 + 400 * Math.floor(n / 10) : 150 + n * 48;
      ltx.create(dataEntry(n, durability));
      ltx.create(ttlEntry({ type: 6, contractData: { contract, key: { type: 3, u32: n }, durability } }, liveUntil));
    }
  },
};

function network(retentionWindow: number) {
  const n = standaloneOnFreshStore({ clock: new FixedClock(), retentionWindow });
  const announced: IngestBatch[] = [];
  n.feed.listen((ledgers) => announced.push(...ledgers));
  return { ...n, announced };
}

const metaOf = (bytes: Uint8Array) => {
  const lcm = xdr.LedgerCloseMeta.schema.decode(bytes);
  if (lcm.v !== 2) throw new Error('not a V2 meta');
  return lcm.v2;
};
const hex = (keys: LedgerKey[]) => keys.map((k) => toHex(encodeLedgerKey(k)));
const entriesOf = (store: ReturnType<typeof network>['store']) =>
  Array.from(store.allEntries(), (e) => `${toHex(e.key)} ${toHex(e.entry)} ${e.lastModified}`);

const COUNT = 3000;

describe('fast-forward', { skip: !nativeAvailable() && 'the Soroban host addon is not built' }, () => {
  for (const retention of [COUNT + 100, 500]) {
    it(`leaves what closing ${COUNT} ledgers one by one leaves (retention window ${retention})`, async () => {
      const slow = network(retention);
      const fast = network(retention);
      await slow.net.closeNextLedger([setup]);
      await fast.net.closeNextLedger([setup]);
      assert.deepEqual(fast.store.latestLedger()!.hash, slow.store.latestLedger()!.hash, 'the same start');
      for (let i = 0; i < COUNT; i++) await slow.net.closeNextLedger();
      const announcedBefore = fast.announced.length;
      const result = await fast.net.exclusive(() => fast.net.fastForward(COUNT, 5n));
      assert.equal(result.latestLedger, 2 + COUNT);
      assert.equal(result.stored, Math.min(COUNT, retention));

      assert.deepEqual(fast.store.ledgerRange()!.oldest.sequence, slow.store.ledgerRange()!.oldest.sequence);
      assert.equal(fast.store.ledgerRange()!.latest.sequence, 2 + COUNT);
      let evictions = 0, maxPerLedger = 0;
      const first = fast.store.ledgerRange()!.oldest.sequence;
      for (let seq = Math.max(3, first); seq <= 2 + COUNT; seq++) {
        const s = metaOf(slow.store.ledger(seq)!.meta), f = metaOf(fast.store.ledger(seq)!.meta);
        assert.deepEqual(hex(f.evictedKeys), hex(s.evictedKeys), `evicted keys of ledger ${seq}`);
        assert.equal(f.totalByteSizeOfLiveSorobanState, s.totalByteSizeOfLiveSorobanState, `state size of ledger ${seq}`);
        evictions += f.evictedKeys.length;
        maxPerLedger = Math.max(maxPerLedger, f.evictedKeys.length);
        const window = (store: typeof slow.store) => toHex(store.entriesAt([WINDOW_KEY], seq).values().next().value!.entry);
        assert.equal(window(fast.store), window(slow.store), `state-size window after ledger ${seq}`);
      }
      if (retention > COUNT) assert.equal(evictions, 60 * 2, 'every entry evicted, two keys each');
      if (retention > COUNT) assert.equal(maxPerLedger, 3 * 2, 'at most maxEntriesToArchive entries a ledger');
      else assert.ok(maxPerLedger > 0 && maxPerLedger <= 3 * 2, 'evictions among the stored ledgers too');
      assert.deepEqual(entriesOf(fast.store), entriesOf(slow.store), 'the same entries at the end');
      assert.equal(fast.announced.length - announcedBefore, result.stored, 'every stored ledger announced');

      // the chain: each header hashes to its hash, follows the previous one, commits to its transaction set
      const from = Math.max(first, 2);
      let prevHash = fast.store.ledger(from)!.hash;
      for (const row of fast.store.ledgers(from + 1, COUNT)) {
        const m = metaOf(row.meta);
        const { header, hash } = m.ledgerHeader;
        assert.deepEqual(sha256(xdr.LedgerHeader.schema.encode(header)), new Uint8Array(hash));
        assert.deepEqual(new Uint8Array(header.previousLedgerHash), new Uint8Array(prevHash));
        assert.deepEqual(new Uint8Array(header.scpValue.txSetHash), sha256(xdr.GeneralizedTransactionSet.schema.encode(m.txSet)));
        assert.equal(header.scpValue.ext.v, 0, 'an unsigned value');
        assert.equal(header.scpValue.closeTime, 1_800_000_000n + BigInt(row.sequence - 2) * 5n, 'close times step by 5 s');
        assert.deepEqual(Buffer.from(xdr.LedgerCloseMeta.schema.encode({ v: 2, v2: m })), Buffer.from(row.meta), 'the meta is canonical XDR');
        prevHash = row.hash;
      }
      // what was announced is what ingestion makes of each meta
      for (const batch of fast.announced.slice(announcedBefore)) {
        const again = ledgerToBatch({ bytes: batch.ledger.meta }, fast.net.networkId);
        const withoutWindow = batch.entryWrites.filter((w) => toHex(w.key) !== toHex(WINDOW_KEY));
        assert.deepEqual(withoutWindow, again.entryWrites);
        const row = (l: IngestBatch['ledger']) => ({ ...l, hash: toHex(l.hash), header: toHex(l.header), meta: toHex(l.meta) });
        assert.deepEqual(row(batch.ledger), row(again.ledger));
        assert.equal(batch.liveSorobanStateSize, again.liveSorobanStateSize);
      }
      // the skip list holds the bucket-list hash of the last ledger at a multiple of 50
      const latest = metaOf(fast.store.latestLedger()!.meta).ledgerHeader.header;
      const fifty = metaOf(fast.store.ledger(Math.floor(latest.ledgerSeq / 50) * 50)!.meta).ledgerHeader.header;
      assert.equal(toHex(latest.skipList[0]), toHex(fifty.bucketListHash));

      // the network goes on closing ordinary ledgers after it
      await fast.net.closeNextLedger();
      assert.equal(fast.store.latestLedger()!.sequence, 3 + COUNT);
      assert.deepEqual(new Uint8Array(metaOf(fast.store.latestLedger()!.meta).ledgerHeader.header.previousLedgerHash), new Uint8Array(fast.store.ledger(2 + COUNT)!.hash));
      assert.ok(fast.store.latestLedger()!.closeTime >= fast.store.ledger(2 + COUNT)!.closeTime, 'the clock ran at least at the last close time');
      await slow.net.stop();
      await fast.net.stop();
    });
  }
});

describe('fast-forward while the network publishes itself', () => {
  it('stores and announces every ledger (a publisher must get each), then trims to the window', async () => {
    const n = standaloneOnFreshStore({ clock: new FixedClock(), retentionWindow: 100, config: { publishDatastore: '/nowhere' } });
    const announced: number[] = [];
    n.feed.listen((ledgers) => announced.push(...ledgers.map((l) => l.ledger.sequence)));
    const result = await n.net.exclusive(() => n.net.fastForward(500, 1n));
    assert.equal(result.stored, 500);
    assert.deepEqual(announced, Array.from({ length: 500 }, (_, i) => 2 + i));
    assert.deepEqual([n.store.ledgerRange()!.oldest.sequence, n.store.ledgerRange()!.latest.sequence], [402, 501]);
    await n.net.stop();
  });
});

describe('the empty-ledger chain', () => {
  const start = (seq: number): { header: LedgerHeader; hash: Uint8Array } => ({
    hash: sha256(Buffer.from(`ledger ${seq}`)),
    header: {
      ledgerVersion: 28, previousLedgerHash: sha256(Buffer.from('before')),
      scpValue: { txSetHash: new Uint8Array(32), closeTime: 1_700_000_000n, upgrades: [], ext: { v: 0 } },
      txSetResultHash: new Uint8Array(32), bucketListHash: sha256(Buffer.from('state')), ledgerSeq: seq,
      totalCoins: 1_000_000_000_000_000_000n, feePool: 123n, inflationSeq: 0, idPool: 77n, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100,
      skipList: [1, 2, 3, 4].map((i) => sha256(Buffer.from(`skip ${i}`))), ext: { v: 0 },
    },
  });

  it('makes the headers js-xdr encodes, chained by sha256 of their XDR, with core\'s skip list', () => {
    // from 554,940: crosses a skip-list update of every level (555,050 moves all four)
    const prev = start(554_940);
    const chain = new EmptyLedgerChain(prev);
    let prevEntry = { hash: prev.hash, header: prev.header };
    for (let i = 1; i <= 120; i++) {
      chain.next(prev.header.scpValue.closeTime + BigInt(i) * 3n);
      const entry = xdr.LedgerHeaderHistoryEntry.schema.decode(chain.headerEntryXdr());
      const expected = nextHeader(prevEntry, {
        scpValue: { txSetHash: sha256(xdr.GeneralizedTransactionSet.schema.encode(emptyTxSet(prevEntry.hash))), closeTime: prev.header.scpValue.closeTime + BigInt(i) * 3n, upgrades: [], ext: { v: 0 } },
        txSetResultHash: sha256(xdr.TransactionResultSet.schema.encode({ results: [] })),
        bucketListHash: sha256(prevEntry.header.bucketListHash, sha256(xdr.GeneralizedTransactionSet.schema.encode(emptyTxSet(prevEntry.hash))), sha256(xdr.TransactionResultSet.schema.encode({ results: [] }))),
        feePool: prev.header.feePool, idPool: prev.header.idPool,
      });
      assert.deepEqual(Buffer.from(xdr.LedgerHeader.schema.encode(entry.header)), Buffer.from(xdr.LedgerHeader.schema.encode(expected)), `ledger ${entry.header.ledgerSeq}`);
      assert.deepEqual(new Uint8Array(entry.hash), headerHash(expected));
      prevEntry = { hash: entry.hash, header: entry.header };
    }
  });

  it('skip() (the addon\'s loop when built) makes the same chain as next() one by one', { skip: !nativeAvailable() || !loadNative().advanceEmptyLedgers ? 'the addon has no advanceEmptyLedgers' : false }, () => {
    const prev = start(554_000);
    const one = new EmptyLedgerChain(prev), bulk = new EmptyLedgerChain(prev);
    for (let i = 1; i <= 1_500; i++) one.next(prev.header.scpValue.closeTime + BigInt(i) * 4n);
    bulk.skip(700, 4n);
    bulk.skip(800, 4n);
    assert.equal(bulk.latestSeq, one.latestSeq);
    assert.equal(bulk.latestCloseTime, one.latestCloseTime);
    assert.deepEqual(bulk.latestHash, one.latestHash);
    assert.deepEqual(bulk.headerEntryXdr(), one.headerEntryXdr());
  });
});
