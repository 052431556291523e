//! Impersonation in simulation (the developer network's lumen_impersonateAccount), for one host
//! line. Compiled once per host line (see `simulate.rs`); names the line's crates only through
//! `super::`.
//!
//! The host authenticates an account address by verifying ed25519 signatures against the
//! account's signers and medium threshold, with no way to skip it for one address. The node
//! (src/ledger/impersonation.ts) signs the impersonated accounts' auth entries with a key of its
//! own; here the host is shown each impersonated account with that key as an extra signer of
//! weight 255 (in place of the last signer when it already has twenty), so the signature verifies
//! and everything else (nonce, expiration, the invocation tree, other addresses) is checked as
//! usual. The state changes simulation reports get the accounts' real signers back.

use super::host::storage::{EntryWithLiveUntil, SnapshotSource};
use super::host::xdr::{
    AccountEntry, AccountEntryExt, AccountEntryExtensionV1Ext, LedgerEntry, LedgerEntryData, LedgerKey, PublicKey,
    ScErrorCode, ScErrorType, Signer, SignerKey, SponsorshipDescriptor, Uint256,
};
use super::host::HostError;
use crate::simulate::Impersonation;
use std::rc::Rc;

const MAX_SIGNERS: usize = 20;
const SIGNER_WEIGHT: u32 = 255;

fn impersonated_id(impersonation: &Impersonation, account: &AccountEntry) -> bool {
    let PublicKey::PublicKeyTypeEd25519(Uint256(id)) = &account.account_id.0;
    impersonation.accounts.iter().any(|a| a == id)
}

fn internal_error() -> HostError {
    HostError::from((ScErrorType::Storage, ScErrorCode::InternalError))
}

/// The account with the node's key among its signers (its sponsoring-ID list kept the same length).
fn with_signer(account: &AccountEntry, signer: &[u8; 32]) -> Result<AccountEntry, HostError> {
    let mut out = account.clone();
    let mut signers: Vec<Signer> = account.signers.to_vec();
    signers.truncate(MAX_SIGNERS - 1);
    signers.push(Signer { key: SignerKey::Ed25519(Uint256(*signer)), weight: SIGNER_WEIGHT });
    out.signers = signers.try_into().map_err(|_| internal_error())?;
    if let AccountEntryExt::V1(v1) = &mut out.ext {
        if let AccountEntryExtensionV1Ext::V2(v2) = &mut v1.ext {
            let mut ids: Vec<SponsorshipDescriptor> = v2.signer_sponsoring_i_ds.to_vec();
            ids.truncate(MAX_SIGNERS - 1);
            ids.push(SponsorshipDescriptor(None));
            v2.signer_sponsoring_i_ds = ids.try_into().map_err(|_| internal_error())?;
        }
    }
    Ok(out)
}

/// The ledger state as the host sees it while accounts are impersonated.
pub struct ImpersonatingSnapshot {
    pub inner: Rc<dyn SnapshotSource>,
    pub impersonation: Impersonation,
}

impl SnapshotSource for ImpersonatingSnapshot {
    fn get(&self, key: &Rc<LedgerKey>) -> Result<Option<EntryWithLiveUntil>, HostError> {
        let found = self.inner.get(key)?;
        let Some((entry, live_until)) = &found else { return Ok(found) };
        let LedgerEntryData::Account(account) = &entry.data else { return Ok(found) };
        if !impersonated_id(&self.impersonation, account) {
            return Ok(found);
        }
        let shown = LedgerEntry {
            data: LedgerEntryData::Account(with_signer(account, &self.impersonation.signer)?),
            ..entry.as_ref().clone()
        };
        Ok(Some((Rc::new(shown), *live_until)))
    }
}

/// An entry simulation reports, with an impersonated account's real signers (read from `real`).
pub fn with_real_signers(
    entry: Option<LedgerEntry>,
    impersonation: &Impersonation,
    real: &dyn SnapshotSource,
) -> Result<Option<LedgerEntry>, HostError> {
    let Some(mut entry) = entry else { return Ok(None) };
    let key = Rc::new(entry.to_key());
    let LedgerEntryData::Account(account) = &mut entry.data else { return Ok(Some(entry)) };
    if !impersonated_id(impersonation, account) {
        return Ok(Some(entry));
    }
    let Some((stored, _)) = real.get(&key)? else { return Ok(Some(entry)) };
    let LedgerEntryData::Account(stored) = &stored.data else { return Ok(Some(entry)) };
    account.signers = stored.signers.clone();
    if let (AccountEntryExt::V1(v1), AccountEntryExt::V1(stored_v1)) = (&mut account.ext, &stored.ext) {
        if let (AccountEntryExtensionV1Ext::V2(v2), AccountEntryExtensionV1Ext::V2(stored_v2)) = (&mut v1.ext, &stored_v1.ext) {
            v2.signer_sponsoring_i_ds = stored_v2.signer_sponsoring_i_ds.clone();
        }
    }
    Ok(Some(entry))
}
