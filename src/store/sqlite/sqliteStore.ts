// SQLite storage on Node's built-in binding (node:sqlite). One writer (ingestion) and the RPC
// methods share this connection; every ledger is written in a single transaction so a crash leaves
// either the whole ledger or none of it.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { migrations } from './migrations.ts';
import { EventStore } from './eventStore.ts';
import { BatchInsert } from './batchInsert.ts';
import { EntryHistory } from './entryHistory.ts';
import { DatabaseLock, isFileDatabase } from './databaseLock.ts';
import { WalCheckpointer } from './walCheckpointer.ts';

/** The log size (16 KiB pages: 256 MiB) at which SQLite checkpoints in the writer's COMMIT itself. */
const BACKSTOP_CHECKPOINT_PAGES = 16_384;
import { ledgerEventsFromMeta } from '../../events/metaEvents.ts';
import type {
  EventQuery, IngestBatch, LedgerRange, LedgerRow, RevertedEntry, StateSink, Store, StoredEntry, StoredEvent, StoredTransaction, TransactionRow,
} from '../types.ts';
import { toBase64 } from '../../xdr/codec.ts';
import { toid } from '../../ids/toid.ts';

/** The schema version that added the events tables (migrations.ts step 2). */
const EVENTS_MIGRATION = 2;

/** A transaction row's id: its TOID with operation 0. */
const transactionId = (ledger: number, applicationOrder: number): bigint => toid(ledger, applicationOrder, 0);

type Row = Record<string, unknown>;

export class SqliteStore implements Store {
  private readonly db: DatabaseSync;
  private readonly st: Record<string, StatementSync>;
  /** A ledger's rows of each kind go in calls of up to 64 (see batchInsert.ts). */
  private readonly insertTxs: BatchInsert;
  private readonly insertTxHashes: BatchInsert;
  private readonly upsertEntries: BatchInsert;
  private readonly insertFees: BatchInsert;
  private range: LedgerRange | undefined;
  private latest: LedgerRow | undefined;
  private readonly eventStore: EventStore;
  private readonly history: EntryHistory;
  /** This store is the database's one writer (databaseLock.ts); absent for in-memory databases. */
  private readonly lock: DatabaseLock | undefined;
  /** Checkpoints the log off this thread (walCheckpointer.ts); absent for in-memory databases. */
  private readonly checkpointer: WalCheckpointer | undefined;

  /**
   * `options.entryHistory` false: no past-ledger reads (see EntryHistory). Throws DatabaseLockedError,
   * before anything is written, when another store (of any process) has the database open.
   */
  constructor(path: string, options: { entryHistory?: boolean } = {}) {
    this.lock = isFileDatabase(path) ? DatabaseLock.acquire(path) : undefined;
    let opened: DatabaseSync | undefined;
    // a start that fails here (a schema newer than this build, a file that is no database) leaves
    // the database closed and its lock free, so another try in this process is not locked out
    try {
      this.db = opened = new DatabaseSync(path);
      // 16 KiB pages for new databases: a ledger's metas are megabytes of blobs, whose overflow chains
      // are 4x shorter than with the default 4 KiB (ingestion ~1.4x faster); no effect on an existing file.
      this.db.exec('PRAGMA page_size = 16384');
      this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = OFF;');
      if (isFileDatabase(path)) {
        // the checkpointer's thread copies the log as commits come; SQLite's own checkpoint (in the
        // COMMIT that crosses it) only when the log reaches 256 MiB, should that thread fall behind
        this.checkpointer = new WalCheckpointer(path);
        this.db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
      }
      const versionBefore = this.migrate();
      this.eventStore = new EventStore(this.db);
      this.history = new EntryHistory(this.db, options.entryHistory ?? true);
      if (versionBefore >= 1 && versionBefore < EVENTS_MIGRATION) this.backfillEvents();
      const p = (sql: string) => this.db.prepare(sql);
      this.insertTxs = new BatchInsert(this.db,
        'INSERT INTO transactions (id, ledger_sequence, application_order, hash, successful, fee_bump, envelope, result, meta, events)', 10);
      this.insertTxHashes = new BatchInsert(this.db, 'INSERT OR REPLACE INTO transaction_hashes (hash, transaction_id)', 2);
      this.upsertEntries = new BatchInsert(this.db, (values) => `INSERT INTO ledger_entries (key, entry, last_modified) ${values}
        ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, last_modified = excluded.last_modified`, 3);
      this.insertFees = new BatchInsert(this.db, 'INSERT INTO fee_samples (ledger_sequence, soroban, fee)', 3);
      this.st = {
        insertLedger: p('INSERT INTO ledgers (sequence, hash, close_time, protocol_version, header, meta) VALUES (?, ?, ?, ?, ?, ?)'),
        upsertEntry: p('INSERT INTO ledger_entries (key, entry, last_modified) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, last_modified = excluded.last_modified'),
        deleteEntry: p('DELETE FROM ledger_entries WHERE key = ?'),
        trimLedgers: p('DELETE FROM ledgers WHERE sequence < ?'),
        trimTxs: p('DELETE FROM transactions WHERE id < ?'),
        trimTxHashes: p('DELETE FROM transaction_hashes WHERE transaction_id < ?'),
        trimFees: p('DELETE FROM fee_samples WHERE ledger_sequence < ?'),
        dropLedgersAfter: p('DELETE FROM ledgers WHERE sequence > ?'),
        dropTxsFrom: p('DELETE FROM transactions WHERE id >= ?'),
        dropTxHashesFrom: p('DELETE FROM transaction_hashes WHERE transaction_id >= ?'),
        dropFeesAfter: p('DELETE FROM fee_samples WHERE ledger_sequence > ?'),
        ledger: p('SELECT * FROM ledgers WHERE sequence = ?'),
        ledgersFrom: p('SELECT * FROM ledgers WHERE sequence >= ? ORDER BY sequence LIMIT ?'),
        oldest: p('SELECT sequence, close_time FROM ledgers ORDER BY sequence ASC LIMIT 1'),
        newest: p('SELECT * FROM ledgers ORDER BY sequence DESC LIMIT 1'),
        entry: p('SELECT key, entry, last_modified FROM ledger_entries WHERE key = ?'),
        allEntries: p('SELECT key, entry, last_modified FROM ledger_entries ORDER BY key'),
        entriesInKeyRange: p('SELECT key, entry, last_modified FROM ledger_entries WHERE key >= ? AND key < ? ORDER BY key'),
        entriesFromKey: p('SELECT key, entry, last_modified FROM ledger_entries WHERE key >= ? ORDER BY key'),
        clearEntries: p('DELETE FROM ledger_entries'),
        txByHash: p(`SELECT t.*, l.close_time FROM transaction_hashes h JOIN transactions t ON t.id = h.transaction_id
                     JOIN ledgers l ON l.sequence = t.ledger_sequence WHERE h.hash = ?`),
        txsFrom: p(`SELECT t.*, l.close_time FROM transactions t JOIN ledgers l ON l.sequence = t.ledger_sequence
                    WHERE t.id >= ? ORDER BY t.id LIMIT ?`),
        fees: p('SELECT fee FROM fee_samples WHERE ledger_sequence >= ? AND soroban = ?'),
        getMeta: p('SELECT value FROM metadata WHERE key = ?'),
        forkResolved: p('SELECT 1 FROM fork_resolved WHERE key = ?'),
        insertForkResolved: p('INSERT OR IGNORE INTO fork_resolved (key) VALUES (?)'),
        setMeta: p('INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      };
      this.st.txByHash.setReadBigInts(true);
      this.st.txsFrom.setReadBigInts(true);
      this.st.fees.setReadBigInts(true);
      this.refreshRange();
      this.eventStore.load(this.latest?.sequence);
    } catch (e) {
      if (opened?.isOpen) opened.close();
      this.lock?.release();
      throw e;
    }
  }

  private migrate(): number {
    const version = Number((this.db.prepare('PRAGMA user_version').get() as Row).user_version);
    if (version > migrations.length) {
      throw new Error(`database schema version ${version} is newer than this build knows (${migrations.length})`);
    }
    for (let v = version; v < migrations.length; v++) {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        this.db.exec(migrations[v]);
        this.db.exec(`PRAGMA user_version = ${v + 1}`);
        this.db.exec('COMMIT');
      } catch (e) {
        this.db.exec('ROLLBACK');
        throw e;
      }
    }
    return version;
  }

  /** Events of ledgers stored before the events table existed, re-read from their metas. */
  private backfillEvents(): void {
    const seqs = (this.db.prepare('SELECT sequence FROM ledgers ORDER BY sequence').all() as Row[]).map((r) => Number(r.sequence));
    const meta = this.db.prepare('SELECT meta FROM ledgers WHERE sequence = ?');
    for (let i = 0; i < seqs.length; i += 256) {
      this.writeTransaction(() => {
        for (const seq of seqs.slice(i, i + 256)) {
          const row = meta.get(seq) as Row;
          this.eventStore.write(seq, ledgerEventsFromMeta(row.meta as Uint8Array));
        }
      });
    }
  }

  /** Runs `fn` as one write transaction: on failure nothing of it stays, in SQLite or in the event index's memory. */
  private writeTransaction(fn: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      fn();
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      for (const b of [this.insertTxs, this.insertTxHashes, this.upsertEntries, this.insertFees]) b.clear();
      this.eventStore.rolledBack();
      this.history.rolledBack();
      throw e;
    }
    this.eventStore.committed();
    this.checkpointer?.committed();
  }

  private refreshRange(): void {
    const newest = this.st.newest.get() as Row | undefined;
    const oldest = this.st.oldest.get() as Row | undefined;
    this.latest = newest ? ledgerFromRow(newest) : undefined;
    this.range = newest && oldest ? {
      oldest: { sequence: Number(oldest.sequence), closeTime: Number(oldest.close_time) },
      latest: { sequence: Number(newest.sequence), closeTime: Number(newest.close_time) },
    } : undefined;
  }

  ingest(batch: IngestBatch, retentionWindow: number): void { this.ingestMany([batch], retentionWindow); }

  /** Consecutive ledgers in one transaction: a backfill pays one commit per group, not per ledger. */
  ingestMany(batches: readonly IngestBatch[], retentionWindow: number): void {
    if (batches.length === 0) return;
    let expected = this.latest ? this.latest.sequence + 1 : batches[0].ledger.sequence;
    for (const { ledger } of batches) {
      if (ledger.sequence !== expected) {
        throw new Error(`ledger ${ledger.sequence} does not follow the stored ledger ${expected - 1}`);
      }
      expected++;
    }
    this.writeTransaction(() => {
      for (const batch of batches) this.writeLedger(batch);
      this.trimBelow(batches[batches.length - 1].ledger.sequence + 1 - retentionWindow);
    });
    this.ingested(batches);
  }

  ingestAfterGap(gapWrites: IngestBatch['entryWrites'], batches: readonly IngestBatch[], retentionWindow: number): void {
    if (batches.length === 0) throw new Error('no ledger after the gap');
    const first = batches[0].ledger.sequence;
    if (this.latest && first <= this.latest.sequence + 1) {
      throw new Error(`ledger ${first} leaves no gap after the stored ledger ${this.latest.sequence}`);
    }
    batches.forEach(({ ledger }, i) => {
      if (ledger.sequence !== first + i) throw new Error(`ledger ${ledger.sequence} does not follow ledger ${first + i - 1}`);
    });
    this.writeTransaction(() => {
      this.writeEntries(gapWrites);
      for (const batch of batches) this.writeLedger(batch);
      this.trimBelow(Math.max(first, batches[batches.length - 1].ledger.sequence + 1 - retentionWindow));
    });
    this.ingested(batches);
  }

  /** Removes every ledger below `cutoff` with what belongs to it (the retention window's trim). */
  private trimBelow(cutoff: number): void {
    if (cutoff <= 1) return;
    const cutoffId = transactionId(cutoff, 0);
    this.st.trimLedgers.run(cutoff);
    this.st.trimTxs.run(cutoffId);
    this.st.trimTxHashes.run(cutoffId);
    this.st.trimFees.run(cutoff);
    this.eventStore.trim(cutoff);
    this.history.trim(cutoff);
  }

  /** The cached range after `batches` were committed. */
  private ingested(batches: readonly IngestBatch[]): void {
    const ledger = batches[batches.length - 1].ledger;
    this.latest = ledger;
    const oldest = this.st.oldest.get() as Row;
    this.range = {
      oldest: { sequence: Number(oldest.sequence), closeTime: Number(oldest.close_time) },
      latest: { sequence: ledger.sequence, closeTime: ledger.closeTime },
    };
  }

  private writeLedger(batch: IngestBatch): void {
    const { ledger } = batch;
    this.st.insertLedger.run(ledger.sequence, ledger.hash, ledger.closeTime, ledger.protocolVersion, ledger.header, ledger.meta);
    for (const tx of batch.transactions) this.insertTransaction(tx);
    this.insertTxs.flush();
    this.insertTxHashes.flush();
    this.history.beforeWrites(batch);
    this.writeEntries(batch.entryWrites);
    for (const f of batch.feeSamples) this.insertFees.add(ledger.sequence, f.soroban ? 1 : 0, f.fee);
    this.insertFees.flush();
    this.eventStore.write(ledger.sequence, batch.events ?? []);
  }

  /** Entries' final values (one write per key): upserts in multi-row statements, deletes one by one. */
  private writeEntries(writes: IngestBatch['entryWrites']): void {
    for (const w of writes) {
      if (w.entry) this.upsertEntries.add(w.key, w.entry, w.lastModified);
      else this.st.deleteEntry.run(w.key);
    }
    this.upsertEntries.flush();
  }

  private insertTransaction(tx: TransactionRow): void {
    const id = transactionId(tx.ledgerSequence, tx.applicationOrder);
    this.insertTxs.add(id, tx.ledgerSequence, tx.applicationOrder, tx.hash, tx.successful ? 1 : 0, tx.feeBump ? 1 : 0,
      tx.envelope, tx.result, tx.meta, JSON.stringify(tx.events));
    this.insertTxHashes.add(tx.hash, id);
    if (tx.innerHash) this.insertTxHashes.add(tx.innerHash, id);
  }

  setMetadata(key: string, value: string): void { this.st.setMeta.run(key, value); }
  metadata(key: string): string | undefined {
    const r = this.st.getMeta.get(key) as Row | undefined;
    return r ? String(r.value) : undefined;
  }

  async replaceState(ledger: number, fill: (sink: StateSink) => Promise<void>): Promise<void> {
    // One transaction across the awaits: the native host's own connections keep seeing the previous
    // state until COMMIT, and a crash leaves it. Readers of this connection see the state being
    // built, which only happens on a database without ledgers (the RPC methods answer "no ledger"
    // then). The caller guarantees no ledger is ingested meanwhile.
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.st.clearEntries.run();
      await fill({
        put: (key, entry, lastModified) => { this.st.upsertEntry.run(key, entry, lastModified); },
        remove: (key) => { this.st.deleteEntry.run(key); },
        has: (key) => this.st.entry.get(key) !== undefined,  // same connection: sees the uncommitted state
      });
      this.st.setMeta.run('stateLedger', String(ledger));
      this.history.restart(ledger);
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }

  revertTo(ledger: number): RevertedEntry[] {
    if (!Number.isSafeInteger(ledger)) throw new Error(`cannot revert to ledger ${ledger}: not a ledger sequence`);
    if (!this.history.enabled) throw new Error(`cannot revert to ledger ${ledger}: the ledger entry history is off, so no past state can be rebuilt`);
    const latest = this.latest?.sequence;
    const oldest = this.entryHistoryOldest();
    if (latest === undefined || oldest === undefined) throw new Error(`cannot revert to ledger ${ledger}: the store holds no ledger`);
    if (ledger > latest) throw new Error(`cannot revert to ledger ${ledger}: it is after the latest stored ledger ${latest}`);
    if (ledger < oldest) {
      throw new Error(`cannot revert to ledger ${ledger}: the oldest ledger whose state can be rebuilt is ${oldest}`);
    }
    if (ledger === latest) return [];
    let writes: RevertedEntry[] = [];
    try {
      this.writeTransaction(() => {
        const fromId = transactionId(ledger + 1, 0);
        writes = this.history.revertTo(ledger);
        this.st.dropLedgersAfter.run(ledger);
        this.st.dropTxsFrom.run(fromId);
        this.st.dropTxHashesFrom.run(fromId);
        this.st.dropFeesAfter.run(ledger);
        this.eventStore.truncateAfter(ledger);
      });
    } finally {
      // what the caches assume of the stored ledgers is rebuilt from the database, committed or not
      this.refreshRange();
      this.eventStore.load(this.latest?.sequence);
    }
    return writes;
  }

  resolveForked(groups: ReadonlyArray<{ key: Uint8Array; writes: readonly StoredEntry[] }>): StoredEntry[] {
    const made: StoredEntry[] = [];
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const g of groups) {
        // resolved meanwhile (another request fetched it): keep what is there
        if (this.st.insertForkResolved.run(g.key).changes === 0) continue;
        // written locally before it was ever resolved (genesis, a developer edit): the local one stands
        if (this.st.entry.get(g.key) !== undefined) continue;
        for (const w of g.writes) {
          this.st.upsertEntry.run(w.key, w.entry, w.lastModified);
          made.push(w);
        }
      }
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    return made;
  }

  forkResolved(key: Uint8Array): boolean { return this.st.forkResolved.get(key) !== undefined; }

  allEntries(): Iterable<StoredEntry> { return storedEntries(this.st.allEntries.iterate()); }

  entriesOfTypes(first: number, last: number): Iterable<StoredEntry> {
    // a LedgerKey's XDR starts with its type (big-endian u32), so one type range is one key range
    const bound = (type: number) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, type); return b; };
    return storedEntries(this.st.entriesInKeyRange.iterate(bound(first), bound(last + 1)));
  }

  entriesWithKeyPrefix(prefix: Uint8Array): Iterable<StoredEntry> {
    // keys starting with the prefix sort from the prefix itself up to (not including) the next
    // prefix of the same length; a prefix of only 0xff bytes has no such bound and runs to the end
    const upper = Uint8Array.from(prefix);
    let i = upper.length - 1;
    while (i >= 0 && upper[i] === 0xff) i--;
    if (i < 0) return storedEntries(this.st.entriesFromKey.iterate(prefix));
    upper[i]++;
    return storedEntries(this.st.entriesInKeyRange.iterate(prefix, upper.subarray(0, i + 1)));
  }

  ledgerRange(): LedgerRange | undefined { return this.range; }

  entryHistoryOldest(): number | undefined {
    const from = this.history.from();
    return this.range && from !== undefined ? Math.max(from, this.range.oldest.sequence) : undefined;
  }

  entriesAt(keys: Uint8Array[], ledger: number): Map<string, StoredEntry> { return this.history.entriesAt(keys, ledger); }
  latestLedger(): LedgerRow | undefined { return this.latest; }

  ledger(sequence: number): LedgerRow | undefined {
    const r = this.st.ledger.get(sequence) as Row | undefined;
    return r ? ledgerFromRow(r) : undefined;
  }

  ledgers(from: number, limit: number): LedgerRow[] {
    return (this.st.ledgersFrom.all(from, limit) as Row[]).map(ledgerFromRow);
  }

  entry(key: Uint8Array): StoredEntry | undefined {
    const r = this.st.entry.get(key) as Row | undefined;
    return r ? { key: r.key as Uint8Array, entry: r.entry as Uint8Array, lastModified: Number(r.last_modified) } : undefined;
  }

  entries(keys: Uint8Array[]): Map<string, StoredEntry> {
    const out = new Map<string, StoredEntry>();
    for (const k of keys) {
      const e = this.entry(k);
      if (e) out.set(toBase64(k), e);
    }
    return out;
  }

  transactionByHash(hash: Uint8Array): StoredTransaction | undefined {
    const r = this.st.txByHash.get(hash) as Row | undefined;
    return r ? txFromRow(r) : undefined;
  }

  transactionsFrom(fromId: bigint, limit: number): StoredTransaction[] {
    return (this.st.txsFrom.all(fromId, limit) as Row[]).map(txFromRow);
  }

  feeSamples(fromLedger: number, soroban: boolean): bigint[] {
    return (this.st.fees.all(fromLedger, soroban ? 1 : 0) as Row[]).map((r) => r.fee as bigint);
  }

  events(query: EventQuery): StoredEvent[] { return this.eventStore.events(query); }

  close(): void {
    this.checkpointer?.close();
    if (this.db.isOpen) this.db.close();
    this.lock?.release();
  }
}

function ledgerFromRow(r: Row): LedgerRow {
  return {
    sequence: Number(r.sequence), hash: r.hash as Uint8Array, closeTime: Number(r.close_time),
    protocolVersion: Number(r.protocol_version), header: r.header as Uint8Array, meta: r.meta as Uint8Array,
  };
}

function txFromRow(r: Row): StoredTransaction {
  return {
    id: r.id as bigint, ledgerSequence: Number(r.ledger_sequence), applicationOrder: Number(r.application_order),
    hash: r.hash as Uint8Array, successful: Number(r.successful) === 1, feeBump: Number(r.fee_bump) === 1,
    envelope: r.envelope as Uint8Array, result: r.result as Uint8Array, meta: r.meta as Uint8Array,
    events: JSON.parse(String(r.events)), closeTime: Number(r.close_time),
  };
}

function* storedEntries(rows: Iterable<unknown>): Iterable<StoredEntry> {
  for (const r of rows as Iterable<Row>) {
    yield { key: r.key as Uint8Array, entry: r.entry as Uint8Array, lastModified: Number(r.last_modified) };
  }
}
