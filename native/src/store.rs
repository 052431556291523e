//! Ledger state for the host, read straight from the node's SQLite database.
//!
//! The node writes `ledger_entries` (LedgerKey XDR -> LedgerEntry XDR; TTLs are ordinary rows keyed
//! by the TTL LedgerKey) and `ledgers` in one transaction per closed ledger. A [`Snapshot`] holds a
//! read-only connection inside one read transaction, so every read of one simulation (the latest
//! ledger header, the network configuration and every entry the host asks for) sees the same
//! committed ledger.

use anyhow::{anyhow, bail, Context, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use sha2::{Digest, Sha256};
use soroban_env_host::storage::{EntryWithLiveUntil, SnapshotSource};
use soroban_env_host::xdr::{
    Hash, LedgerEntry, LedgerEntryData, LedgerHeaderHistoryEntry, LedgerKey, LedgerKeyTtl, Limits,
    ReadXdr, ScErrorCode, ScErrorType, WriteXdr,
};
use soroban_env_host::HostError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Mutex;
use std::time::Duration;

/// Idle connections kept per database path.
const MAX_IDLE_PER_PATH: usize = 16;

static POOL: Mutex<Option<HashMap<String, Vec<Connection>>>> = Mutex::new(None);

fn take_connection(path: &str) -> Result<Connection> {
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

    fn read_entry(&self, key_xdr: &[u8]) -> Result<Option<LedgerEntry>> {
        let bytes: Option<Vec<u8>> = self
            .conn()
            .prepare_cached("SELECT entry FROM ledger_entries WHERE key = ?1")?
            .query_row([key_xdr], |r| r.get(0))
            .optional()?;
        match bytes {
            None => Ok(None),
            Some(b) => Ok(Some(
                LedgerEntry::from_xdr(b, Limits::none()).context("cannot decode a stored ledger entry")?,
            )),
        }
    }

    fn get_entry(&self, key: &LedgerKey) -> Result<Option<EntryWithLiveUntil>> {
        let key_xdr = key.to_xdr(Limits::none())?;
        let Some(entry) = self.read_entry(&key_xdr)? else { return Ok(None) };
        let live_until = match key {
            LedgerKey::ContractData(_) | LedgerKey::ContractCode(_) => {
                let ttl_key = LedgerKey::Ttl(LedgerKeyTtl {
                    key_hash: Hash(Sha256::digest(&key_xdr).into()),
                });
                let ttl = self
                    .read_entry(&ttl_key.to_xdr(Limits::none())?)?
                    .ok_or_else(|| anyhow!("the TTL entry of a stored contract entry is missing"))?;
                match ttl.data {
                    LedgerEntryData::Ttl(t) => Some(t.live_until_ledger_seq),
                    _ => bail!("a TTL key holds a non-TTL entry"),
                }
            }
            _ => None,
        };
        Ok(Some((Rc::new(entry), live_until)))
    }

    /// The storage failure seen during the simulation, if any.
    pub fn take_storage_error(&self) -> Option<anyhow::Error> {
        self.storage_error.borrow_mut().take()
    }
}

impl SnapshotSource for Snapshot {
    fn get(&self, key: &Rc<LedgerKey>) -> std::result::Result<Option<EntryWithLiveUntil>, HostError> {
        self.get_entry(key).map_err(|e| {
            if let Ok(mut slot) = self.storage_error.try_borrow_mut() {
                if slot.is_none() {
                    *slot = Some(e);
                }
            }
            // A storage failure is not recoverable: make the host halt.
            HostError::from((ScErrorType::Storage, ScErrorCode::InternalError))
        })
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let healthy = self.storage_error.borrow().is_none();
            if conn.execute_batch("ROLLBACK").is_ok() && healthy {
                return_connection(&self.path, conn);
            }
        }
    }
}
