// What ingestion writes and what the RPC methods read. Methods depend only on StoreReader (and
// getLedgers, beyond the retention window, on LedgerArchive).
import type { EventFilterSpec, EventPosition, EventRow, TransactionEvents } from '../events/types.ts';

export interface LedgerRow {
  sequence: number;
  hash: Uint8Array;
  closeTime: number;           // unix seconds
  protocolVersion: number;
  header: Uint8Array;          // LedgerHeaderHistoryEntry XDR
  meta: Uint8Array;            // LedgerCloseMeta XDR
}

/**
 * Ledgers older than the store keeps, read from elsewhere (a SEP-54 datastore): what getLedgers
 * serves beyond the retention window. Read-only, and slow next to the store (files over the network).
 */
export interface LedgerArchive {
  /** For errors and logs: "datastore /data/ledgers". */
  readonly description: string;
  /**
   * The oldest ledger it holds, or undefined when it holds none: then only the store's ledgers are
   * served. An archive that cannot tell (it cannot be read now) answers ledger 2, as the reference
   * assumes, so that requests reach it and report its failure. `near` is a ledger likely held (where
   * a search may start). Resolves undefined once `signal` fires.
   */
  firstLedger(near: number, signal: AbortSignal): Promise<number | undefined>;
  /**
   * Ledgers `from` .. `from + count - 1`, in order, as the store would give them; rejects when any
   * of them cannot be read, and with the signal's reason once `signal` fires.
   */
  ledgers(from: number, count: number, signal: AbortSignal): Promise<LedgerRow[]>;
}

export interface TransactionRow {
  ledgerSequence: number;
  applicationOrder: number;    // 1-based
  hash: Uint8Array;            // outer hash
  innerHash: Uint8Array | null;// fee bumps only
  successful: boolean;
  feeBump: boolean;
  envelope: Uint8Array;
  result: Uint8Array;          // TransactionResult XDR
  meta: Uint8Array;            // TransactionMeta XDR
  events: TransactionEvents;
}

export interface StoredTransaction extends Omit<TransactionRow, 'innerHash'> {
  id: bigint;                  // toid(ledger, applicationOrder, 0)
  closeTime: number;           // of its ledger
}

export interface EntryWrite {
  key: Uint8Array;
  entry: Uint8Array | null;
  lastModified: number;
  /**
   * The version the ledger replaced, when the ledger's meta says (its first change of the key was a
   * STATE or a CREATED one): null when the key did not exist. Absent: the store reads its current
   * row instead. The entry history keeps it; the native conversion fills it in.
   */
  before?: { entry: Uint8Array; lastModified: number } | null;
}

export interface FeeSample { soroban: boolean; fee: bigint }

/** Everything one closed ledger adds to storage; written atomically. */
export interface IngestBatch {
  ledger: LedgerRow;
  transactions: TransactionRow[];
  /** Final value of every ledger entry the ledger touched; null = deleted. Keys are LedgerKey XDR. */
  entryWrites: EntryWrite[];
  feeSamples: FeeSample[];
  /**
   * LedgerCloseMetaV2.totalByteSizeOfLiveSorobanState (absent before V2): the average of the
   * network's state-size window as this ledger leaves it (see src/ingest/stateSizeWindow.ts).
   */
  liveSorobanStateSize?: bigint;
  /** The ledger's contract and system events in id order (see src/events/eventRows.ts and eventIds.ts); absent = none. */
  events?: EventRow[];
}

export interface EventQuery {
  start: EventPosition;        // inclusive
  end: EventPosition;          // exclusive
  descending: boolean;         // newest first (from `end` down) instead of oldest first
  limit: number;
  filters: readonly EventFilterSpec[];  // an event matches if any filter does; none = every event
  /** Only events of the transaction with this application order (the window must be its ledger). */
  applicationOrder?: number;
}

export interface StoredEvent {
  ledger: number;
  tx: number;
  op: number;
  index: number;
  event: Uint8Array;           // ContractEvent XDR
  txHash: Uint8Array;          // of the emitting transaction (outer hash of a fee bump)
  successful: boolean;         // the emitting transaction succeeded
  closeTime: number;           // of the ledger, unix seconds
}

export interface LedgerBound { sequence: number; closeTime: number }
export interface LedgerRange { oldest: LedgerBound; latest: LedgerBound }

export interface StoredEntry { key: Uint8Array; entry: Uint8Array; lastModified: number }

export interface StoreReader {
  /** undefined while the store holds no ledger yet. */
  ledgerRange(): LedgerRange | undefined;
  latestLedger(): LedgerRow | undefined;
  ledger(sequence: number): LedgerRow | undefined;
  /** Ledgers with sequence >= from, ascending, at most `limit`. */
  ledgers(from: number, limit: number): LedgerRow[];
  /** Current entries for the given LedgerKey XDRs; missing keys are absent from the map (keyed by base64 key). */
  entries(keys: Uint8Array[]): Map<string, StoredEntry>;
  entry(key: Uint8Array): StoredEntry | undefined;
  /**
   * The entries as they were at the end of `ledger` (keyed by base64 key; keys absent then are
   * absent), for a ledger from entryHistoryOldest() to the latest.
   */
  entriesAt(keys: Uint8Array[], ledger: number): Map<string, StoredEntry>;
  /**
   * The oldest ledger whose end state entriesAt can give: the oldest stored ledger, or a later one
   * where the history began (see src/store/sqlite/entryHistory.ts); undefined while no ledger is stored.
   */
  entryHistoryOldest(): number | undefined;
  /** Every current entry, in key order (publishing a history-archive checkpoint reads them all). */
  allEntries(): Iterable<StoredEntry>;
  /** The current entries whose LedgerEntryType is in [first, last], in key order. */
  entriesOfTypes(first: number, last: number): Iterable<StoredEntry>;
  /** The current entries whose LedgerKey XDR starts with `prefix` (say, one account's pool-share trustlines), in key order. */
  entriesWithKeyPrefix(prefix: Uint8Array): Iterable<StoredEntry>;
  transactionByHash(hash: Uint8Array): StoredTransaction | undefined;
  /** Transactions with toid >= fromId, ascending, at most `limit`. */
  transactionsFrom(fromId: bigint, limit: number): StoredTransaction[];
  /** Fee samples of ledgers >= fromLedger. */
  feeSamples(fromLedger: number, soroban: boolean): bigint[];
  metadata(key: string): string | undefined;
  /** The first `limit` events in [start, end), in the query's order, matching its filters exactly. */
  events(query: EventQuery): StoredEvent[];
}

/** Where a checkpoint's ledger state is streamed during replaceState. */
export interface StateSink {
  put(key: Uint8Array, entry: Uint8Array, lastModified: number): void;
  remove(key: Uint8Array): void;
  /** Whether the state being built holds `key` so far (the hot archive only adds what the live state lacks). */
  has(key: Uint8Array): boolean;
}

/** An entry a revert put back as it was (null: it did not exist then). */
export interface RevertedEntry { key: Uint8Array; entry: Uint8Array | null }

export interface StoreWriter {
  ingest(batch: IngestBatch, retentionWindow: number): void;
  /** Consecutive ledgers, all or nothing, in one write (a backfill's groups). */
  ingestMany(batches: readonly IngestBatch[], retentionWindow: number): void;
  /**
   * ingestMany, written a few milliseconds at a time so requests are answered in between (a ledger
   * of thousands of transactions holds the writer for hundreds of milliseconds). Reads meanwhile see
   * the ledgers stored before it; no other write may start until it resolves.
   */
  ingestManyInSlices(batches: readonly IngestBatch[], retentionWindow: number): Promise<void>;
  /**
   * Consecutive ledgers that do not follow the stored tip: the ledgers in between closed but are
   * not stored (a fast-forward past the retention window), `gapWrites` being their entry writes'
   * final values. In one transaction: those writes apply (no entry history: no ledger before the
   * batches can be read back), the batches are written as ingestMany writes them, and every ledger
   * stored before the batches goes (with its transactions, fee samples, events and entry history),
   * as the trim after the gap's ledgers would have removed it. Throws, changing nothing, when the
   * batches do not leave a gap after the tip or are not consecutive.
   */
  ingestAfterGap(gapWrites: IngestBatch['entryWrites'], batches: readonly IngestBatch[], retentionWindow: number): void;
  setMetadata(key: string, value: string): void;
  /**
   * Replaces the whole ledger state with what `fill` streams in (a history-archive checkpoint), and
   * records `ledger` as the state's ledger (metadata `stateLedger`). All or nothing: a failure or a
   * crash part way leaves the previous state. Nothing else may write while it runs.
   */
  replaceState(ledger: number, fill: (sink: StateSink) => Promise<void>): Promise<void>;
  /**
   * Takes the store back to the end of `ledger`, as if no later ledger had ever been stored: later
   * ledgers, transactions, fee samples and events go, and every ledger entry is put back as it was
   * then (from the entry history). All or nothing. Throws, changing nothing, when the entry history
   * is off, or `ledger` is below entryHistoryOldest() (its state cannot be rebuilt) or above the latest.
   * The next ledger to ingest is then `ledger + 1`. Nothing else may write while it runs. Returns
   * the entries it put back (null: deleted), for what is kept in memory about the state.
   */
  revertTo(ledger: number): RevertedEntry[];
  /**
   * A fork (src/fork/forkedState.ts): for each group whose key is not resolved yet, records the key
   * as resolved and writes the group's entries into the current state, as state from before the fork
   * (no ledger changes them: no entry history, no meta); groups already resolved are skipped. One
   * transaction. Returns the writes made.
   */
  resolveForked(groups: ReadonlyArray<{ key: Uint8Array; writes: readonly StoredEntry[] }>): StoredEntry[];
  /** Whether resolveForked has recorded `key`. */
  forkResolved(key: Uint8Array): boolean;
}

export interface Store extends StoreReader, StoreWriter {
  close(): void;
}
