// Ledger entries as they were at the end of a past ledger (getLedgerEntries' `ledger` parameter, and
// the standalone network's revert).
//
// When ledger N writes keys, the versions it replaces (a key N creates: "absent") are its images.
// The version current at the end of ledger L is the image of the first ledger after L that wrote
// the key, else the key's row in ledger_entries.
//
// Layout (migration 6; blobs in entryHistoryBlobs.ts). Ingestion's cost was the point: the first
// layout kept one row per image, and on a busy pubnet ledger (about 930 entry changes) those rows
// alone were a third of the store write, most of it the per-row cost of SQLite and node:sqlite, not
// the bytes. Now a ledger adds IMAGE_BUCKETS rows at most:
//  - entry_history_images(id = N * IMAGE_BUCKETS + bucket, images): ledger N's images, split by key
//    hash into a few buckets so a lookup reads a page or two, not the ledger's few hundred KB;
//  - entry_history_writers(bucket, segment, writers): which ledgers of a 128-ledger segment wrote
//    each key (a bitmap per key hash), for the keys of one of WRITER_BUCKETS buckets. The open
//    segment's bitmaps are kept in memory (rebuilt from its images at start) and written once, when
//    the segment is complete: WRITER_BUCKETS rows per 128 ledgers, each appended at the end of its
//    bucket's range. A lookup reads its key's bucket from the segment after L on, in order, and
//    stops at the first segment that wrote the key.
// Key hashes are the event index's 47-bit hash under a kind of their own; keys sharing a hash are
// told apart by comparing the key in the images.
//
// Trimming the retention window deletes an id range of images, and whole segments of writers once
// the window has left them. The metadata `entryHistoryFrom` is the first ledger whose state the
// history can give back: the first ledger stored, the history-archive checkpoint a follower's state
// was bootstrapped at, the first ledger after the history was switched back on, or, for a database
// older than this layout, its latest ledger then.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { IngestBatch, StoredEntry } from '../types.ts';
import { toBase64 } from '../../xdr/codec.ts';
import { termHash } from '../../events/indexTerms.ts';
import { BatchInsert } from './batchInsert.ts';
import { allImages, BITMAP_WORDS, findImage, findWriters, ledgersAfter, packImages, packWriters, type Image } from './entryHistoryBlobs.ts';

/** Ledgers per writers segment: one bit each in a key's bitmap. */
export const HISTORY_SEGMENT_LEDGERS = BITMAP_WORDS * 32;
/** Image rows per ledger at most. */
export const IMAGE_BUCKETS = 16;
/** Writers rows per segment: every bucket gets one (empty or not), so a written segment is seen. */
export const WRITER_BUCKETS = 256;
const FROM_KEY = 'entryHistoryFrom';
/** The event index's 47-bit hash, under a kind of its own. */
export const historyKeyHash = (key: Uint8Array): number => termHash(KEY_HASH_KIND, key);
const KEY_HASH_KIND = 64;
const segmentOf = (ledger: number): number => Math.floor(ledger / HISTORY_SEGMENT_LEDGERS);
const writerBucket = (hash: number): number => hash % WRITER_BUCKETS;
export const imageBucket = (hash: number): number => Math.floor(hash / WRITER_BUCKETS) % IMAGE_BUCKETS;
/** Map key for key bytes (latin1 keeps every byte; cheaper than base64 or hex). */
const keyId = (key: Uint8Array): string => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
/** Writes looked at between two steps of beforeWriteSteps. */
const STEP_WRITES = 1024;
/** Keys per SELECT of current rows. */
const CURRENT_BATCH = 64;

/** The segment ledgers are being added to: per key hash, which of its ledgers wrote the key. */
interface OpenSegment { segment: number; writers: Map<number, Uint32Array> }

type Row = Record<string, unknown>;

export class EntryHistory {
  private readonly db: DatabaseSync;
  private readonly st: Record<string, StatementSync>;
  /** entriesAt's statements, on the store's read connection (the last committed state). */
  private readonly readSt: Record<string, StatementSync>;
  private readonly currentOf = new Map<number, StatementSync>();
  private readonly insertImages: BatchInsert;
  private readonly insertWriters: BatchInsert;
  private open: OpenSegment | undefined;
  /**
   * Segments written out by the open write transaction: reads (on the read connection, which does
   * not see those rows yet) keep finding their bitmaps here until the transaction ends.
   */
  private sealed: OpenSegment[] = [];
  /** Segments below this one have had their writers deleted by trim(). */
  private trimmedBelow = -1;

  /**
   * `enabled` false (--ledger-entry-history=false): nothing is kept and what was kept is dropped, so
   * a later start with it on begins a history without gaps at its next ledger.
   */
  readonly enabled: boolean;
  /** from() is known to be set (read back in a committed state or inside the transaction writing it). */
  private begun = false;

  /** `db`: the writer's connection; `reader`: the connection reads go through (may be `db`). */
  constructor(db: DatabaseSync, reader: DatabaseSync, enabled = true) {
    this.db = db;
    this.enabled = enabled;
    const p = (sql: string) => db.prepare(sql);
    const r = (sql: string) => reader.prepare(sql);
    this.readSt = {
      current: r('SELECT entry, last_modified FROM ledger_entries WHERE key = ?'),
      images: r('SELECT images FROM entry_history_images WHERE id = ?'),
      writers: r('SELECT segment, writers FROM entry_history_writers WHERE bucket = ? AND segment >= ? ORDER BY segment'),
      from: r(`SELECT value FROM metadata WHERE key = '${FROM_KEY}'`),
    };
    this.insertImages = new BatchInsert(db, 'INSERT INTO entry_history_images (id, images)', 2);
    this.insertWriters = new BatchInsert(db, 'INSERT INTO entry_history_writers (bucket, segment, writers)', 3);
    this.st = {
      imagesFrom: p('SELECT id, images FROM entry_history_images WHERE id >= ? ORDER BY id'),
      lastImages: p('SELECT MAX(id) AS id FROM entry_history_images'),
      segmentWritten: p('SELECT 1 AS x FROM entry_history_writers WHERE bucket = 0 AND segment = ?'),
      trimImages: p('DELETE FROM entry_history_images WHERE id < ?'),
      trimWriters: p('DELETE FROM entry_history_writers WHERE bucket = ? AND segment < ?'),
      dropImagesFrom: p('DELETE FROM entry_history_images WHERE id >= ?'),
      dropWritersFrom: p('DELETE FROM entry_history_writers WHERE segment >= ?'),
      upsertEntry: p(`INSERT INTO ledger_entries (key, entry, last_modified) VALUES (?, ?, ?)
                      ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, last_modified = excluded.last_modified`),
      deleteEntry: p('DELETE FROM ledger_entries WHERE key = ?'),
      from: p(`SELECT value FROM metadata WHERE key = '${FROM_KEY}'`),
      setFrom: p(`INSERT INTO metadata (key, value) VALUES ('${FROM_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
    };
    if (!enabled) {
      this.clear();
      db.prepare(`DELETE FROM metadata WHERE key = '${FROM_KEY}'`).run();
    }
    this.load();
  }

  private clear(): void {
    this.db.exec('DELETE FROM entry_history_images; DELETE FROM entry_history_writers');
    this.open = undefined;
    this.sealed = [];
    this.trimmedBelow = -1;
  }

  /** The open segment as the database has it: rebuilt from its images unless its writers were written. */
  private load(): void {
    this.open = undefined;
    this.sealed = [];
    const last = (this.st.lastImages.get() as Row).id;
    if (last === null || last === undefined) return;
    const segment = segmentOf(Math.floor(Number(last) / IMAGE_BUCKETS));
    if (this.st.segmentWritten.get(segment)) return;
    for (const row of this.st.imagesFrom.iterate(segment * HISTORY_SEGMENT_LEDGERS * IMAGE_BUCKETS) as Iterable<Row>) {
      const ledger = Math.floor(Number(row.id) / IMAGE_BUCKETS);
      for (const { hash } of allImages(row.images as Uint8Array)) this.markWritten(ledger, hash);
    }
  }

  /** The first ledger whose end state can be read back; undefined before any ledger or state is stored. */
  from(): number | undefined {
    const r = this.readSt.from.get() as Row | undefined;
    return r ? Number(r.value) : undefined;
  }

  /** from() as the open write transaction has it. */
  private fromWriting(): number | undefined {
    const r = this.st.from.get() as Row | undefined;
    return r ? Number(r.value) : undefined;
  }

  /**
   * Keeps the versions `batch`'s writes are about to replace. Call inside the ledger's write
   * transaction, before the writes. The first ledger of a store starts its history: what came
   * before it is unknown, so nothing is kept for it. Steps of STEP_WRITES writes (a 6,000-transfer
   * ledger has 12,000; see SqliteStore.ingestManyInSlices).
   */
  *beforeWriteSteps(batch: IngestBatch): Generator<void, void> {
    if (!this.enabled) return;
    // nothing to keep (an empty ledger) once the history has begun: no metadata read per ledger
    if (batch.entryWrites.length === 0 && this.begun) return;
    const seq = batch.ledger.sequence;
    const from = this.fromWriting();
    if (from === undefined) {
      this.st.setFrom.run(String(seq));
      return;
    }
    this.begun = true;
    if (seq <= from) return; // a follower's ledgers up to its checkpoint: their changes are in its state
    const writes = batch.entryWrites;
    if (writes.length === 0) return;
    // what the meta does not say is read from the current rows (in a few statements)
    const unknown = writes.filter((w) => w.before === undefined).map((w) => w.key);
    const current = unknown.length ? this.currentRows(unknown) : undefined;
    const buckets: Array<Array<{ hash: number; image: Image }>> = Array.from({ length: IMAGE_BUCKETS }, () => []);
    for (let i = 0; i < writes.length; i++) {
      if (i > 0 && i % STEP_WRITES === 0) yield;
      const { key, entry, before } = writes[i];
      const was = before === undefined ? current!.get(keyId(key)) : before;
      // a key deleted that did not exist changes nothing: no image
      if (!was && !entry) continue;
      const hash = historyKeyHash(key);
      buckets[imageBucket(hash)].push({ hash, image: was ? { key, entry: was.entry, lastModified: was.lastModified } : { key, entry: null, lastModified: 0 } });
      this.markWritten(seq, hash);
    }
    yield;
    for (let bucket = 0; bucket < IMAGE_BUCKETS; bucket++) {
      if (buckets[bucket].length) this.insertImages.add(seq * IMAGE_BUCKETS + bucket, packImages(buckets[bucket]));
      if (bucket % 4 === 3) yield;
    }
    this.insertImages.flush();
    if ((seq + 1) % HISTORY_SEGMENT_LEDGERS === 0) this.writeOpenSegment();
  }

  /** The current rows of `keys` (by keyId), read CURRENT_BATCH keys per statement. */
  private currentRows(keys: readonly Uint8Array[]): Map<string, { entry: Uint8Array; lastModified: number }> {
    const out = new Map<string, { entry: Uint8Array; lastModified: number }>();
    for (let i = 0; i < keys.length;) {
      const n = Math.min(keys.length - i, CURRENT_BATCH);
      let stmt = this.currentOf.get(n);
      if (!stmt) {
        stmt = this.db.prepare(`SELECT key, entry, last_modified FROM ledger_entries WHERE key IN (${Array(n).fill('?').join(', ')})`);
        this.currentOf.set(n, stmt);
      }
      for (const r of stmt.all(...keys.slice(i, i + n)) as Row[]) {
        out.set(keyId(r.key as Uint8Array), { entry: r.entry as Uint8Array, lastModified: Number(r.last_modified) });
      }
      i += n;
    }
    return out;
  }

  private markWritten(ledger: number, hash: number): void {
    const segment = segmentOf(ledger);
    if (this.open && this.open.segment < segment) this.writeOpenSegment();
    const open = this.open ??= { segment, writers: new Map() };
    let bitmap = open.writers.get(hash);
    if (!bitmap) open.writers.set(hash, bitmap = new Uint32Array(BITMAP_WORDS));
    const bit = ledger - segment * HISTORY_SEGMENT_LEDGERS;
    bitmap[bit >>> 5] |= 1 << (bit & 31);
  }

  /** Writes the open segment's bitmaps, one row per bucket (inside the ledger's write transaction). */
  private writeOpenSegment(): void {
    const open = this.open;
    if (!open) return;
    const buckets: Array<Array<[number, Uint32Array]>> = Array.from({ length: WRITER_BUCKETS }, () => []);
    for (const w of open.writers) buckets[writerBucket(w[0])].push(w);
    buckets.forEach((writers, bucket) => this.insertWriters.add(bucket, open.segment, packWriters(writers)));
    this.insertWriters.flush();
    this.sealed.push(open);
    this.open = undefined;
  }

  /** The write transaction committed: the rows of the segments it wrote out are readable now. */
  committed(): void { this.sealed = []; }

  /** The write transaction rolled back: what is kept in memory is read back from the database. */
  rolledBack(): void {
    this.begun = false;
    this.insertImages.clear();
    this.insertWriters.clear();
    this.load();
  }

  /** Forgets what no ledger from `oldest` on needs. */
  trim(oldest: number): void {
    this.st.trimImages.run(oldest * IMAGE_BUCKETS);
    const below = segmentOf(oldest);
    if (below <= this.trimmedBelow) return;
    for (let bucket = 0; bucket < WRITER_BUCKETS; bucket++) this.st.trimWriters.run(bucket, below);
    this.trimmedBelow = below;
  }

  /**
   * Puts every entry written after `ledger` back as it was at the end of `ledger` (deleting those
   * created since), and forgets the history of the ledgers after it. Call inside a write transaction,
   * for a ledger from from() on (the caller checks). Returns what it wrote: each key put back with
   * its entry then (null: deleted), so that what is kept in memory about the state can follow.
   */
  revertTo(ledger: number): Array<{ key: Uint8Array; entry: Uint8Array | null }> {
    const restored = new Map<string, Image>();
    // ascending ledgers: a key's first image after `ledger` is its version at the end of it
    for (const row of this.st.imagesFrom.iterate((ledger + 1) * IMAGE_BUCKETS) as Iterable<Row>) {
      for (const { image } of allImages(row.images as Uint8Array)) {
        const id = keyId(image.key);
        if (!restored.has(id)) restored.set(id, image);
      }
    }
    for (const { key, entry, lastModified } of restored.values()) {
      if (entry) this.st.upsertEntry.run(key, entry, lastModified);
      else this.st.deleteEntry.run(key);
    }
    this.st.dropImagesFrom.run((ledger + 1) * IMAGE_BUCKETS);
    // the segment holding `ledger` is open again: rebuilt from its images up to `ledger`
    this.st.dropWritersFrom.run(segmentOf(ledger));
    this.load();
    return [...restored.values()].map(({ key, entry }) => ({ key, entry }));
  }

  /** A new state at `ledger` (a history-archive checkpoint): the history starts again there. */
  restart(ledger: number): void {
    this.clear();
    if (!this.enabled) return;
    this.st.setFrom.run(String(ledger));
  }

  /** The entries as they were at the end of `ledger` (keyed by base64 key); keys absent then are absent. */
  entriesAt(keys: readonly Uint8Array[], ledger: number): Map<string, StoredEntry> {
    const out = new Map<string, StoredEntry>();
    const blobs = new Map<number, Uint8Array | undefined>();
    for (const key of keys) {
      const image = this.imageAfter(key, ledger, blobs);
      if (image) {
        if (image.entry) out.set(toBase64(key), { key, entry: image.entry, lastModified: image.lastModified });
        continue;
      }
      const r = this.readSt.current.get(key) as Row | undefined;
      if (r) out.set(toBase64(key), { key, entry: r.entry as Uint8Array, lastModified: Number(r.last_modified) });
    }
    return out;
  }

  /** The image `key` has in the first ledger after `ledger` that wrote it; undefined when none did. */
  private imageAfter(key: Uint8Array, ledger: number, blobs: Map<number, Uint8Array | undefined>): Image | undefined {
    const hash = historyKeyHash(key);
    const inLedgers = (bitmap: Uint32Array, segment: number): Image | undefined => {
      for (const n of ledgersAfter(bitmap, segment * HISTORY_SEGMENT_LEDGERS, ledger)) {
        const id = n * IMAGE_BUCKETS + imageBucket(hash);
        if (!blobs.has(id)) blobs.set(id, (this.readSt.images.get(id) as Row | undefined)?.images as Uint8Array | undefined);
        const blob = blobs.get(id);
        const image = blob && findImage(blob, hash, key);
        if (image) return image; // else another key with the same hash was written there
      }
      return undefined;
    };
    const first = segmentOf(ledger + 1);
    for (const row of this.readSt.writers.iterate(writerBucket(hash), first) as Iterable<Row>) {
      const bitmap = findWriters(row.writers as Uint8Array, hash);
      const image = bitmap && inLedgers(bitmap, Number(row.segment));
      if (image) return image;
    }
    // in memory: segments an open write transaction wrote out (its rows not readable yet), then the
    // open segment. Their bits for the ledger being written find no image on the read connection
    // and fall through to the current row, which is the last committed version: right for a reader.
    for (const segment of [...this.sealed, this.open]) {
      const bitmap = segment && segment.segment >= first ? segment.writers.get(hash) : undefined;
      const image = bitmap && inLedgers(bitmap, segment!.segment);
      if (image) return image;
    }
    return undefined;
  }
}
