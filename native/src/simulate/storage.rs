//! The node's database as one host line's ledger state: stored XDR decoded into the line's types.
//! Compiled once per host line (see `simulate.rs`); names the line's crates only through `super::`.

use super::host::storage::{EntryWithLiveUntil, SnapshotSource};
use super::host::xdr::{
    Hash, LedgerEntry, LedgerEntryData, LedgerKey, LedgerKeyTtl, Limits, ReadXdr, ScErrorCode,
    ScErrorType, WriteXdr,
};
use super::host::HostError;
use crate::store::Snapshot;
use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use std::rc::Rc;

fn stored_entry(snapshot: &Snapshot, key_xdr: &[u8]) -> Result<Option<LedgerEntry>> {
    snapshot
        .entry_xdr(key_xdr)?
        .map(|bytes| LedgerEntry::from_xdr(bytes, Limits::none()).context("cannot decode a stored ledger entry"))
        .transpose()
}

/// The live entry under `key` and, for contract data and code, the ledger it lives until.
fn entry_with_live_until(snapshot: &Snapshot, key: &LedgerKey) -> Result<Option<EntryWithLiveUntil>> {
    let key_xdr = key.to_xdr(Limits::none())?;
    let Some(entry) = stored_entry(snapshot, &key_xdr)? else { return Ok(None) };
    let live_until = match key {
        LedgerKey::ContractData(_) | LedgerKey::ContractCode(_) => {
            let ttl_key = LedgerKey::Ttl(LedgerKeyTtl { key_hash: Hash(Sha256::digest(&key_xdr).into()) });
            let ttl = stored_entry(snapshot, &ttl_key.to_xdr(Limits::none())?)?
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

impl SnapshotSource for Snapshot {
    fn get(&self, key: &Rc<LedgerKey>) -> std::result::Result<Option<EntryWithLiveUntil>, HostError> {
        entry_with_live_until(self, key).map_err(|e| {
            self.record_storage_error(e);
            // A storage failure is not recoverable: make the host halt.
            HostError::from((ScErrorType::Storage, ScErrorCode::InternalError))
        })
    }
}
