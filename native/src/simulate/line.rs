//! One host line's simulation of the three Soroban operations. Compiled once per host line (see
//! `simulate.rs`): `super::host` and `super::simulation` are that line's soroban-env-host and
//! soroban-simulation. Never name those crates (or stellar-xdr) directly here: the name would bind
//! the current line's crate in the previous line's copy too.

use super::host::e2e_invoke::RecordingInvocationAuthMode;
use super::impersonation::{with_real_signers, ImpersonatingSnapshot};
use super::host::storage::SnapshotSource;
use super::host::xdr::{
    AccountId, FeeBumpTransactionInnerTx, InvokeHostFunctionOp, LedgerFootprint, Limits,
    MuxedAccount, Operation, OperationBody, ReadXdr, SorobanTransactionData, TransactionEnvelope,
    TransactionExt, WriteXdr,
};
use super::host::LedgerInfo;
use super::simulation::simulation::{
    simulate_extend_ttl_op, simulate_invoke_host_function_op, simulate_restore_op,
    LedgerEntryDiff, RestoreOpSimulationResult, SimulationAdjustmentConfig,
};
use super::simulation::{AutoRestoringSnapshotSource, NetworkConfig};
use crate::simulate::{
    error_text, host_error_text, AuthMode, Common, FootprintRequest, InvokeRequest, LedgerContext,
    OpInput, RestorePreamble, SimulationOutput, StateChange,
};
use crate::store::Snapshot;
use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

fn xdr<T: WriteXdr>(v: &T) -> Result<Vec<u8>> {
    Ok(v.to_xdr(Limits::none())?)
}

fn decode_b64<T: ReadXdr>(what: &str, b64: &str) -> Result<T> {
    T::from_xdr_base64(b64.trim(), Limits::none()).map_err(|e| anyhow!("could not decode {what}: {e}"))
}

fn parse_account(s: &str) -> Result<AccountId> {
    let s = s.trim();
    if s.starts_with('G') && s.len() == 56 {
        AccountId::from_str(s).map_err(|e| anyhow!("invalid source account {s}: {e}"))
    } else {
        decode_b64("the source account (AccountId XDR)", s)
    }
}

/// The single operation of an envelope, its effective source account and the envelope's
/// SorobanTransactionData.
struct ParsedOp {
    operation: Operation,
    source: Option<AccountId>,
    footprint: Option<LedgerFootprint>,
}

fn parse_op(input: &OpInput) -> Result<ParsedOp> {
    match input {
        OpInput::Envelope(b64) => {
            let env: TransactionEnvelope = decode_b64("the transaction envelope", b64)?;
            let (tx_source, operations, ext) = match env {
                TransactionEnvelope::Tx(v1) => (v1.tx.source_account, v1.tx.operations, v1.tx.ext),
                TransactionEnvelope::TxFeeBump(fb) => {
                    let FeeBumpTransactionInnerTx::Tx(inner) = fb.tx.inner_tx;
                    (inner.tx.source_account, inner.tx.operations, inner.tx.ext)
                }
                TransactionEnvelope::TxV0(v0) => (
                    MuxedAccount::Ed25519(v0.tx.source_account_ed25519),
                    v0.tx.operations,
                    TransactionExt::V0,
                ),
            };
            if operations.len() != 1 {
                bail!("the transaction must contain exactly one operation (it has {})", operations.len());
            }
            let operation = operations.into_vec().remove(0);
            let source = operation.source_account.clone().unwrap_or(tx_source).account_id();
            let footprint = match ext {
                TransactionExt::V1(data) => Some(data.resources.footprint),
                TransactionExt::V0 => None,
            };
            Ok(ParsedOp { operation, source: Some(source), footprint })
        }
        OpInput::Parts { operation, source_account, footprint } => {
            let operation: Operation = decode_b64("the operation", operation)?;
            let source = match (&operation.source_account, source_account) {
                (Some(m), _) => Some(m.clone().account_id()),
                (None, Some(s)) => Some(parse_account(s)?),
                (None, None) => None,
            };
            let footprint = footprint.as_deref().map(|f| decode_b64("the footprint", f)).transpose()?;
            Ok(ParsedOp { operation, source, footprint })
        }
    }
}

/// The network configuration of the latest ledger of each database, decoded once per ledger: it
/// can only change when a ledger closes (an upgrade), and reading its 21 entries (two cost models
/// of 86 parameters each) for every simulation would be most of a small simulation's I/O.
static NETWORK_CONFIGS: Mutex<Option<HashMap<String, ([u8; 32], Arc<NetworkConfig>)>>> = Mutex::new(None);

fn network_config_of(db_path: &str, ledger_hash: Option<[u8; 32]>, snapshot: &Snapshot) -> Result<Arc<NetworkConfig>> {
    if let Some(hash) = ledger_hash {
        let cached = NETWORK_CONFIGS.lock().ok().and_then(|c| {
            c.as_ref()?.get(db_path).filter(|(h, _)| *h == hash).map(|(_, config)| config.clone())
        });
        if let Some(config) = cached {
            return Ok(config);
        }
    }
    let config = Arc::new(
        NetworkConfig::load_from_snapshot(snapshot).context("cannot load the network configuration from the ledger")?,
    );
    if let (Some(hash), Ok(mut cache)) = (ledger_hash, NETWORK_CONFIGS.lock()) {
        cache.get_or_insert_with(HashMap::new).insert(db_path.to_string(), (hash, config.clone()));
    }
    Ok(config)
}

/// The network configuration and the LedgerInfo the host runs with.
fn ledger_setup(db_path: &str, passphrase: &str, ledger: &LedgerContext, snapshot: &Snapshot) -> Result<(Arc<NetworkConfig>, LedgerInfo)> {
    let network_config = network_config_of(db_path, ledger.stored_hash, snapshot)?;
    let params = &ledger.params;
    let mut ledger_info = LedgerInfo {
        protocol_version: params.protocol_version,
        sequence_number: params.sequence,
        timestamp: params.timestamp,
        network_id: Sha256::digest(passphrase.as_bytes()).into(),
        base_reserve: params.base_reserve,
        ..Default::default()
    };
    network_config.fill_config_fields_in_ledger_info(&mut ledger_info);
    Ok((network_config, ledger_info))
}

fn state_change(diff: &LedgerEntryDiff) -> Result<StateChange> {
    let entry = diff
        .state_after
        .as_ref()
        .or(diff.state_before.as_ref())
        .ok_or_else(|| anyhow!("a ledger entry diff with neither side"))?;
    Ok(StateChange {
        key: xdr(&entry.to_key())?,
        before: diff.state_before.as_ref().map(xdr).transpose()?,
        after: diff.state_after.as_ref().map(xdr).transpose()?,
    })
}

fn preamble(r: &RestoreOpSimulationResult) -> Result<RestorePreamble> {
    Ok(RestorePreamble {
        transaction_data: xdr(&r.transaction_data)?,
        min_resource_fee: r.transaction_data.resource_fee,
    })
}

/// Parses the operation, settles the network configuration and ledger values, runs `inner`, and
/// turns every failure into `error` text (with the ledger it ran against once the operation
/// parsed).
fn run(
    op: &OpInput,
    common: &Common,
    snapshot: &Rc<Snapshot>,
    ledger: &LedgerContext,
    inner: impl FnOnce(ParsedOp, &NetworkConfig, &LedgerInfo, u32) -> Result<SimulationOutput>,
) -> SimulationOutput {
    let parsed = match parse_op(op) {
        Ok(p) => p,
        Err(e) => return SimulationOutput::failed(format!("{e}"), 0),
    };
    let latest = ledger.params.sequence;
    let outcome = ledger_setup(&common.db_path, &common.network_passphrase, ledger, snapshot)
        .and_then(|(config, info)| inner(parsed, &config, &info, latest));
    match outcome {
        Ok(out) => out,
        Err(e) => SimulationOutput::failed(error_text(&e, snapshot), latest),
    }
}

/// Simulates an InvokeHostFunction operation.
pub fn simulate_invoke(req: &InvokeRequest, snapshot: &Rc<Snapshot>, ledger: &LedgerContext) -> SimulationOutput {
    run(&req.op, &req.common, snapshot, ledger, |parsed, config, info, latest| {
        invoke_inner(req, parsed, snapshot, config, info, latest)
    })
}

fn invoke_inner(
    req: &InvokeRequest,
    parsed: ParsedOp,
    snapshot: &Rc<Snapshot>,
    network_config: &NetworkConfig,
    ledger_info: &LedgerInfo,
    latest: u32,
) -> Result<SimulationOutput> {
    let OperationBody::InvokeHostFunction(InvokeHostFunctionOp { host_function, auth }) =
        parsed.operation.body
    else {
        bail!(
            "unsupported operation type {} (expected InvokeHostFunction)",
            parsed.operation.body.name()
        );
    };
    let source = parsed.source.ok_or_else(|| anyhow!("the source account is missing"))?;
    let auth_entries = auth.into_vec();
    let mode = req.auth_mode.unwrap_or(if auth_entries.is_empty() { AuthMode::Record } else { AuthMode::Enforce });
    let auth_mode = match mode {
        AuthMode::Enforce => RecordingInvocationAuthMode::Enforcing(auth_entries),
        AuthMode::Record => RecordingInvocationAuthMode::recording(true, req.use_upgraded_auth),
        AuthMode::RecordAllowNonroot => RecordingInvocationAuthMode::recording(false, req.use_upgraded_auth),
    };
    let mut adjustment = SimulationAdjustmentConfig::default_adjustment();
    adjustment.instructions.additive_factor = adjustment.instructions.additive_factor.max(req.instruction_leeway);
    let seed = req.prng_seed.unwrap_or_else(|| rand::random());

    let stored: Rc<dyn SnapshotSource> = snapshot.clone();
    let source_snapshot: Rc<dyn SnapshotSource> = match &req.impersonation {
        Some(impersonation) => Rc::new(ImpersonatingSnapshot { inner: stored.clone(), impersonation: impersonation.clone() }),
        None => stored.clone(),
    };
    let sim = simulate_invoke_host_function_op(
        source_snapshot,
        network_config,
        &adjustment,
        ledger_info,
        host_function,
        auth_mode,
        &source,
        seed,
        req.enable_debug,
    )?;

    let mut out = SimulationOutput {
        latest_ledger: latest,
        cpu_instructions: u64::from(sim.simulated_instructions),
        memory_bytes: u64::from(sim.simulated_memory),
        events: sim.diagnostic_events.iter().map(xdr).collect::<Result<_>>()?,
        ..Default::default()
    };
    match &sim.invoke_result {
        Ok(val) => {
            out.result = Some(xdr(val)?);
            out.auth = sim.auth.iter().map(xdr).collect::<Result<_>>()?;
            out.contract_events = sim.contract_events.iter().map(xdr).collect::<Result<_>>()?;
            let mut diffs = sim.modified_entries;
            if let Some(impersonation) = &req.impersonation {
                for diff in &mut diffs {
                    diff.state_before = with_real_signers(diff.state_before.take(), impersonation, stored.as_ref())?;
                    diff.state_after = with_real_signers(diff.state_after.take(), impersonation, stored.as_ref())?;
                }
            }
            out.state_changes = diffs.iter().map(state_change).collect::<Result<_>>()?;
            if let Some(data) = &sim.transaction_data {
                out.min_resource_fee = data.resource_fee;
                out.transaction_data = Some(xdr(data)?);
            }
        }
        Err(host_error) => {
            out.error = Some(host_error_text(host_error, snapshot));
        }
    }
    Ok(out)
}

/// Simulates ExtendFootprintTTL (with a restore preamble when archived entries must be restored
/// first) or RestoreFootprint.
pub fn simulate_footprint(req: &FootprintRequest, snapshot: &Rc<Snapshot>, ledger: &LedgerContext) -> SimulationOutput {
    run(&req.op, &req.common, snapshot, ledger, |parsed, config, info, latest| {
        footprint_inner(parsed, snapshot, config, info, latest)
    })
}

fn footprint_inner(
    parsed: ParsedOp,
    snapshot: &Rc<Snapshot>,
    network_config: &NetworkConfig,
    ledger_info: &LedgerInfo,
    latest: u32,
) -> Result<SimulationOutput> {
    let footprint = parsed
        .footprint
        .ok_or_else(|| anyhow!("the footprint (SorobanTransactionData) is missing"))?;
    let adjustment = SimulationAdjustmentConfig::default_adjustment();
    let mut out = SimulationOutput { latest_ledger: latest, ..Default::default() };
    let data: SorobanTransactionData = match parsed.operation.body {
        OperationBody::ExtendFootprintTtl(op) => {
            let auto_restore = AutoRestoringSnapshotSource::new(snapshot.clone(), ledger_info)?;
            let extended = simulate_extend_ttl_op(
                &auto_restore,
                network_config,
                &adjustment,
                ledger_info,
                footprint.read_only.as_slice(),
                op.extend_to,
            )?;
            if let Some(restore) =
                auto_restore.simulate_restore_keys_op(network_config, &adjustment, ledger_info)?
            {
                out.restore_preamble = Some(preamble(&restore)?);
            }
            extended.transaction_data
        }
        OperationBody::RestoreFootprint(_) => {
            simulate_restore_op(
                snapshot.as_ref(),
                network_config,
                &adjustment,
                ledger_info,
                footprint.read_write.as_slice(),
            )?
            .transaction_data
        }
        other => bail!(
            "unsupported operation type {} (expected ExtendFootprintTtl or RestoreFootprint)",
            other.name()
        ),
    };
    out.min_resource_fee = data.resource_fee;
    out.transaction_data = Some(xdr(&data)?);
    Ok(out)
}
