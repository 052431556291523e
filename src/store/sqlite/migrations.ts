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
  // 2: contract/system events for getEvents (src/store/sqlite/eventStore.ts). Rows are keyed by
  // ledger * 2^21 + the event's position in its ledger's id order, so key order is id order. Each
  // event is indexed under a few terms (contract id, topic 1..4 at their positions, type, topic
  // count); event_terms holds, per segment of 128 ledgers and term, where in the segment's ledgers
  // the events carrying the term are. Rows are written once, when their segment is complete.
  `
  CREATE TABLE events (
    key INTEGER PRIMARY KEY,        -- ledger * 2097152 + position in the ledger (id order)
    cursor_tx INTEGER NOT NULL,     -- the id's transaction field (0 / 1048575 for ledger-level stages)
    cursor_op INTEGER NOT NULL,     -- the id's operation field (4095 for AFTER_TX)
    event_index INTEGER NOT NULL,   -- the id's event index
    application_order INTEGER NOT NULL, -- the emitting transaction (joins transactions for hash and success)
    event BLOB NOT NULL             -- ContractEvent XDR
  );
  CREATE TABLE event_terms (
    segment INTEGER NOT NULL,       -- ledger / 128
    term INTEGER NOT NULL,          -- 47-bit hash of (kind, value) or a small constant (type, topic count)
    postings BLOB NOT NULL,         -- per ledger of the segment holding the term: ledger, positions (LEB128)
    PRIMARY KEY (segment, term)
  ) WITHOUT ROWID;
  `,
  // 3: ledger entries as they were at past ledgers (src/store/sqlite/entryHistory.ts). Before a
  // ledger's writes replace or delete a key's current row in ledger_entries, that row is kept here
  // under id = (the last ledger it was current at) * 2^24 + the write's position in the ledger; a key
  // created by the ledger gets a row with a NULL entry (it did not exist until then). A database
  // that had ledgers before this step starts its history at its latest ledger (or its checkpoint's).
  `
  CREATE TABLE ledger_entry_history (
    id INTEGER PRIMARY KEY,    -- (ledger at whose end this version was last current) * 16777216 + position
    key BLOB NOT NULL,         -- LedgerKey XDR
    entry BLOB,                -- LedgerEntry XDR; NULL: the key did not exist
    last_modified INTEGER      -- of that version (NULL with a NULL entry)
  );
  CREATE INDEX ledger_entry_history_by_key ON ledger_entry_history(key);
  INSERT INTO metadata (key, value)
    SELECT 'entryHistoryFrom', CAST(MAX(
      COALESCE((SELECT MAX(sequence) FROM ledgers), 0),
      COALESCE((SELECT CAST(value AS INTEGER) FROM metadata WHERE key = 'stateLedger'), 0)) AS TEXT)
    WHERE EXISTS (SELECT 1 FROM ledgers) OR EXISTS (SELECT 1 FROM metadata WHERE key = 'stateLedger');
  `,
  // 4: the history's index on a hash of the key instead of the key (an index entry of 8 bytes
  // instead of 40 to 150 is about half the ingest cost: every change inserts at a random place of
  // it). The rows step 3's layout kept are dropped; the history starts again at the latest ledger
  // (at the checkpoint, when that is later).
  `
  DROP TABLE ledger_entry_history;
  CREATE TABLE ledger_entry_history (
    id INTEGER PRIMARY KEY,    -- (ledger at whose end this version was last current) * 16777216 + position
    key_hash INTEGER NOT NULL, -- 47-bit hash of the key (collisions are told apart by key)
    key BLOB NOT NULL,         -- LedgerKey XDR
    entry BLOB,                -- LedgerEntry XDR; NULL: the key did not exist
    last_modified INTEGER      -- of that version (NULL with a NULL entry)
  );
  CREATE INDEX ledger_entry_history_by_key_hash ON ledger_entry_history(key_hash);
  UPDATE metadata SET value = CAST(MAX(CAST(value AS INTEGER), COALESCE((SELECT MAX(sequence) FROM ledgers), 0)) AS TEXT)
    WHERE key = 'entryHistoryFrom';
  `,
  // 5: a fork's resolved keys (src/fork/forkedState.ts): every ledger key the fork has asked the
  // forked network for (found or not), so the cache of fetched entries survives a restart and a key
  // is never fetched twice. Empty on every other network.
  `
  CREATE TABLE IF NOT EXISTS fork_resolved (
    key BLOB PRIMARY KEY       -- LedgerKey XDR
  ) WITHOUT ROWID;
  `,
  // 6: the history as a few rows per ledger instead of one per change (src/store/sqlite/entryHistory.ts):
  // each ledger's replaced versions packed in up to 16 rows, and per 128-ledger segment which ledgers
  // wrote each key. The rows step 4's layout kept are dropped; the history starts again at the latest
  // ledger (at the checkpoint, when that is later).
  `
  DROP TABLE ledger_entry_history;
  CREATE TABLE entry_history_images (
    id INTEGER PRIMARY KEY,    -- ledger * 16 + image bucket (of the key hash)
    images BLOB NOT NULL       -- the versions the ledger's writes replaced (entryHistoryBlobs.ts)
  );
  CREATE TABLE entry_history_writers (
    bucket INTEGER NOT NULL,   -- key hash % 256
    segment INTEGER NOT NULL,  -- ledger / 128
    writers BLOB NOT NULL,     -- per key hash of the bucket, a bitmap of the segment's ledgers that wrote it
    PRIMARY KEY (bucket, segment)
  ) WITHOUT ROWID;
  UPDATE metadata SET value = CAST(MAX(CAST(value AS INTEGER), COALESCE((SELECT MAX(sequence) FROM ledgers), 0)) AS TEXT)
    WHERE key = 'entryHistoryFrom';
  `,
  // 7: a big ledger's meta in parts of 1 MiB (src/store/sqlite/sqliteStore.ts): inserting 18 MB as one
  // value held the writer for up to 100 ms in one statement, which no slicing can split. Ledgers
  // stored before keep their meta in ledgers.meta (meta_parts 0).
  `
  ALTER TABLE ledgers ADD COLUMN meta_parts INTEGER NOT NULL DEFAULT 0;  -- 0: the meta is ledgers.meta
  CREATE TABLE ledger_meta_parts (
    id INTEGER PRIMARY KEY,    -- ledger * 4096 + part (the ledger's meta is its parts in id order)
    bytes BLOB NOT NULL
  );
  `,
];
