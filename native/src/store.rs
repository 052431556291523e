//! Ledger state for the host, read straight from the node's SQLite database.
//!
//! The node writes `ledger_entries` (LedgerKey XDR -> LedgerEntry XDR; TTLs are ordinary rows keyed
//! by the TTL LedgerKey) and `ledgers` in one transaction per closed ledger. A [`Snapshot`] holds a
//! read-only connection inside one read transaction, so every read of one simulation (the latest
//! ledger header, the network configuration and every entry the host asks for) sees the same
//! committed ledger.
//!
//! Entries leave here as XDR bytes: each host line decodes them into its own XDR types (its
//! `SnapshotSource` lives in `simulate/storage.rs`). Only the ledger header is decoded here, with
//! the current line's types: its layout is the same at both protocols, and its protocol version is
//! what picks the line.
//!
//! These reads go through the SQLite library inside Node (node:sqlite's), never a copy of our own.
//! SQLite coordinates the connections of one process through state private to each copy of the
//! library (POSIX locks do not separate threads of one process): a second copy in the process sees
//! none of the first's locks, so on its first use of the WAL index it takes itself for the only
//! user and truncates the index under the writer (a Bus error, or a lost commit), and the writer's
//! checkpoints overwrite pages our readers still use. So the addon is also a SQLite loadable
//! extension: Node loads it into one node:sqlite connection (src/host/native.ts), SQLite hands
//! [`sqlite3_lumennative_init`] its API table, and every rusqlite call goes through that table.

use anyhow::{bail, Context, Result};
use rusqlite::{ffi, Connection, OpenFlags, OptionalExtension};
use stellar_xdr::{LedgerHeaderHistoryEntry, Limits, ReadXdr};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Set once SQLite has handed us its API table.
static SQLITE_ATTACHED: AtomicBool = AtomicBool::new(false);

/// The entry point SQLite calls when a connection loads this library as an extension. Only the API
/// table is kept; the connection itself is the caller's.
///
/// # Safety
/// Called by SQLite's extension loader with its own API table.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_lumennative_init(
    _db: *mut ffi::sqlite3,
    _pz_err_msg: *mut *mut c_char,
    p_api: *mut ffi::sqlite3_api_routines,
) -> c_int {
    if p_api.is_null() {
        return ffi::SQLITE_ERROR;
    }
    match ffi::rusqlite_extension_init2(p_api) {
        Ok(()) => {
            SQLITE_ATTACHED.store(true, Ordering::Release);
            // the library is Node's addon too: SQLite must not unload it with this connection
            ffi::SQLITE_OK_LOAD_PERMANENTLY
        }
        Err(_) => ffi::SQLITE_ERROR,
    }
}

/// Idle connections kept per database path.
const MAX_IDLE_PER_PATH: usize = 16;

static POOL: Mutex<Option<HashMap<String, Vec<Connection>>>> = Mutex::new(None);

fn take_connection(path: &str) -> Result<Connection> {
    if !SQLITE_ATTACHED.load(Ordering::Acquire) {
        bail!("the addon has no SQLite library: load it through src/host/native.ts, which hands it node:sqlite's");
    }
    if let Some(conn) = POOL
        .lock()
        .ok()
        .and_then(|mut p| p.get_or_insert_with(HashMap::new).get_mut(path).and_then(Vec::pop))
    {
        return Ok(conn);
    }
    if !std::path::Path::new(path).exists() {
        bail!("database {path} does not exist");
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("cannot open database {path}"))?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(8);
    Ok(conn)
}

fn return_connection(path: &str, conn: Connection) {
    if let Ok(mut pool) = POOL.lock() {
        let idle = pool.get_or_insert_with(HashMap::new).entry(path.to_string()).or_default();
        if idle.len() < MAX_IDLE_PER_PATH {
            idle.push(conn);
        }
    }
}

/// Drops every idle connection (all paths, or one). Open snapshots are unaffected.
pub fn close_idle(path: Option<&str>) {
    if let Ok(mut pool) = POOL.lock() {
        match (pool.as_mut(), path) {
            (Some(p), Some(path)) => {
                p.remove(path);
            }
            (Some(p), None) => p.clear(),
            (None, _) => {}
        }
    }
}

/// The latest closed ledger as stored in `ledgers`.
#[derive(Clone, Debug)]
pub struct StoredLedger {
    /// The header's hash: identifies the ledger across databases recreated at the same path.
    pub hash: [u8; 32],
    pub sequence: u32,
    pub close_time: u64,
    pub protocol_version: u32,
    pub base_reserve: u32,
}

pub struct Snapshot {
    path: String,
    conn: Option<Connection>,
    /// The first storage failure; it explains a host error better than the host's own text.
    storage_error: RefCell<Option<anyhow::Error>>,
    /// A storage read failed: the connection is not pooled again (the error itself may be taken).
    failed: Cell<bool>,
    /// Every LedgerKey XDR simulation asked for, in order, once each (a fork resolves them: src/fork/).
    reads: RefCell<Vec<Vec<u8>>>,
}

impl Snapshot {
    /// Opens (or reuses) a read-only connection and starts the read transaction.
    pub fn open(path: &str) -> Result<Self> {
        let conn = take_connection(path)?;
        if !conn.is_autocommit() {
            conn.execute_batch("ROLLBACK")?;
        }
        conn.execute_batch("BEGIN DEFERRED")?;
        Ok(Self {
            path: path.to_string(),
            conn: Some(conn),
            storage_error: RefCell::new(None),
            failed: Cell::new(false),
            reads: RefCell::new(Vec::new()),
        })
    }

    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("connection present until drop")
    }

    /// The newest row of `ledgers`, read inside this snapshot (None for an empty database).
    pub fn latest_ledger(&self) -> Result<Option<StoredLedger>> {
        let row: Option<(i64, Vec<u8>)> = self
            .conn()
            .prepare_cached("SELECT sequence, header FROM ledgers ORDER BY sequence DESC LIMIT 1")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((sequence, header)) = row else { return Ok(None) };
        let entry = LedgerHeaderHistoryEntry::from_xdr(header, Limits::none())
            .with_context(|| format!("cannot decode the header of ledger {sequence}"))?;
        Ok(Some(StoredLedger {
            hash: entry.hash.0,
            sequence: entry.header.ledger_seq,
            close_time: entry.header.scp_value.close_time.0,
            protocol_version: entry.header.ledger_version,
            base_reserve: entry.header.base_reserve,
        }))
    }

    /// The stored LedgerEntry XDR under a LedgerKey XDR (TTLs are entries under their TTL key).
    pub fn entry_xdr(&self, key_xdr: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self
            .conn()
            .prepare_cached("SELECT entry FROM ledger_entries WHERE key = ?1")?
            .query_row([key_xdr], |r| r.get(0))
            .optional()?)
    }

    /// Keeps the first storage failure of a simulation: the host only sees a generic storage
    /// error, and this one says what went wrong.
    pub fn record_storage_error(&self, e: anyhow::Error) {
        self.failed.set(true);
        if let Ok(mut slot) = self.storage_error.try_borrow_mut() {
            if slot.is_none() {
                *slot = Some(e);
            }
        }
    }

    /// Notes a key simulation asked for (found or not).
    pub fn record_read(&self, key_xdr: &[u8]) {
        if let Ok(mut reads) = self.reads.try_borrow_mut() {
            if !reads.iter().any(|k| k.as_slice() == key_xdr) {
                reads.push(key_xdr.to_vec());
            }
        }
    }

    /// The keys simulation asked for so far.
    pub fn take_reads(&self) -> Vec<Vec<u8>> {
        std::mem::take(&mut *self.reads.borrow_mut())
    }

    /// The storage failure seen during the simulation, if any.
    pub fn take_storage_error(&self) -> Option<anyhow::Error> {
        self.storage_error.borrow_mut().take()
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if conn.execute_batch("ROLLBACK").is_ok() && !self.failed.get() {
                return_connection(&self.path, conn);
            }
        }
    }
}
