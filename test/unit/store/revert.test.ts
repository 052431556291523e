// The store's revertTo(ledger) on a real SQLite database: after ledgers that create, update, delete
// and re-create entries, with transactions, fee samples and events (across event-index segments),
// reverting to any earlier ledger must make every reader answer exactly what it answered when that
// ledger was the latest; the next ingest chains on and answers as a store that never held the
// reverted ledgers; refusals change nothing; a failure part way leaves everything as it was.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { SEGMENT_LEDGERS } from '../../../src/store/eventIndex/queryPlan.ts';
import type { EventQuery, IngestBatch, StoredEntry, StoredEvent, StoredTransaction } from '../../../src/store/types.ts';
import type { EventFilterSpec } from '../../../src/events/types.ts';
import { encodeLedgerEntry, toBase64 } from '../../../src/xdr/codec.ts';
import { account, tmpDir } from '../archive/helpers.ts';
import { entryFor, keyOf, put, random, remove, type Write } from './entrySupport.ts';
import { contractEventXdr, sym, syntheticBatch, u32, type SyntheticTx } from '../events/support.ts';
import { HISTORY_SEGMENT_LEDGERS, IMAGE_BUCKETS } from '../../../src/store/sqlite/entryHistory.ts';


const KEY_COUNT = 20;
const KEYS = Array.from({ length: KEY_COUNT }, (_, i) => keyOf(entryFor(i, 0, 1)));
const CONTRACTS = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));

/**
 * Generates ledgers: each creates, updates, deletes or re-creates a few keys (as the series'
 * current state allows), and has 0-3 transactions with contract events, system events and fee
 * samples. `variant` changes the content (and the hashes) of the same ledger sequences.
 */
class Series {
  private readonly next: () => number;
  private readonly live = new Set<number>();
  private readonly variant: number;
  constructor(seed: number, variant = 0) { this.next = random(seed); this.variant = variant; }

  /** Follows `store`'s current entries (after a revert the series goes on from there). */
  syncWith(store: SqliteStore): void {
    this.live.clear();
    KEYS.forEach((k, i) => { if (store.entry(k)) this.live.add(i); });
  }

  batch(seq: number): IngestBatch {
    const next = this.next;
    const txCount = Math.floor(next() * 4);
    const txs: SyntheticTx[] = [];
    for (let t = 0; t < txCount; t++) {
      const c = CONTRACTS[Math.floor(next() * CONTRACTS.length)];
      const ops: Uint8Array[][] = [[contractEventXdr(c, [sym('transfer'), u32(seq), u32(this.variant)], u32(t))]];
      if (next() < 0.5) ops.push([contractEventXdr(null, [sym('core'), u32(seq % 3)], u32(this.variant), 0)]);
      txs.push({ ops, fee: next() < 0.5 ? contractEventXdr(c, [sym('fee')], u32(seq)) : undefined, successful: next() < 0.8 });
    }
    const b = syntheticBatch(seq, txs, 1_700_000_000 + seq * 5 + this.variant);
    if (this.variant) {
      // other hashes for another ledger of the same sequence
      const h = (x: Uint8Array) => createHash('sha256').update(x).update(String(this.variant)).digest();
      b.ledger.hash = h(b.ledger.hash);
      for (const tx of b.transactions) tx.hash = h(tx.hash);
    }
    b.feeSamples = b.transactions.map((_, i) => ({ soroban: i % 2 === 0, fee: BigInt(100 + seq * 10 + i + this.variant) }));
    const touched = new Set<number>();
    const writes: Write[] = [];
    const n = Math.floor(next() * 5);
    for (let i = 0; i < n; i++) {
      const k = Math.floor(next() * KEY_COUNT);
      if (touched.has(k)) continue;
      touched.add(k);
      if (this.live.has(k) && next() < 0.35) {
        writes.push(remove(KEYS[k], seq));
        this.live.delete(k);
      } else {
        writes.push(put(entryFor(k, Math.floor(next() * 1000) + this.variant, seq)));
        this.live.add(k);
      }
    }
    b.entryWrites = writes;
    return b;
  }
}

// ---------------------------------------------------------------------------------------------
// Every reader's answers, as comparable values

const b64 = (u: Uint8Array | undefined) => (u ? toBase64(u) : undefined);
const entryView = (e: StoredEntry | undefined) => (e ? { key: b64(e.key), entry: b64(e.entry), lastModified: e.lastModified } : undefined);
const txView = (t: StoredTransaction | undefined) => (t ? {
  id: t.id.toString(), ledger: t.ledgerSequence, order: t.applicationOrder, hash: b64(t.hash), successful: t.successful,
  closeTime: t.closeTime, events: t.events,
} : undefined);
const eventView = (e: StoredEvent) => `${e.ledger}/${e.tx}/${e.op}/${e.index} ${b64(e.event)} ${b64(e.txHash)} ${e.successful} ${e.closeTime}`;

const FAR = 1_000_000;
function eventQuery(filters: EventFilterSpec[], descending = false, limit = 100_000, from = 1): EventQuery {
  return { start: { ledger: from, tx: 0, op: 0, event: 0 }, end: { ledger: FAR, tx: 0, op: 0, event: 0 }, descending, limit, filters };
}
const FILTERS: Array<[string, EventFilterSpec[]]> = [
  ['all', []],
  ...CONTRACTS.map((c, i): [string, EventFilterSpec[]] => [`contract ${i}`, [{ types: [], contractIds: [c], topics: [] }]]),
  ['system', [{ types: [0], contractIds: [], topics: [] }]],
  ['contract 0 or system', [{ types: [], contractIds: [CONTRACTS[0]], topics: [] }, { types: [0], contractIds: [], topics: [] }]],
];

/** What every reader answers now; `hashes` are transaction hashes ever stored (present or not). */
function readers(store: SqliteStore, hashes: Iterable<string>) {
  const latest = store.latestLedger();
  const range = store.ledgerRange();
  const out: Record<string, unknown> = {
    latest: latest && { sequence: latest.sequence, hash: b64(latest.hash), closeTime: latest.closeTime },
    range,
    entryHistoryOldest: store.entryHistoryOldest(),
    ledgers: store.ledgers(0, 100_000).map((l) => `${l.sequence} ${b64(l.hash)} ${l.closeTime}`),
    ledgerByNumber: Array.from({ length: (latest?.sequence ?? 0) + 3 }, (_, s) => b64(store.ledger(s)?.hash)),
    entry: KEYS.map((k) => entryView(store.entry(k))),
    entries: [...store.entries(KEYS)].map(([k, e]) => [k, entryView(e)]),
    allEntries: [...store.allEntries()].map(entryView),
    entriesOfTypes: [...store.entriesOfTypes(6, 6)].map(entryView),
    transactionsFrom: store.transactionsFrom(0n, 100_000).map(txView),
    transactionsFromMiddle: store.transactionsFrom(BigInt(Math.floor((latest?.sequence ?? 0) / 2)) << 32n, 5).map(txView),
    transactionByHash: [...hashes].sort().map((h) => [h, txView(store.transactionByHash(Buffer.from(h, 'hex')))]),
    fees: [store.feeSamples(0, true), store.feeSamples(0, false)].map((l) => l.map(String)),
  };
  // every event; the filtered queries (through the index) over the last 40 ledgers, to keep the test quick
  out.events = store.events(eventQuery([])).map(eventView);
  const recent = Math.max(1, (latest?.sequence ?? 0) - 40);
  for (const [name, filters] of FILTERS) {
    out[`events ${name}`] = store.events(eventQuery(filters, false, 100_000, recent)).map(eventView);
    out[`events ${name} desc`] = store.events(eventQuery(filters, true, 7)).map(eventView);
  }
  // entriesAt for the oldest and newest ledgers the history covers, and every 16th between
  const oldest = store.entryHistoryOldest();
  if (oldest !== undefined && latest) {
    for (let l = oldest; l <= latest.sequence; l++) {
      if (l - oldest > 1 && latest.sequence - l > 2 && l % 16 !== 0) continue;
      out[`entriesAt ${l}`] = [...store.entriesAt(KEYS, l)].map(([k, e]) => [k, entryView(e)]);
    }
  }
  return out;
}

const storePath = () => join(tmpDir('lumen-revert-'), 's.sqlite');

/** Ingests ledgers 1..count of a series; returns it, its batches and every transaction hash. */
function build(store: SqliteStore, count: number, seed: number, window = 100_000) {
  const series = new Series(seed);
  const batches: IngestBatch[] = [];
  const hashes = new Set<string>();
  for (let seq = 1; seq <= count; seq++) {
    const b = series.batch(seq);
    batches.push(b);
    for (const t of b.transactions) hashes.add(Buffer.from(t.hash).toString('hex'));
    store.ingest(b, window);
  }
  return { series, batches, hashes };
}

/** Builds the series, recording every reader's answers after each ledger. */
function buildRecorded(store: SqliteStore, count: number, seed: number) {
  const series = new Series(seed);
  const batches: IngestBatch[] = [];
  const hashes = new Set<string>();
  for (let seq = 1; seq <= count; seq++) {
    const b = series.batch(seq);
    batches.push(b);
    for (const t of b.transactions) hashes.add(Buffer.from(t.hash).toString('hex'));
  }
  const answers = new Map<number, ReturnType<typeof readers>>();
  for (const b of batches) {
    store.ingest(b, 100_000);
    answers.set(b.ledger.sequence, readers(store, hashes));
  }
  return { series, batches, hashes, answers };
}

const LEDGERS = SEGMENT_LEDGERS * 2 + 20;  // three event-index segments, two of them written out
const SEED = 5;

describe('store revertTo', () => {
  it('the series exercises what revert must undo', () => {
    const store = new SqliteStore(storePath());
    const { batches } = build(store, LEDGERS, SEED);
    let deletes = 0, recreates = 0, updates = 0;
    const seen = new Set<string>(), live = new Set<string>();
    for (const b of batches) {
      for (const w of b.entryWrites) {
        const k = toBase64(w.key);
        if (!w.entry) { deletes++; live.delete(k); } else {
          if (live.has(k)) updates++; else if (seen.has(k)) recreates++;
          live.add(k); seen.add(k);
        }
      }
    }
    assert.ok(deletes > 30 && recreates > 20 && updates > 50, `deletes ${deletes}, re-creations ${recreates}, updates ${updates}`);
    assert.ok(store.transactionsFrom(0n, 10_000).length > 200);
    assert.ok(store.events(eventQuery([])).length > 400);
    store.close();
  });

  it('stepping back one ledger at a time, every reader answers as it did at that ledger', () => {
    const store = new SqliteStore(storePath());
    const { hashes, answers } = buildRecorded(store, LEDGERS, SEED);
    for (let target = LEDGERS - 1; target >= 1; target--) {
      store.revertTo(target);
      assert.deepEqual(readers(store, hashes), answers.get(target), `after reverting to ${target}`);
    }
    store.close();
  });

  it('reverting from the latest to any earlier ledger (across index segments), then ingesting on top', () => {
    const reference = new SqliteStore(storePath());
    const { batches, hashes, answers } = buildRecorded(reference, LEDGERS, SEED);
    reference.close();
    const targets = [1, 2, 60, SEGMENT_LEDGERS - 2, SEGMENT_LEDGERS - 1, SEGMENT_LEDGERS, SEGMENT_LEDGERS + 1, 200,
      2 * SEGMENT_LEDGERS - 1, 2 * SEGMENT_LEDGERS, LEDGERS - 1, LEDGERS];
    for (const target of targets) {
      const store = new SqliteStore(storePath());
      for (const b of batches) store.ingest(b, 100_000);
      const putBack = store.revertTo(target);
      assert.deepEqual(readers(store, hashes), answers.get(target), `after reverting ${LEDGERS} -> ${target}`);
      // it hands back every key written after the target, as it now is (null: absent)
      const written = new Set(batches.slice(target).flatMap((b) => b.entryWrites.map((w) => toBase64(w.key))));
      assert.deepEqual(new Set(putBack.map((e) => toBase64(e.key))), written);
      for (const e of putBack) assert.deepEqual(e.entry, store.entry(e.key)?.entry ?? null);

      // a different history from target + 1 on: the reverted store answers as a store that only ever held it
      const fresh = new SqliteStore(storePath());
      for (const b of batches.slice(0, target)) fresh.ingest(b, 100_000);
      const other = new Series(SEED + target, 1);
      other.syncWith(store);
      const allHashes = new Set(hashes);
      for (let seq = target + 1; seq <= target + 15; seq++) {
        const b = other.batch(seq);
        for (const t of b.transactions) allHashes.add(Buffer.from(t.hash).toString('hex'));
        store.ingest(b, 100_000);
        fresh.ingest(b, 100_000);
      }
      assert.deepEqual(readers(store, allHashes), readers(fresh, allHashes), `ingesting after reverting to ${target}`);
      store.close();
      fresh.close();
    }
  });

  it('reverting to the latest ledger changes nothing', () => {
    const store = new SqliteStore(storePath());
    const { hashes } = build(store, 30, SEED);
    const before = readers(store, hashes);
    store.revertTo(30);
    assert.deepEqual(readers(store, hashes), before);
    store.close();
  });

  it('the database holds nothing of the reverted ledgers: no event index rows, no history rows after the target', () => {
    const path = storePath();
    const store = new SqliteStore(path);
    build(store, LEDGERS, SEED);
    store.revertTo(SEGMENT_LEDGERS + 5);
    store.close();
    const db = new DatabaseSync(path, { readOnly: true });
    const q = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.equal(q('SELECT max(sequence) AS n FROM ledgers'), SEGMENT_LEDGERS + 5);
    assert.equal(q(`SELECT count(*) AS n FROM event_terms WHERE segment >= 1`), 0);
    assert.equal(q('SELECT count(*) AS n FROM event_terms WHERE segment = 0') > 0, true);
    assert.equal(q(`SELECT count(*) AS n FROM events WHERE key >= ${(SEGMENT_LEDGERS + 6) * 2 ** 21}`), 0);
    assert.equal(q(`SELECT count(*) AS n FROM entry_history_images WHERE id >= ${(SEGMENT_LEDGERS + 6) * IMAGE_BUCKETS}`), 0);
    assert.equal(q('SELECT count(*) AS n FROM entry_history_images') > 0, true);
    assert.equal(q(`SELECT count(*) AS n FROM entry_history_writers WHERE segment >= ${HISTORY_SEGMENT_LEDGERS === SEGMENT_LEDGERS ? 1 : 0}`), 0);
    assert.equal(q(`SELECT count(*) AS n FROM transactions WHERE ledger_sequence > ${SEGMENT_LEDGERS + 5}`), 0);
    assert.equal(q(`SELECT count(*) AS n FROM transaction_hashes WHERE transaction_id >= ${(SEGMENT_LEDGERS + 6) * 2 ** 32}`), 0);
    assert.equal(q(`SELECT count(*) AS n FROM fee_samples WHERE ledger_sequence > ${SEGMENT_LEDGERS + 5}`), 0);
    db.close();
  });

  it('a reopened store after a revert answers as the reverted one did', () => {
    const path = storePath();
    const store = new SqliteStore(path);
    const { hashes } = build(store, LEDGERS, SEED);
    store.revertTo(SEGMENT_LEDGERS + 9);
    const after = readers(store, hashes);
    store.close();
    const reopened = new SqliteStore(path);
    assert.deepEqual(readers(reopened, hashes), after);
    reopened.close();
  });

  it('refuses a ledger after the latest, before the history, without a history, or on an empty store, changing nothing', () => {
    const store = new SqliteStore(storePath());
    const window = 40;
    const series = new Series(SEED);
    const hashes = new Set<string>();
    for (let seq = 1; seq <= 100; seq++) {
      const b = series.batch(seq);
      for (const t of b.transactions) hashes.add(Buffer.from(t.hash).toString('hex'));
      store.ingest(b, window);
    }
    assert.equal(store.entryHistoryOldest(), 61);
    const before = readers(store, hashes);
    assert.throws(() => store.revertTo(101), /after the latest stored ledger 100/);
    assert.throws(() => store.revertTo(60), /oldest ledger whose state can be rebuilt is 61/);
    assert.throws(() => store.revertTo(0), /oldest ledger whose state can be rebuilt is 61/);
    assert.throws(() => store.revertTo(Number.NaN), /not a ledger sequence/);
    assert.throws(() => store.revertTo(70.5), /not a ledger sequence/);
    assert.deepEqual(readers(store, hashes), before);
    store.revertTo(61);
    assert.equal(store.latestLedger()?.sequence, 61);
    store.close();

    const off = new SqliteStore(storePath(), { entryHistory: false });
    for (let seq = 1; seq <= 5; seq++) off.ingest(new Series(SEED).batch(seq), 100);
    assert.throws(() => off.revertTo(3), /entry history is off/);
    assert.equal(off.latestLedger()?.sequence, 5);
    off.close();

    const empty = new SqliteStore(storePath());
    assert.throws(() => empty.revertTo(1), /holds no ledger/);
    empty.close();
  });

  it('a state bootstrapped from a checkpoint can be reverted to the checkpoint, not before it', async () => {
    const store = new SqliteStore(storePath());
    const a = account(1, 100n, 8), b = account(2, 200n, 9);
    await store.replaceState(10, async (sink) => {
      for (const e of [a, b]) sink.put(keyOf(e), encodeLedgerEntry(e), e.lastModifiedLedgerSeq);
    });
    const plain = (seq: number, entryWrites: Write[]): IngestBatch => ({ ...syntheticBatch(seq, []), entryWrites });
    for (let seq = 6; seq <= 10; seq++) store.ingest(plain(seq, []), 100);
    store.ingest(plain(11, [put(account(1, 150n, 11)), put(account(3, 5n, 11))]), 100);
    store.ingest(plain(12, [remove(keyOf(b), 12)]), 100);
    assert.throws(() => store.revertTo(9), /oldest ledger whose state can be rebuilt is 10/);
    store.revertTo(10);
    const keys = [keyOf(a), keyOf(b), keyOf(account(3, 5n, 11))];
    assert.deepEqual(keys.map((k) => store.entry(k)?.lastModified ?? null), [8, 9, null]);
    assert.deepEqual(store.ledgerRange(), { oldest: { sequence: 6, closeTime: 1_700_000_030 }, latest: { sequence: 10, closeTime: 1_700_000_050 } });
    store.ingest(plain(11, [put(account(2, 1n, 11))]), 100);
    assert.deepEqual(keys.map((k) => store.entry(k)?.lastModified ?? null), [8, 11, null]);
    assert.equal(store.entriesAt(keys, 10).get(toBase64(keys[1]))?.lastModified, 9);
    store.close();
  });

  it('a failure part way leaves the store as it was, and ingestion goes on', () => {
    const store = new SqliteStore(storePath());
    const { series, hashes } = build(store, SEGMENT_LEDGERS + 30, SEED);
    const before = readers(store, hashes);
    const events = (store as unknown as { eventStore: { truncateAfter(l: number): void } }).eventStore;
    const original = events.truncateAfter;
    events.truncateAfter = () => { throw new Error('disk full'); };
    assert.throws(() => store.revertTo(SEGMENT_LEDGERS - 3), /disk full/);
    events.truncateAfter = original;
    assert.deepEqual(readers(store, hashes), before);
    const b = series.batch(SEGMENT_LEDGERS + 31);
    store.ingest(b, 100_000);
    assert.equal(store.latestLedger()?.sequence, SEGMENT_LEDGERS + 31);
    store.revertTo(SEGMENT_LEDGERS + 30);
    assert.deepEqual(readers(store, hashes), before);
    store.close();
  });
});
