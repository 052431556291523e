// What ingestion writes and what the RPC methods read. Methods depend only on StoreReader.

export interface LedgerRow {
  sequence: number;
  hash: Uint8Array;
  closeTime: number;           // unix seconds
  protocolVersion: number;
  header: Uint8Array;          // LedgerHeaderHistoryEntry XDR
  meta: Uint8Array;            // LedgerCloseMeta XDR
}

export interface TransactionEvents {
  transactionEventsXdr: string[];
  contractEventsXdr: string[][];
  diagnosticEventsXdr: string[];
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

export interface FeeSample { soroban: boolean; fee: bigint }

/** Everything one closed ledger adds to storage; written atomically. */
export interface IngestBatch {
  ledger: LedgerRow;
  transactions: TransactionRow[];
  /** Final value of every ledger entry the ledger touched; null = deleted. Keys are LedgerKey XDR. */
  entryWrites: Array<{ key: Uint8Array; entry: Uint8Array | null; lastModified: number }>;
  feeSamples: FeeSample[];
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
  transactionByHash(hash: Uint8Array): StoredTransaction | undefined;
  /** Transactions with toid >= fromId, ascending, at most `limit`. */
  transactionsFrom(fromId: bigint, limit: number): StoredTransaction[];
  /** Fee samples of ledgers >= fromLedger. */
  feeSamples(fromLedger: number, soroban: boolean): bigint[];
  metadata(key: string): string | undefined;
}

export interface StoreWriter {
  ingest(batch: IngestBatch, retentionWindow: number): void;
  setMetadata(key: string, value: string): void;
}

export interface Store extends StoreReader, StoreWriter {
  close(): void;
}
