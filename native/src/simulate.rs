//! Simulation of the three Soroban operations over a [`Snapshot`] of the node's database, shaped
//! after what simulateTransaction answers. Plain Rust in and out (no Node-API types), so the same
//! code runs from the addon, from Rust tests and from benchmarks.
//!
//! Every failure becomes `error` text; nothing here returns `Err` to the caller. Host errors are
//! rendered through anyhow's `{:?}` (which prints the HostError's own text, event log included),
//! which is what the reference server returns and what client libraries parse
//! (`HostError: Error(Contract, #1)` ...).

use crate::store::{Snapshot, StoredLedger};
use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use soroban_env_host::e2e_invoke::RecordingInvocationAuthMode;
use soroban_env_host::storage::SnapshotSource;
use soroban_env_host::xdr::{
    AccountId, InvokeHostFunctionOp, LedgerFootprint, Limits, MuxedAccount, Operation,
    OperationBody, ReadXdr, SorobanTransactionData, TransactionEnvelope, TransactionExt,
    WriteXdr,
};
use soroban_env_host::{HostError, LedgerInfo};
use soroban_simulation::simulation::{
    simulate_extend_ttl_op, simulate_invoke_host_function_op, simulate_restore_op,
    LedgerEntryDiff, RestoreOpSimulationResult, SimulationAdjustmentConfig,
};
use soroban_simulation::{AutoRestoringSnapshotSource, NetworkConfig};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::str::FromStr;

/// Ledger values the host runs with. When a request carries none, the latest stored ledger's are
/// used (read in the same snapshot as the state, so they always agree).
#[derive(Clone, Debug)]
pub struct LedgerParams {
    pub sequence: u32,
    pub timestamp: u64,
    pub protocol_version: u32,
    pub base_reserve: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthMode {
    Enforce,
    Record,
    RecordAllowNonroot,
}

impl FromStr for AuthMode {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "enforce" => Ok(Self::Enforce),
            "record" => Ok(Self::Record),
            "record_allow_nonroot" => Ok(Self::RecordAllowNonroot),
            other => bail!("invalid auth mode '{other}': expected enforce, record or record_allow_nonroot"),
        }
    }
}

/// Where the operation comes from: a whole TransactionEnvelope (its single operation, whose
/// source is the operation's or else the transaction's), or the operation's parts.
#[derive(Clone, Debug)]
pub enum OpInput {
    /// TransactionEnvelope XDR, base64 (fee bumps accepted: the inner transaction is used).
    Envelope(String),
    /// An Operation XDR (base64) and, when the operation carries no source, the source account
    /// (G... strkey or AccountId XDR base64). Footprint operations also need the footprint
    /// (LedgerFootprint XDR base64).
    Parts { operation: String, source_account: Option<String>, footprint: Option<String> },
}

#[derive(Clone, Debug)]
pub struct Common {
    pub db_path: String,
    pub network_passphrase: String,
    pub ledger: Option<LedgerParams>,
}

#[derive(Clone, Debug)]
pub struct InvokeRequest {
    pub common: Common,
    pub op: OpInput,
    /// None: the reference's default (enforce when the operation carries auth entries, else record).
    pub auth_mode: Option<AuthMode>,
    pub use_upgraded_auth: bool,
    pub instruction_leeway: u32,
    pub enable_debug: bool,
    pub prng_seed: Option<[u8; 32]>,
}

#[derive(Clone, Debug, Default)]
pub struct StateChange {
    pub key: Vec<u8>,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

#[derive(Clone, Debug, Default)]
pub struct RestorePreamble {
    pub transaction_data: Vec<u8>,
    pub min_resource_fee: i64,
}

/// Everything simulateTransaction reports. XDR fields are raw XDR bytes.
#[derive(Clone, Debug, Default)]
pub struct SimulationOutput {
    pub error: Option<String>,
    /// ScVal of a successful invocation.
    pub result: Option<Vec<u8>>,
    /// SorobanAuthorizationEntry each (recorded ones carry no signature).
    pub auth: Vec<Vec<u8>>,
    pub transaction_data: Option<Vec<u8>>,
    pub min_resource_fee: i64,
    /// DiagnosticEvent each (all host events, contract events included), also on failure.
    pub events: Vec<Vec<u8>>,
    /// ContractEvent each (successful invocations only).
    pub contract_events: Vec<Vec<u8>>,
    pub state_changes: Vec<StateChange>,
    pub cpu_instructions: u64,
    pub memory_bytes: u64,
    pub restore_preamble: Option<RestorePreamble>,
    /// The ledger the simulation ran against (0 when the database could not be read).
    pub latest_ledger: u32,
}

impl SimulationOutput {
    fn failed(error: String, latest_ledger: u32) -> Self {
        Self { error: Some(error), latest_ledger, ..Default::default() }
    }
}

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
                    let soroban_env_host::xdr::FeeBumpTransactionInnerTx::Tx(inner) = fb.tx.inner_tx;
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
            let operation = operations.to_vec().remove(0);
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

/// Opens the snapshot and settles the ledger values: the requested ones, else the latest stored
/// ledger's. Returns the snapshot, the network config, the LedgerInfo and the latest ledger.
fn prepare(common: &Common) -> Result<(Rc<Snapshot>, Arc<NetworkConfig>, LedgerInfo, u32)> {
    let snapshot = Rc::new(Snapshot::open(&common.db_path)?);
    let stored: Option<StoredLedger> = snapshot.latest_ledger()?;
    let params = match (&common.ledger, &stored) {
        (Some(p), _) => p.clone(),
        (None, Some(s)) => LedgerParams {
            sequence: s.sequence,
            timestamp: s.close_time,
            protocol_version: s.protocol_version,
            base_reserve: s.base_reserve,
        },
        (None, None) => bail!("the database holds no ledger yet"),
    };
    let network_config = network_config_of(&common.db_path, stored.as_ref().map(|s| s.hash), snapshot.as_ref())?;
    let mut ledger_info = LedgerInfo {
        protocol_version: params.protocol_version,
        sequence_number: params.sequence,
        timestamp: params.timestamp,
        network_id: Sha256::digest(common.network_passphrase.as_bytes()).into(),
        base_reserve: params.base_reserve,
        ..Default::default()
    };
    network_config.fill_config_fields_in_ledger_info(&mut ledger_info);
    Ok((snapshot, network_config, ledger_info, params.sequence))
}

/// anyhow's `{:?}` text (the error, then its "Caused by:" chain), which is what the reference
/// server returns, minus the stack backtrace anyhow appends when RUST_BACKTRACE is set.
pub fn render_error(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    let causes: Vec<String> = e.chain().skip(1).map(|c| c.to_string()).collect();
    if !causes.is_empty() {
        text.push_str("\n\nCaused by:");
        let numbered = causes.len() > 1;
        for (n, cause) in causes.iter().enumerate() {
            text.push('\n');
            for (i, line) in cause.lines().enumerate() {
                if i > 0 {
                    text.push('\n');
                }
                match (numbered, i) {
                    (true, 0) => text.push_str(&format!("{n:>5}: ")),
                    (true, _) => text.push_str("       "),
                    (false, _) => text.push_str("    "),
                }
                text.push_str(line);
            }
        }
    }
    text
}

fn error_text(e: &anyhow::Error, snapshot: Option<&Snapshot>) -> String {
    // A storage failure explains more than the host's (Storage, InternalError) it caused.
    if let Some(storage) = snapshot.and_then(Snapshot::take_storage_error) {
        return render_error(&storage);
    }
    render_error(e)
}

/// A HostError as anyhow renders it (its Display is its Debug: the error, then the event log).
fn host_error_text(e: &HostError, snapshot: &Snapshot) -> String {
    if let Some(storage) = snapshot.take_storage_error() {
        return render_error(&storage);
    }
    format!("{e:?}")
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

/// Parses the operation, opens the snapshot, runs `inner`, and turns every failure into `error`
/// text (with the ledger it ran against once that is known).
fn run(
    op: &OpInput,
    common: &Common,
    inner: impl FnOnce(ParsedOp, &Rc<Snapshot>, &NetworkConfig, &LedgerInfo, u32) -> Result<SimulationOutput>,
) -> SimulationOutput {
    let parsed = match parse_op(op) {
        Ok(p) => p,
        Err(e) => return SimulationOutput::failed(format!("{e}"), 0),
    };
    let (snapshot, network_config, ledger_info, latest) = match prepare(common) {
        Ok(v) => v,
        Err(e) => return SimulationOutput::failed(render_error(&e), 0),
    };
    match inner(parsed, &snapshot, &*network_config, &ledger_info, latest) {
        Ok(out) => out,
        Err(e) => SimulationOutput::failed(error_text(&e, Some(&snapshot)), latest),
    }
}

/// Simulates an InvokeHostFunction operation.
pub fn simulate_invoke(req: &InvokeRequest) -> SimulationOutput {
    run(&req.op, &req.common, |parsed, snapshot, config, info, latest| invoke_inner(req, parsed, snapshot, config, info, latest))
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
    let auth_entries = auth.to_vec();
    let mode = req.auth_mode.unwrap_or(if auth_entries.is_empty() { AuthMode::Record } else { AuthMode::Enforce });
    let auth_mode = match mode {
        AuthMode::Enforce => RecordingInvocationAuthMode::Enforcing(auth_entries),
        AuthMode::Record => RecordingInvocationAuthMode::recording(true, req.use_upgraded_auth),
        AuthMode::RecordAllowNonroot => RecordingInvocationAuthMode::recording(false, req.use_upgraded_auth),
    };
    let mut adjustment = SimulationAdjustmentConfig::default_adjustment();
    adjustment.instructions.additive_factor = adjustment.instructions.additive_factor.max(req.instruction_leeway);
    let seed = req.prng_seed.unwrap_or_else(|| rand::random());

    let source_snapshot: Rc<dyn SnapshotSource> = snapshot.clone();
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
            out.state_changes = sim.modified_entries.iter().map(state_change).collect::<Result<_>>()?;
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

#[derive(Clone, Debug)]
pub struct FootprintRequest {
    pub common: Common,
    pub op: OpInput,
}

/// Simulates ExtendFootprintTTL (with a restore preamble when archived entries must be restored
/// first) or RestoreFootprint.
pub fn simulate_footprint(req: &FootprintRequest) -> SimulationOutput {
    run(&req.op, &req.common, footprint_inner)
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
