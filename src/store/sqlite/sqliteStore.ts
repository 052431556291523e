// SQLite storage on Node's built-in binding (node:sqlite). Every ledger is written in a single
// transaction so a crash leaves either the whole ledger or none of it. A file database has two
// connections: the writer's, and one every read goes through, which sees the last committed state
// (WAL). So a write may run in slices with requests answered in between (ingestManyInSlices), and
// those requests never see half a ledger. An in-memory database is private to its one connection.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { migrations } from './migrations.ts';
import { EventStore } from './eventStore.ts';
import { BatchInsert } from './batchInsert.ts';
import { EntryHistory } from './entryHistory.ts';
import { DatabaseLock, isFileDatabase } from './databaseLock.ts';
import { WalCheckpointer } from './walCheckpointer.ts';
import { runSteps, SlicedWork } from '../../work/slicedWork.ts';

/** The log size (16 KiB pages: 256 MiB) at which SQLite checkpoints in the writer's COMMIT itself. */
const BACKSTOP_CHECKPOINT_PAGES = 16_384;
import { ledgerEventsFromMeta } from '../../events/metaEvents.ts';
import type {
  EventQuery, IngestBatch, LedgerRange, LedgerRow, RevertedEntry, StateSink, Store, StoredEntry, StoredEvent, StoredTransaction, TransactionRow,
} from '../types.ts';
import { toBase64 } from '../../xdr/codec.ts';
import { toid } from '../../ids/toid.ts';

/** Rows of one kind written between two steps of a ledger's write (see ingestManyInSlices). */
const STEP_ROWS = 128;
/** Rows a trim deletes between two steps (of transactions and their hashes). */
const TRIM_ROWS = 512;
/** A meta longer than this is stored in parts of this size (migrations.ts step 7), one per step. */
const META_PART_BYTES = 1 << 20;
/** Part ids per ledger in ledger_meta_parts. */
const META_PART_SPAN = 4096;

/** The schema version that added the events tables (migrations.ts step 2). */
const EVENTS_MIGRATION = 2;

/** A transaction row's id: its TOID with operation 0. */
const transactionId = (ledger: number, applicationOrder: number): bigint => toid(ledger, applicationOrder, 0);

type Row = Record<string, unknown>;

export class SqliteStore implements Store {
  /** The writer's connection; its statements (st) are the writes and the reads made while writing. */
  private readonly db: DatabaseSync;
  private readonly st: Record<string, StatementSync>;
  /** The readers' connection (the writer's own for an in-memory database) and its statements. */
  private readonly reader: DatabaseSync;
  private readonly rd: Record<string, StatementSync>;
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
    let openedReader: DatabaseSync | undefined;
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
      // opened once the schema is current: its statements are prepared against it
      this.reader = isFileDatabase(path) ? (openedReader = new DatabaseSync(path, { readOnly: true })) : this.db;
      if (this.reader !== this.db) this.reader.exec('PRAGMA busy_timeout = 5000');
      this.eventStore = new EventStore(this.db, this.reader);
      this.history = new EntryHistory(this.db, this.reader, options.entryHistory ?? true);
      const p = (sql: string) => this.db.prepare(sql);
      const r = (sql: string) => this.reader.prepare(sql);
      this.insertTxs = new BatchInsert(this.db,
        'INSERT INTO transactions (id, ledger_sequence, application_order, hash, successful, fee_bump, envelope, result, meta, events)', 10);
      this.insertTxHashes = new BatchInsert(this.db, 'INSERT OR REPLACE INTO transaction_hashes (hash, transaction_id)', 2);
      this.upsertEntries = new BatchInsert(this.db, (values) => `INSERT INTO ledger_entries (key, entry, last_modified) ${values}
        ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, last_modified = excluded.last_modified`, 3);
      this.insertFees = new BatchInsert(this.db, 'INSERT INTO fee_samples (ledger_sequence, soroban, fee)', 3);
      this.st = {
        insertLedger: p('INSERT INTO ledgers (sequence, hash, close_time, protocol_version, header, meta, meta_parts) VALUES (?, ?, ?, ?, ?, ?, ?)'),
        insertMetaPart: p('INSERT INTO ledger_meta_parts (id, bytes) VALUES (?, ?)'),
        metaParts: p('SELECT bytes FROM ledger_meta_parts WHERE id >= ? AND id < ? ORDER BY id'),
        trimMetaParts: p('DELETE FROM ledger_meta_parts WHERE id < ?'),
        dropMetaPartsFrom: p('DELETE FROM ledger_meta_parts WHERE id >= ?'),
        upsertEntry: p('INSERT INTO ledger_entries (key, entry, last_modified) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, last_modified = excluded.last_modified'),
        deleteEntry: p('DELETE FROM ledger_entries WHERE key = ?'),
        trimLedgers: p('DELETE FROM ledgers WHERE sequence < ?'),
        // TRIM_ROWS at a time: the hashes are spread over the whole table, so a ledger's 6,000 of them
        // are 6,000 page visits (50 ms), too long for one step of a sliced write
        trimTxs: p(`DELETE FROM transactions WHERE id IN (SELECT id FROM transactions WHERE id < ? ORDER BY id LIMIT ${TRIM_ROWS})`),
        trimTxHashes: p(`DELETE FROM transaction_hashes WHERE hash IN
                         (SELECT hash FROM transaction_hashes WHERE transaction_id < ? LIMIT ${TRIM_ROWS})`),
        trimFees: p('DELETE FROM fee_samples WHERE ledger_sequence < ?'),
        dropLedgersAfter: p('DELETE FROM ledgers WHERE sequence > ?'),
        dropTxsFrom: p('DELETE FROM transactions WHERE id >= ?'),
        dropTxHashesFrom: p('DELETE FROM transaction_hashes WHERE transaction_id >= ?'),
        dropFeesAfter: p('DELETE FROM fee_samples WHERE ledger_sequence > ?'),
        oldest: p('SELECT sequence, close_time FROM ledgers ORDER BY sequence ASC LIMIT 1'),
        newest: p('SELECT * FROM ledgers ORDER BY sequence DESC LIMIT 1'),
        entry: p('SELECT key, entry, last_modified FROM ledger_entries WHERE key = ?'),
        clearEntries: p('DELETE FROM ledger_entries'),
        insertForkResolved: p('INSERT OR IGNORE INTO fork_resolved (key) VALUES (?)'),
        setMeta: p('INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      };
      this.rd = {
        ledger: r('SELECT * FROM ledgers WHERE sequence = ?'),
        ledgersFrom: r('SELECT * FROM ledgers WHERE sequence >= ? ORDER BY sequence LIMIT ?'),
        metaParts: r('SELECT bytes FROM ledger_meta_parts WHERE id >= ? AND id < ? ORDER BY id'),
        entry: r('SELECT key, entry, last_modified FROM ledger_entries WHERE key = ?'),
        allEntries: r('SELECT key, entry, last_modified FROM ledger_entries ORDER BY key'),
        entriesInKeyRange: r('SELECT key, entry, last_modified FROM ledger_entries WHERE key >= ? AND key < ? ORDER BY key'),
        entriesFromKey: r('SELECT key, entry, last_modified FROM ledger_entries WHERE key >= ? ORDER BY key'),
        txByHash: r(`SELECT t.*, l.close_time FROM transaction_hashes h JOIN transactions t ON t.id = h.transaction_id
                     JOIN ledgers l ON l.sequence = t.ledger_sequence WHERE h.hash = ?`),
        txsFrom: r(`SELECT t.*, l.close_time FROM transactions t JOIN ledgers l ON l.sequence = t.ledger_sequence
                    WHERE t.id >= ? ORDER BY t.id LIMIT ?`),
        fees: r('SELECT fee FROM fee_samples WHERE ledger_sequence >= ? AND soroban = ?'),
        getMeta: r('SELECT value FROM metadata WHERE key = ?'),
        forkResolved: r('SELECT 1 FROM fork_resolved WHERE key = ?'),
      };
      this.rd.txByHash.setReadBigInts(true);
      this.rd.txsFrom.setReadBigInts(true);
      this.rd.fees.setReadBigInts(true);
      if (versionBefore >= 1 && versionBefore < EVENTS_MIGRATION) this.backfillEvents();
      this.refreshRange();
      this.eventStore.load(this.latest?.sequence);
    } catch (e) {
      if (openedReader?.isOpen) openedReader.close();
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

  /** Runs `fn` as one write transaction (see transaction()). */
  private writeTransaction(fn: () => void): void {
    runSteps(this.transaction((function* () { fn(); })()));
  }

  /**
   * `steps` as one write transaction: on failure nothing of it stays, in SQLite or in the memory of
   * the event index and the entry history. Refused while another is open (a sliced ingest).
   */
  private *transaction<T>(steps: Generator<void, T>): Generator<void, T> {
    this.refuseWhileWriting();
    this.db.exec('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = yield* steps;
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.isOpen && this.db.isTransaction) this.db.exec('ROLLBACK');
      for (const b of [this.insertTxs, this.insertTxHashes, this.upsertEntries, this.insertFees]) b.clear();
      this.eventStore.rolledBack();
      this.history.rolledBack();
      throw e;
    }
    this.eventStore.committed();
    this.history.committed();
    this.checkpointer?.committed();
    return result;
  }

  /** A write transaction is open (a sliced ingest between its slices): a second one must wait its turn. */
  private refuseWhileWriting(): void {
    if (this.db.isTransaction) throw new Error('the store is already writing: one write at a time');
  }

  private refreshRange(): void {
    const newest = this.st.newest.get() as Row | undefined;
    const oldest = this.st.oldest.get() as Row | undefined;
    this.latest = newest ? this.ledgerFromRow(newest, this.st) : undefined;
    this.range = newest && oldest ? {
      oldest: { sequence: Number(oldest.sequence), closeTime: Number(oldest.close_time) },
      latest: { sequence: Number(newest.sequence), closeTime: Number(newest.close_time) },
    } : undefined;
  }

  ingest(batch: IngestBatch, retentionWindow: number): void { this.ingestMany([batch], retentionWindow); }

  /** Consecutive ledgers in one transaction: a backfill pays one commit per group, not per ledger. */
  ingestMany(batches: readonly IngestBatch[], retentionWindow: number): void {
    runSteps(this.ingestSteps(batches, retentionWindow));
  }

  /**
   * ingestMany in slices (SlicedWork) with the event loop turning between them: a 6,000-transaction
   * ledger is 200-300 ms of SQLite work on the main thread, which every request would otherwise
   * wait behind. Reads go through the other connection meanwhile, so they see the ledgers stored
   * before, whole; all of `batches` appear at once when it resolves. An in-memory database is
   * written in one go, as its reads share the writer's connection.
   */
  async ingestManyInSlices(batches: readonly IngestBatch[], retentionWindow: number): Promise<void> {
    const steps = this.ingestSteps(batches, retentionWindow);
    if (this.reader === this.db) runSteps(steps);
    else await new SlicedWork(() => false).run(steps);
  }

  private *ingestSteps(batches: readonly IngestBatch[], retentionWindow: number): Generator<void, void> {
    if (batches.length === 0) return;
    let expected = this.latest ? this.latest.sequence + 1 : batches[0].ledger.sequence;
    for (const { ledger } of batches) {
      if (ledger.sequence !== expected) {
        throw new Error(`ledger ${ledger.sequence} does not follow the stored ledger ${expected - 1}`);
      }
      expected++;
    }
    yield* this.transaction(this.ledgersAndTrimSteps(batches, retentionWindow));
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
      for (const batch of batches) runSteps(this.ledgerSteps(batch));
      runSteps(this.trimSteps(Math.max(first, batches[batches.length - 1].ledger.sequence + 1 - retentionWindow)));
    });
    this.ingested(batches);
  }

  private *ledgersAndTrimSteps(batches: readonly IngestBatch[], retentionWindow: number): Generator<void, void> {
    for (const batch of batches) yield* this.ledgerSteps(batch);
    yield* this.trimSteps(batches[batches.length - 1].ledger.sequence + 1 - retentionWindow);
  }

  /** Removes every ledger below `cutoff` with what belongs to it (the retention window's trim). */
  private *trimSteps(cutoff: number): Generator<void, void> {
    if (cutoff <= 1) return;
    const cutoffId = transactionId(cutoff, 0);
    this.st.trimLedgers.run(cutoff);
    this.st.trimMetaParts.run(cutoff * META_PART_SPAN);
    yield;
    while (Number(this.st.trimTxs.run(cutoffId).changes) === TRIM_ROWS) yield;
    yield;
    while (Number(this.st.trimTxHashes.run(cutoffId).changes) === TRIM_ROWS) yield;
    this.st.trimFees.run(cutoff);
    yield;
    this.eventStore.trim(cutoff);
    yield;
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

  /** One ledger's rows, a step at a time (inside the ingest transaction). */
  private *ledgerSteps(batch: IngestBatch): Generator<void, void> {
    const { ledger } = batch;
    yield* this.ledgerRowSteps(ledger);
    const txs = batch.transactions;
    for (let i = 0; i < txs.length; i++) {
      this.insertTransaction(txs[i]);
      if ((i + 1) % STEP_ROWS === 0) yield;
    }
    this.insertTxs.flush();
    this.insertTxHashes.flush();
    yield;
    // the versions the writes replace are read before the writes
    yield* this.history.beforeWriteSteps(batch);
    yield;
    yield* this.entrySteps(batch.entryWrites);
    for (const f of batch.feeSamples) this.insertFees.add(ledger.sequence, f.soroban ? 1 : 0, f.fee);
    this.insertFees.flush();
    yield;
    yield* this.eventStore.writeSteps(ledger.sequence, batch.events ?? []);
  }

  /** The ledgers row; a meta over META_PART_BYTES goes in parts, one per step. */
  private *ledgerRowSteps(ledger: LedgerRow): Generator<void, void> {
    const { meta } = ledger;
    const parts = meta.length > META_PART_BYTES ? Math.ceil(meta.length / META_PART_BYTES) : 0;
    if (parts > META_PART_SPAN) throw new Error(`ledger ${ledger.sequence}: its meta of ${meta.length} bytes is more than this store keeps`);
    this.st.insertLedger.run(ledger.sequence, ledger.hash, ledger.closeTime, ledger.protocolVersion, ledger.header,
      parts ? new Uint8Array(0) : meta, parts);
    yield;
    for (let i = 0; i < parts; i++) {
      this.st.insertMetaPart.run(ledger.sequence * META_PART_SPAN + i, meta.subarray(i * META_PART_BYTES, (i + 1) * META_PART_BYTES));
      yield;
    }
  }

  /** Entries' final values (one write per key): upserts in multi-row statements, deletes one by one. */
  private writeEntries(writes: IngestBatch['entryWrites']): void { runSteps(this.entrySteps(writes)); }

  private *entrySteps(writes: IngestBatch['entryWrites']): Generator<void, void> {
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i];
      if (w.entry) this.upsertEntries.add(w.key, w.entry, w.lastModified);
      else this.st.deleteEntry.run(w.key);
      if ((i + 1) % STEP_ROWS === 0) yield;
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
    const r = this.rd.getMeta.get(key) as Row | undefined;
    return r ? String(r.value) : undefined;
  }

  async replaceState(ledger: number, fill: (sink: StateSink) => Promise<void>): Promise<void> {
    // One transaction across the awaits: the store's reads and the native host's own connections
    // keep seeing the previous state until COMMIT, and a crash leaves it. (An in-memory database's
    // reads share this connection and see the state being built; it has no ledgers then, and the
    // RPC methods answer "no ledger".) The caller guarantees no ledger is ingested meanwhile.
    this.refuseWhileWriting();
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
        this.st.dropMetaPartsFrom.run((ledger + 1) * META_PART_SPAN);
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
    this.refuseWhileWriting();
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

  forkResolved(key: Uint8Array): boolean { return this.rd.forkResolved.get(key) !== undefined; }

  allEntries(): Iterable<StoredEntry> { return storedEntries(this.rd.allEntries.iterate()); }

  entriesOfTypes(first: number, last: number): Iterable<StoredEntry> {
    // a LedgerKey's XDR starts with its type (big-endian u32), so one type range is one key range
    const bound = (type: number) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, type); return b; };
    return storedEntries(this.rd.entriesInKeyRange.iterate(bound(first), bound(last + 1)));
  }

  entriesWithKeyPrefix(prefix: Uint8Array): Iterable<StoredEntry> {
    // keys starting with the prefix sort from the prefix itself up to (not including) the next
    // prefix of the same length; a prefix of only 0xff bytes has no such bound and runs to the end
    const upper = Uint8Array.from(prefix);
    let i = upper.length - 1;
    while (i >= 0 && upper[i] === 0xff) i--;
    if (i < 0) return storedEntries(this.rd.entriesFromKey.iterate(prefix));
    upper[i]++;
    return storedEntries(this.rd.entriesInKeyRange.iterate(prefix, upper.subarray(0, i + 1)));
  }

  ledgerRange(): LedgerRange | undefined { return this.range; }

  entryHistoryOldest(): number | undefined {
    const from = this.history.from();
    return this.range && from !== undefined ? Math.max(from, this.range.oldest.sequence) : undefined;
  }

  entriesAt(keys: Uint8Array[], ledger: number): Map<string, StoredEntry> { return this.history.entriesAt(keys, ledger); }
  latestLedger(): LedgerRow | undefined { return this.latest; }

  ledger(sequence: number): LedgerRow | undefined {
    const r = this.rd.ledger.get(sequence) as Row | undefined;
    return r ? this.ledgerFromRow(r, this.rd) : undefined;
  }

  ledgers(from: number, limit: number): LedgerRow[] {
    return (this.rd.ledgersFrom.all(from, limit) as Row[]).map((r) => this.ledgerFromRow(r, this.rd));
  }

  entry(key: Uint8Array): StoredEntry | undefined {
    const r = this.rd.entry.get(key) as Row | undefined;
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
    const r = this.rd.txByHash.get(hash) as Row | undefined;
    return r ? txFromRow(r) : undefined;
  }

  transactionsFrom(fromId: bigint, limit: number): StoredTransaction[] {
    return (this.rd.txsFrom.all(fromId, limit) as Row[]).map(txFromRow);
  }

  feeSamples(fromLedger: number, soroban: boolean): bigint[] {
    return (this.rd.fees.all(fromLedger, soroban ? 1 : 0) as Row[]).map((r) => r.fee as bigint);
  }

  events(query: EventQuery): StoredEvent[] { return this.eventStore.events(query); }

  /** A ledgers row as a LedgerRow, its meta put together from its parts (read with `statements`'s connection). */
  private ledgerFromRow(r: Row, statements: Record<string, StatementSync>): LedgerRow {
    const parts = Number(r.meta_parts ?? 0);
    if (parts === 0) return ledgerRow(r, r.meta as Uint8Array);
    const id = Number(r.sequence) * META_PART_SPAN;
    const chunks = (statements.metaParts.all(id, id + parts) as Row[]).map((p) => p.bytes as Uint8Array);
    if (chunks.length !== parts) throw new Error(`ledger ${r.sequence}: ${chunks.length} of its ${parts} meta parts are stored`);
    const meta = Buffer.concat(chunks);
    return ledgerRow(r, new Uint8Array(meta.buffer, meta.byteOffset, meta.byteLength));
  }

  close(): void {
    this.checkpointer?.close();
    if (this.reader !== this.db && this.reader.isOpen) this.reader.close();
    if (this.db.isOpen) this.db.close();
    this.lock?.release();
  }
}

function ledgerRow(r: Row, meta: Uint8Array): LedgerRow {
  return {
    sequence: Number(r.sequence), hash: r.hash as Uint8Array, closeTime: Number(r.close_time),
    protocolVersion: Number(r.protocol_version), header: r.header as Uint8Array, meta,
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
