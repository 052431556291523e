// Versioned schema. Each step runs once, in order, inside a transaction; `PRAGMA user_version`
// records how far a database has come. Never edit a shipped step: add a new one.
export const migrations: readonly string[] = [
  // 1: ledgers, transactions, current ledger state, fee samples
  `
  CREATE TABLE ledgers (
    sequence INTEGER PRIMARY KEY,
    hash BLOB NOT NULL,
    close_time INTEGER NOT NULL,
    protocol_version INTEGER NOT NULL,
    header BLOB NOT NULL,      -- LedgerHeaderHistoryEntry XDR
    meta BLOB NOT NULL         -- the whole LedgerCloseMeta XDR, as the source produced it
  );
  CREATE TABLE transactions (
    id INTEGER PRIMARY KEY,    -- toid(ledger, applicationOrder, 0) = ledger<<32 | applicationOrder<<12
    ledger_sequence INTEGER NOT NULL,
    application_order INTEGER NOT NULL,
    hash BLOB NOT NULL,        -- TransactionResultPair.transactionHash (outer hash of a fee bump)
    successful INTEGER NOT NULL,
    fee_bump INTEGER NOT NULL,
    envelope BLOB NOT NULL,    -- TransactionEnvelope XDR
    result BLOB NOT NULL,      -- TransactionResult XDR
    meta BLOB NOT NULL,        -- TransactionMeta XDR
    events TEXT NOT NULL       -- JSON {transactionEventsXdr, contractEventsXdr, diagnosticEventsXdr}, base64, cut at ingest
  );
  CREATE TABLE transaction_hashes (
    hash BLOB PRIMARY KEY,     -- outer hash, and the inner hash of a fee bump
    transaction_id INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX transaction_hashes_by_transaction ON transaction_hashes(transaction_id);
  CREATE TABLE ledger_entries (
    key BLOB PRIMARY KEY,      -- LedgerKey XDR
    entry BLOB NOT NULL,       -- LedgerEntry XDR
    last_modified INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE fee_samples (
    ledger_sequence INTEGER NOT NULL,
    soroban INTEGER NOT NULL,  -- 1: inclusion fee of a Soroban tx; 0: classic fee per operation
    fee INTEGER NOT NULL
  );
  CREATE INDEX fee_samples_by_ledger ON fee_samples(ledger_sequence, soroban);
  CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
];
