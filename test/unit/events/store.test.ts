// Event storage: retention inside the ingest transaction (events and their index rows leave with
// their ledgers, nothing orphaned), atomicity, and filling the events of ledgers stored before the
// events table existed.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { getEvents } from '../../../src/rpc/methods/getEvents.ts';
import { StrKey } from '@stellar/stellar-sdk';
import { decodePostings, eventTerms } from '../../../src/events/indexTerms.ts';
import { parseContractEvent } from '../../../src/events/eventBytes.ts';
import { LEDGER_KEY_SPAN } from '../../../src/store/sqlite/eventStore.ts';
import { SEGMENT_LEDGERS, segmentOf } from '../../../src/store/eventIndex/queryPlan.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, call, ledgerBytes } from '../methods/support/pubnet.ts';
import { comparable, contractEventXdr, emptyStore, expectedEvents, storeWith, sym, syntheticBatch, u32 } from './support.ts';

/** Per (term, ledger), the positions of the stored events carrying the term, recomputed from the events. */
function postingsFromEvents(db: DatabaseSync, belowSegment: number): string[] {
  const byTermLedger = new Map<string, number[]>();
  const rows = db.prepare('SELECT key, event FROM events WHERE key < ? ORDER BY key').all(belowSegment * SEGMENT_LEDGERS * LEDGER_KEY_SPAN) as Array<{ key: number; event: Uint8Array }>;
  for (const r of rows) {
    const ledger = Math.floor(r.key / LEDGER_KEY_SPAN);
    const pos = r.key % LEDGER_KEY_SPAN;
    for (const t of new Set(eventTerms(parseContractEvent(r.event)))) {
      const k = `${t}/${ledger}`;
      byTermLedger.set(k, [...(byTermLedger.get(k) ?? []), pos]);
    }
  }
  return [...byTermLedger].map(([k, ps]) => `${k}:${ps.join(',')}`).sort();
}

/** The stored index rows, as (term, ledger): positions, for ledgers >= fromLedger. */
function postingsStored(db: DatabaseSync, fromLedger: number): string[] {
  const out: string[] = [];
  for (const r of db.prepare('SELECT segment, term, postings FROM event_terms').all() as Array<{ segment: number; term: number; postings: Uint8Array }>) {
    const p = decodePostings(r.postings, r.segment * SEGMENT_LEDGERS);
    p.ledgers.forEach((l, i) => { if (l >= fromLedger) out.push(`${r.term}/${l}:${p.positions[i].join(',')}`); });
  }
  return out.sort();
}

const segmentsStored = (db: DatabaseSync): number[] =>
  (db.prepare('SELECT DISTINCT segment FROM event_terms ORDER BY segment').all() as Array<{ segment: number }>).map((r) => r.segment);

const events = (seq: number) => {
  const c = new Uint8Array(32).fill(seq % 4);
  return [
    { ops: [[contractEventXdr(c, [sym('transfer'), u32(seq), u32(seq + 1), sym('x')], u32(1))], [contractEventXdr(c, [sym('a')], u32(2))]], fee: contractEventXdr(c, [sym('fee'), u32(seq)], u32(3)) },
    { ops: [[contractEventXdr(null, [sym('core'), u32(seq % 3)], u32(4), 0), contractEventXdr(c, [], u32(5))]] },
  ];
};

test('retention: events leave with their ledgers and index segments wholly below the cutoff go, in the ingest transaction', async () => {
  const db = emptyStore();
  const raw = new DatabaseSync(join(db.dir, 'rpc.sqlite'));
  try {
    const retention = 300;
    for (let seq = 2; seq <= 1000; seq++) {
      db.store.ingest(syntheticBatch(seq, events(seq)), retention);
      const cutoff = Math.max(2, seq + 1 - retention);
      const ledgers = (raw.prepare('SELECT min(key) AS lo, max(key) AS hi FROM events').get() as { lo: number; hi: number });
      assert.equal(Math.floor(ledgers.lo / LEDGER_KEY_SPAN), cutoff, `oldest event ledger after ${seq}`);
      const segments = segmentsStored(raw);
      if (segments.length) assert.ok(segments[0] >= segmentOf(cutoff), `no segment wholly below ${cutoff} after ${seq}`);
      // the last ledger of a segment writes the segment's rows
      assert.equal(segments.includes(segmentOf(seq)), (seq + 1) % SEGMENT_LEDGERS === 0, `segment of ${seq} written`);
      if (seq % 97 === 0 || (seq + 1) % SEGMENT_LEDGERS === 0) {
        const open = segmentOf(seq + 1);
        assert.deepEqual(postingsStored(raw, cutoff), postingsFromEvents(raw, open), `index rows after ${seq}`);
      }
    }
    assert.equal((raw.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n, retention * 5);
    const page = await call(getEvents, { startLedger: 701, pagination: { limit: 10000 } }, db.ctx);
    assert.equal(page.events.length, retention * 5);
    assert.equal(page.oldestLedger, 701);
    const cores = await call(getEvents, { startLedger: 701, filters: [{ type: 'system' }], pagination: { limit: 10000 } }, db.ctx);
    assert.equal(cores.events.length, retention);
  } finally {
    raw.close();
    db.close();
  }
});

test('reopening rebuilds the open segment from the events table; a rolled-back ledger leaves no trace', async () => {
  const db = emptyStore();
  const path = join(db.dir, 'rpc.sqlite');
  const contract = StrKey.encodeContract(Buffer.alloc(32, 1));
  try {
    for (let seq = 2; seq <= 200; seq++) db.store.ingest(syntheticBatch(seq, events(seq)), 120960);
    const bad = syntheticBatch(201, events(201));
    bad.events![1] = { ...bad.events![1], event: new Uint8Array([0, 0, 0, 0, 0, 0, 0, 9]) };
    assert.throws(() => db.store.ingest(bad, 120960));
    const before = await call(getEvents, { startLedger: 2, filters: [{ contractIds: [contract] }], pagination: { limit: 10000 } }, db.ctx);
    assert.equal(before.events.length, 49 * 4, 'ledgers 5, 9, ..., 197 (seq % 4 == 1): 4 events each carry the contract');
    db.store.close();
    const reopened = new SqliteStore(path);
    try {
      const after = await call(getEvents, { startLedger: 2, filters: [{ contractIds: [contract] }], pagination: { limit: 10000 } }, { ...db.ctx, store: reopened });
      assert.deepEqual(after, before);
      for (let seq = 201; seq <= 300; seq++) reopened.ingest(syntheticBatch(seq, events(seq)), 120960);
      const raw = new DatabaseSync(path);
      assert.deepEqual(postingsStored(raw, 0), postingsFromEvents(raw, segmentOf(301)));
      raw.close();
      const all = await call(getEvents, { startLedger: 2, filters: [{ contractIds: [contract] }], pagination: { limit: 10000 } }, { ...db.ctx, store: reopened });
      assert.equal(all.events.length, 74 * 4, 'and 201, ..., 297');
    } finally {
      reopened.close();
    }
  } finally {
    db.close();
  }
});

test('a ledger whose events cannot be read is not stored at all', async () => {
  const db = emptyStore();
  try {
    db.store.ingest(syntheticBatch(2, events(2)), 100);
    const bad = syntheticBatch(3, events(3));
    bad.events![1] = { ...bad.events![1], event: new Uint8Array([0, 0, 0, 0, 0, 0, 0, 9]) };
    assert.throws(() => db.store.ingest(bad, 100));
    assert.equal(db.store.ledgerRange()!.latest.sequence, 2);
    db.store.ingest(syntheticBatch(3, events(3)), 100);
    const page = await call(getEvents, { startLedger: 2, pagination: { limit: 100 } }, db.ctx);
    assert.deepEqual(page.events.map((e: any) => e.ledger), [2, 2, 2, 2, 2, 3, 3, 3, 3, 3]);
  } finally {
    db.close();
  }
});

test('a database from before the events table gets its ledgers\' events on open', async () => {
  const ls: Uint8Array[] = [];
  for (let s = FIRST_LEDGER; s <= FIRST_LEDGER + 2; s++) ls.push(ledgerBytes(s));
  const db = storeWith(PUBNET_PASSPHRASE, ls);
  const path = join(db.dir, 'rpc.sqlite');
  db.store.close();
  // back to schema version 1 (without what later migrations added)
  const raw = new DatabaseSync(path);
  // metas stored in parts (migration 7) go back into their ledgers' rows
  for (const { sequence } of raw.prepare('SELECT sequence FROM ledgers WHERE meta_parts > 0').all()) {
    const parts = raw.prepare('SELECT bytes FROM ledger_meta_parts WHERE id / 4096 = ? ORDER BY id').all(sequence).map((r) => r.bytes as Uint8Array);
    raw.prepare('UPDATE ledgers SET meta = ? WHERE sequence = ?').run(Buffer.concat(parts), sequence);
  }
  raw.exec("DROP TABLE events; DROP TABLE event_terms; DROP TABLE entry_history_images; DROP TABLE entry_history_writers; DROP TABLE ledger_meta_parts; ALTER TABLE ledgers DROP COLUMN meta_parts; DELETE FROM metadata WHERE key = 'entryHistoryFrom'; PRAGMA user_version = 1;");
  raw.close();
  const reopened = new SqliteStore(path);
  try {
    const ctx = { ...db.ctx, store: reopened };
    const page = await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 10000 } }, ctx);
    assert.deepEqual(page.events, ls.flatMap(expectedEvents).map(comparable));
    assert.ok(page.events.length > 1000);
  } finally {
    reopened.close();
    db.close();
  }
  assert.ok(LAST_LEDGER > FIRST_LEDGER);
});
