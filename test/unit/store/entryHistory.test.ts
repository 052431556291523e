// The store's entry history (src/store/sqlite/entryHistory.ts) on a real SQLite database: after a
// series of ledgers creating, updating, deleting and re-creating entries, entriesAt(keys, L) must
// give back, for every ledger L the history covers, exactly the state recorded when L was stored;
// trimming keeps that for the window; a checkpoint's state restarts it; a database from before the
// history starts it at its latest ledger.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createHash } from 'node:crypto';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { migrations } from '../../../src/store/sqlite/migrations.ts';
import type { IngestBatch, StoredEntry } from '../../../src/store/types.ts';
import { encodeLedgerEntry, toBase64, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { account, contractData, tmpDir, ttl } from '../archive/helpers.ts';
import { historyKeyHash, imageBucket, IMAGE_BUCKETS } from '../../../src/store/sqlite/entryHistory.ts';
import { allImages, packImages } from '../../../src/store/sqlite/entryHistoryBlobs.ts';
import { entryFor, keyOf, put, random, remove, type Write } from './entrySupport.ts';

/** A ledger that only writes entries (the rest of a batch plays no part in the history). */
function batch(seq: number, entryWrites: Write[]): IngestBatch {
  return {
    ledger: { sequence: seq, hash: new Uint8Array(32).fill(seq & 0xff), closeTime: 1_700_000_000 + seq, protocolVersion: 28, header: new Uint8Array(4), meta: new Uint8Array(4) },
    transactions: [], entryWrites, feeSamples: [],
  };
}


/** The state a test expects: key (base64) -> entry XDR and lastModified. */
type State = Map<string, { entry: string; lastModified: number }>;

const asState = (found: Map<string, StoredEntry>): State =>
  new Map([...found].map(([k, e]) => [k, { entry: toBase64(e.entry), lastModified: e.lastModified }]));

function applyWrites(state: State, writes: Write[]): void {
  for (const w of writes) {
    if (w.entry) state.set(toBase64(w.key), { entry: toBase64(w.entry), lastModified: w.lastModified });
    else state.delete(toBase64(w.key));
  }
}

/**
 * Ingests `ledgers` random ledgers after `first` (each creating, updating, deleting or re-creating
 * a few of `keyCount` keys) and returns the state after each, as the writes left it.
 */
function randomSeries(store: SqliteStore, first: number, ledgers: number, keyCount: number, window: number, seed = 7) {
  const next = random(seed);
  const keys = Array.from({ length: keyCount }, (_, i) => keyOf(entryFor(i, 0, 1)));
  const state: State = new Map();
  const states = new Map<number, State>();
  for (let seq = first; seq < first + ledgers; seq++) {
    const touched = new Set<number>();
    const writes: Write[] = [];
    const n = 1 + Math.floor(next() * 6);
    for (let i = 0; i < n; i++) {
      const k = Math.floor(next() * keyCount);
      if (touched.has(k)) continue;
      touched.add(k);
      const exists = state.has(toBase64(keys[k]));
      if (exists && next() < 0.3) writes.push(remove(keys[k], seq));
      else writes.push(put(entryFor(k, Math.floor(next() * 1000), seq)));
    }
    store.ingest(batch(seq, writes), window);
    applyWrites(state, writes);
    states.set(seq, new Map(state));
  }
  return { keys, states };
}

const tmpStorePath = () => join(tmpDir('lumen-history-'), 's.sqlite');

describe('entry history', () => {
  it('gives back every ledger\'s state: entries created, updated, deleted and re-created', () => {
    const store = new SqliteStore(tmpStorePath());
    const { keys, states } = randomSeries(store, 1, 200, 24, 1000);
    assert.equal(store.entryHistoryOldest(), 1);
    let deletions = 0, recreations = 0;
    for (const [seq, expected] of states) {
      assert.deepEqual(asState(store.entriesAt(keys, seq)), expected, `ledger ${seq}`);
      const before = states.get(seq - 1);
      if (before) {
        for (const k of before.keys()) if (!expected.has(k)) deletions++;
        for (const k of expected.keys()) if (!before.has(k) && [...states.entries()].some(([s, st]) => s < seq - 1 && st.has(k))) recreations++;
      }
    }
    assert.ok(deletions > 20 && recreations > 10, `the series deletes (${deletions}) and re-creates (${recreations}) entries`);
    // at the latest ledger, the history answers what the current state holds
    assert.deepEqual(asState(store.entriesAt(keys, 200)), asState(store.entries(keys)));
    store.close();
  });

  it('a key written twice in one ledger reads as it was before that ledger', () => {
    const store = new SqliteStore(tmpStorePath());
    const a1 = account(1, 10n, 1), a2 = account(1, 20n, 2), a3 = account(1, 30n, 2);
    store.ingest(batch(1, [put(a1)]), 100);
    store.ingest(batch(2, [put(a2), put(a3)]), 100);
    const key = keyOf(a1);
    assert.equal(store.entriesAt([key], 1).get(toBase64(key))?.lastModified, 1);
    assert.deepEqual(store.entriesAt([key], 1).get(toBase64(key))?.entry, encodeLedgerEntry(a1));
    assert.deepEqual(store.entriesAt([key], 2).get(toBase64(key))?.entry, encodeLedgerEntry(a3));
    store.close();
  });

  it('persistent data archived (TTL evicted) and restored, temporary data evicted: each ledger as it was', () => {
    const store = new SqliteStore(tmpStorePath());
    const persistent = contractData(1, 5, 2, 1), temporary = contractData(2, 6, 2, 0);
    const ttlOf = (e: LedgerEntry, liveUntil: number, seq: number) => ttl(createHash('sha256').update(keyOf(e)).digest(), liveUntil, seq);
    const pTtl = keyOf(ttlOf(persistent, 0, 1)), tTtl = keyOf(ttlOf(temporary, 0, 1));
    store.ingest(batch(1, []), 100);
    store.ingest(batch(2, [put(persistent), put(ttlOf(persistent, 4, 2)), put(temporary), put(ttlOf(temporary, 3, 2))]), 100);
    store.ingest(batch(3, []), 100);
    store.ingest(batch(4, [remove(keyOf(temporary), 4), remove(tTtl, 4)]), 100);        // the temporary entry evicted
    store.ingest(batch(5, [remove(pTtl, 5)]), 100);                                     // the persistent one archived: its TTL goes
    const restoredEntry = contractData(1, 5, 7, 1);
    store.ingest(batch(6, []), 100);
    store.ingest(batch(7, [put(restoredEntry), put(ttlOf(persistent, 20, 7))]), 100);  // restored
    const keys = [keyOf(persistent), pTtl, keyOf(temporary), tTtl];
    const at = (seq: number) => keys.map((k) => store.entriesAt(keys, seq).get(toBase64(k))?.lastModified ?? null);
    assert.deepEqual(at(1), [null, null, null, null]);
    assert.deepEqual(at(3), [2, 2, 2, 2]);
    assert.deepEqual(at(4), [2, 2, null, null]);
    assert.deepEqual(at(5), [2, null, null, null]);
    assert.deepEqual(at(6), [2, null, null, null]);
    assert.deepEqual(at(7), [7, 7, null, null]);
    const ttlAt = (seq: number) => store.entriesAt([pTtl], seq).get(toBase64(pTtl))?.entry;
    assert.deepEqual(ttlAt(4), encodeLedgerEntry(ttlOf(persistent, 4, 2)));
    assert.deepEqual(ttlAt(7), encodeLedgerEntry(ttlOf(persistent, 20, 7)));
    store.close();
  });

  it('keeps the history of the retention window only, still exact there', () => {
    const path = tmpStorePath();
    const store = new SqliteStore(path);
    const window = 40;
    const { keys, states } = randomSeries(store, 1, 150, 16, window, 11);
    assert.equal(store.entryHistoryOldest(), 150 - window + 1);
    for (let seq = 150 - window + 1; seq <= 150; seq++) {
      assert.deepEqual(asState(store.entriesAt(keys, seq)), states.get(seq), `ledger ${seq}`);
    }
    store.close();
    // reopened: the open segment's writers (ledgers 128..150, in memory until the segment is complete) are read back
    const reopened = new SqliteStore(path);
    for (let seq = 150 - window + 1; seq <= 150; seq++) {
      assert.deepEqual(asState(reopened.entriesAt(keys, seq)), states.get(seq), `ledger ${seq} after reopening`);
    }
    reopened.close();
    const db = new DatabaseSync(path, { readOnly: true });
    const { oldestLedger, rows } = db.prepare(`SELECT MIN(id / ${IMAGE_BUCKETS}) AS oldestLedger, COUNT(*) AS rows FROM entry_history_images`).get() as { oldestLedger: number; rows: number };
    db.close();
    assert.ok(oldestLedger >= 150 - window + 1, `images of ledgers before the window are trimmed (oldest: ledger ${oldestLedger})`);
    assert.ok(rows > 0 && rows <= window * 6, `at most one row per write (${rows})`);
  });

  it('a state bootstrapped from a checkpoint starts the history at the checkpoint', async () => {
    const store = new SqliteStore(tmpStorePath());
    const a = account(1, 100n, 8), b = account(2, 200n, 9);
    await store.replaceState(10, async (sink) => {
      for (const e of [a, b]) sink.put(keyOf(e), encodeLedgerEntry(e), e.lastModifiedLedgerSeq);
    });
    // as the ingester stores them: ledgers up to the checkpoint are history only, without writes
    for (let seq = 6; seq <= 10; seq++) store.ingest(batch(seq, []), 100);
    store.ingest(batch(11, [put(account(1, 150n, 11))]), 100);
    store.ingest(batch(12, [remove(keyOf(b), 12)]), 100);
    assert.equal(store.ledgerRange()?.oldest.sequence, 6);
    assert.equal(store.entryHistoryOldest(), 10);
    const keys = [keyOf(a), keyOf(b)];
    const lastModified = (seq: number) => keys.map((k) => store.entriesAt(keys, seq).get(toBase64(k))?.lastModified ?? null);
    assert.deepEqual(lastModified(10), [8, 9]);
    assert.deepEqual(lastModified(11), [11, 9]);
    assert.deepEqual(lastModified(12), [11, null]);
    store.close();
  });

  it('a database from before the history starts it at its latest ledger', () => {
    const path = tmpStorePath();
    const old = new SqliteStore(path);
    const a = account(1, 1n, 1);
    old.ingest(batch(1, [put(a)]), 100);
    old.ingest(batch(2, [put(account(1, 2n, 2))]), 100);
    old.close();
    // take the file back to schema version 2, as a build before migration 3 left it
    const db = new DatabaseSync(path);
    db.exec("DROP TABLE entry_history_images; DROP TABLE entry_history_writers; DROP TABLE ledger_meta_parts; ALTER TABLE ledgers DROP COLUMN meta_parts; DELETE FROM metadata WHERE key = 'entryHistoryFrom'; PRAGMA user_version = 2");
    db.close();

    const store = new SqliteStore(path);
    assert.equal(store.entryHistoryOldest(), 2);
    store.ingest(batch(3, [put(account(1, 3n, 3))]), 100);
    const key = keyOf(a);
    assert.equal(store.entriesAt([key], 2).get(toBase64(key))?.lastModified, 2);
    assert.equal(store.entriesAt([key], 3).get(toBase64(key))?.lastModified, 3);
    store.close();
  });

  it('a ledger that fails to store leaves no history behind', () => {
    const path = tmpStorePath();
    const store = new SqliteStore(path);
    const failing = (seq: number, writes: Write[]) => {
      const b = batch(seq, writes);
      b.feeSamples.push({ soroban: false, fee: Symbol('not a number') as never }); // fails after the entries were written
      assert.throws(() => store.ingest(b, 100));
    };
    failing(3, [put(account(1, 1n, 3))]);
    assert.equal(store.entryHistoryOldest(), undefined, 'a first ledger that failed did not start the history');
    store.ingest(batch(5, [put(account(1, 1n, 5))]), 100);
    assert.equal(store.entryHistoryOldest(), 5);
    failing(6, [put(account(1, 2n, 6)), put(account(2, 2n, 6))]);
    store.ingest(batch(6, [put(account(3, 3n, 6))]), 100);
    store.close();
    const db = new DatabaseSync(path, { readOnly: true });
    const rows = db.prepare('SELECT id, images FROM entry_history_images').all() as Array<{ id: number; images: Uint8Array }>;
    db.close();
    assert.deepEqual(rows.map((r) => [Math.floor(r.id / IMAGE_BUCKETS), allImages(r.images).map((i) => i.image.entry)]), [[6, [null]]],
      'only ledger 6\'s creation of account 3 is kept');
  });

  it('an image of another key with the same hash is not taken for the key', () => {
    const path = tmpStorePath();
    const store = new SqliteStore(path);
    const a = account(1, 1n, 1), b = account(2, 2n, 1);
    store.ingest(batch(1, [put(a), put(b)]), 100);
    store.ingest(batch(2, [put(account(3, 3n, 2))]), 100);
    store.ingest(batch(3, [put(account(1, 10n, 3))]), 100);
    store.close();
    // a version of b filed in ledger 2's images under a's hash (as a 47-bit collision would be)
    const db = new DatabaseSync(path);
    const hashOfA = historyKeyHash(keyOf(a));
    const id = 2 * IMAGE_BUCKETS + imageBucket(hashOfA);
    const held = db.prepare('SELECT images FROM entry_history_images WHERE id = ?').get(id) as { images: Uint8Array } | undefined;
    const images = [...(held ? allImages(held.images) : []), { hash: hashOfA, image: { key: keyOf(b), entry: encodeLedgerEntry(account(2, 99n, 1)), lastModified: 1 } }];
    db.prepare('INSERT INTO entry_history_images (id, images) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET images = excluded.images').run(id, packImages(images));
    db.close();
    const reopened = new SqliteStore(path);
    for (const l of [1, 2]) assert.deepEqual(reopened.entriesAt([keyOf(a)], l).get(toBase64(keyOf(a)))?.entry, encodeLedgerEntry(a), `ledger ${l}`);
    assert.deepEqual(reopened.entriesAt([keyOf(a)], 3).get(toBase64(keyOf(a)))?.entry, encodeLedgerEntry(account(1, 10n, 3)));
    reopened.close();
  });

  it('a database with the first layout of the history (keyed by key, migration 3) starts it again at its latest ledger', () => {
    const path = tmpStorePath();
    const a = account(1, 1n, 1);
    const old = new SqliteStore(path);
    old.ingest(batch(1, [put(a)]), 100);
    old.ingest(batch(2, [put(account(1, 2n, 2))]), 100);
    old.close();
    // back to schema version 3, with a row in step 3's layout
    const db = new DatabaseSync(path);
    db.exec("DROP TABLE ledger_meta_parts; ALTER TABLE ledgers DROP COLUMN meta_parts; DROP TABLE entry_history_images; DROP TABLE entry_history_writers; DELETE FROM metadata WHERE key = 'entryHistoryFrom'");
    db.exec(migrations[2]);
    db.exec("UPDATE metadata SET value = '1' WHERE key = 'entryHistoryFrom'"); // its history went back to ledger 1
    db.prepare('INSERT INTO ledger_entry_history (id, key, entry, last_modified) VALUES (?, ?, ?, ?)').run(16_777_216, keyOf(a), encodeLedgerEntry(a), 1);
    db.exec('PRAGMA user_version = 3');
    db.close();

    const store = new SqliteStore(path);
    assert.equal(store.entryHistoryOldest(), 2);
    store.ingest(batch(3, [put(account(1, 3n, 3))]), 100);
    const key = keyOf(a);
    assert.deepEqual([2, 3].map((l) => store.entriesAt([key], l).get(toBase64(key))?.lastModified), [2, 3]);
    store.close();
  });

  it('turned off, keeps nothing and drops what was kept; turned on again, starts without gaps at its next ledger', () => {
    const path = tmpStorePath();
    const a = (v: number, seq: number) => put(account(7, BigInt(v), seq));
    let store = new SqliteStore(path);
    store.ingest(batch(2, [a(1, 2)]), 1000);
    store.ingest(batch(3, [a(2, 3)]), 1000);
    assert.equal(store.entryHistoryOldest(), 2);
    store.close();

    store = new SqliteStore(path, { entryHistory: false });
    assert.equal(store.entryHistoryOldest(), undefined, 'no history served while off');
    store.ingest(batch(4, [a(3, 4)]), 1000);
    store.close();
    const db = new DatabaseSync(path);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM entry_history_images').get() as { n: number }).n, 0);
    db.close();

    store = new SqliteStore(path);
    store.ingest(batch(5, [a(4, 5)]), 1000);
    store.ingest(batch(6, [a(5, 6)]), 1000);
    assert.equal(store.entryHistoryOldest(), 5, 'the history restarts at the first ledger stored with it on');
    const key = keyOf(account(7, 0n, 0));
    const balanceAt = (l: number) => [...store.entriesAt([key], l).values()][0].lastModified;
    assert.equal(balanceAt(5), 5);
    assert.equal(balanceAt(6), 6);
    store.close();
  });
});
