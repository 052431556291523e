//! The node's database as one host line's ledger state: stored XDR decoded into the line's types.
//! Compiled once per host line (see `simulate.rs`); names the line's crates only through `super::`.

use super::host::storage::{EntryWithLiveUntil, SnapshotSource};
use super::host::xdr::{
    ContractDataDurability, Hash, LedgerEntry, LedgerEntryData, LedgerKey, LedgerKeyTtl, Limits, ReadXdr, ScErrorCode,
    ScErrorType, WriteXdr,
};
use super::host::HostError;
use crate::store::Snapshot;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::rc::Rc;

fn stored_entry(snapshot: &Snapshot, key_xdr: &[u8]) -> Result<Option<LedgerEntry>> {
    snapshot
        .entry_xdr(key_xdr)?
        .map(|bytes| LedgerEntry::from_xdr(bytes, Limits::none()).context("cannot decode a stored ledger entry"))
        .transpose()
}

/// The entry under `key` and, for contract data and code, the ledger it lives until. A persistent
/// entry stored without a TTL was evicted to the hot archive: the host sees it as archived (live
/// until 0, as the reference passes core's archived entries), so simulation marks it for restore.
fn entry_with_live_until(snapshot: &Snapshot, key: &LedgerKey) -> Result<Option<EntryWithLiveUntil>> {
    let key_xdr = key.to_xdr(Limits::none())?;
    snapshot.record_read(&key_xdr);
    let Some(entry) = stored_entry(snapshot, &key_xdr)? else { return Ok(None) };
    let live_until = match key {
        LedgerKey::ContractData(_) | LedgerKey::ContractCode(_) => {
            let ttl_key = LedgerKey::Ttl(LedgerKeyTtl { key_hash: Hash(Sha256::digest(&key_xdr).into()) });
            match stored_entry(snapshot, &ttl_key.to_xdr(Limits::none())?)? {
                Some(LedgerEntry { data: LedgerEntryData::Ttl(t), .. }) => Some(t.live_until_ledger_seq),
                Some(_) => bail!("a TTL key holds a non-TTL entry"),
                None if is_temporary(key) => bail!("a temporary contract entry is stored without its TTL"),
                None => Some(0),
            }
        }
        _ => None,
    };
    Ok(Some((Rc::new(entry), live_until)))
}

fn is_temporary(key: &LedgerKey) -> bool {
    matches!(key, LedgerKey::ContractData(d) if d.durability == ContractDataDurability::Temporary)
}

impl SnapshotSource for Snapshot {
    fn get(&self, key: &Rc<LedgerKey>) -> std::result::Result<Option<EntryWithLiveUntil>, HostError> {
        entry_with_live_until(self, key).map_err(|e| {
            self.record_storage_error(e);
            // A storage failure is not recoverable: make the host halt.
            HostError::from((ScErrorType::Storage, ScErrorCode::InternalError))
        })
    }
}
