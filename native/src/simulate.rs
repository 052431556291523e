//! Simulation of the three Soroban operations over a [`Snapshot`] of the node's database, shaped
//! after what simulateTransaction answers. Plain Rust in and out (no Node-API types): `lib.rs`
//! converts at the boundary, and its in-Rust benchmark (benchSimulateInvoke) calls the same code.
//!
//! A host runs exactly one ledger protocol, and a network moves from one to the next at an upgrade.
//! So, like the reference server (which links the current and the previous protocol's), simulation
//! carries a host line per protocol of `protocols.rs` and picks by the protocol of the ledger it
//! runs against. Every line compiles the same source, `simulate/line.rs` and `simulate/storage.rs`,
//! inside a module that binds its own crates to `host` and `simulation`. Between a line and this
//! module only plain Rust and XDR bytes pass, so the lines' XDR types never meet.
//!
//! Every failure becomes `error` text; nothing here returns `Err` to the caller. Host errors are
//! rendered through anyhow's `{:?}` (which prints the HostError's own text, event log included),
//! which is what the reference server returns and what client libraries parse
//! (`HostError: Error(Contract, #1)` ...).

use crate::store::{Snapshot, StoredLedger};
use anyhow::{bail, Result};
use std::rc::Rc;
use std::str::FromStr;

/// One host line per protocol of `protocols.rs`; every line compiles the files in src/simulate/.
#[path = "simulate"]
mod p28 {
    use soroban_env_host_p28 as host;
    use soroban_simulation_p28 as simulation;

    pub const PROTOCOL: u32 = host::meta::INTERFACE_VERSION.protocol;
    mod impersonation;
    pub mod line;
    mod storage;
}

#[path = "simulate"]
mod p29 {
    use soroban_env_host_p29 as host;
    use soroban_simulation_p29 as simulation;

    pub const PROTOCOL: u32 = host::meta::INTERFACE_VERSION.protocol;
    mod impersonation;
    pub mod line;
    mod storage;
}

#[path = "simulate"]
mod p30 {
    use soroban_env_host_p30 as host;
    use soroban_simulation_p30 as simulation;

    pub const PROTOCOL: u32 = host::meta::INTERFACE_VERSION.protocol;
    mod impersonation;
    pub mod line;
    mod storage;
}

// Each module runs the protocol it is named for, and the lines are the ones protocols.rs lists.
const _: () = assert!(p28::PROTOCOL == 28 && p29::PROTOCOL == 29 && p30::PROTOCOL == 30);
const _: () = assert!(crate::protocols::eq(&crate::protocols::SUPPORTED, &[p28::PROTOCOL, p29::PROTOCOL, p30::PROTOCOL]));

/// The ledger protocols simulation runs, oldest first.
pub const SUPPORTED_PROTOCOLS: [u32; 3] = crate::protocols::SUPPORTED;

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
    /// Accounts the developer network impersonates (their auth entries signed by the node).
    pub impersonation: Option<Impersonation>,
}

/// The developer network's impersonated accounts and the node's signing key for them
/// (src/ledger/impersonation.ts; `simulate/impersonation.rs`).
#[derive(Clone, Debug)]
pub struct Impersonation {
    /// The node's ed25519 public key, shown to the host as an extra signer of each account.
    pub signer: [u8; 32],
    /// The accounts' ed25519 public keys.
    pub accounts: Vec<[u8; 32]>,
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
    /// The protocol of the host line that ran the simulation (0 when none did).
    pub host_protocol: u32,
    /// LedgerKey XDR each: every key the host asked the database for, found or not, also on
    /// failure (a fork fetches the ones it never resolved and simulates again: src/fork/).
    pub read_keys: Vec<Vec<u8>>,
}

impl SimulationOutput {
    pub(crate) fn failed(error: String, latest_ledger: u32) -> Self {
        Self { error: Some(error), latest_ledger, ..Default::default() }
    }
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

// Error texts shared by both lines.

pub(crate) fn error_text(e: &anyhow::Error, snapshot: &Snapshot) -> String {
    // A storage failure explains more than the host's (Storage, InternalError) it caused.
    if let Some(storage) = snapshot.take_storage_error() {
        return render_error(&storage);
    }
    render_error(e)
}

/// A line's HostError as anyhow renders it (its Display is its Debug: the error, then the event
/// log).
pub(crate) fn host_error_text(e: &impl std::fmt::Debug, snapshot: &Snapshot) -> String {
    if let Some(storage) = snapshot.take_storage_error() {
        return render_error(&storage);
    }
    format!("{e:?}")
}

// ---------------------------------------------------------------------------------------------
// Picking the host line

/// The ledger a simulation runs against.
pub struct LedgerContext {
    pub params: LedgerParams,
    /// The latest stored ledger's hash (keys the cached network configuration).
    pub stored_hash: Option<[u8; 32]>,
}

/// Opens the snapshot and settles the ledger values: the requested ones, else the latest stored
/// ledger's.
fn open_ledger(common: &Common) -> Result<(Rc<Snapshot>, LedgerContext)> {
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
    Ok((snapshot, LedgerContext { params, stored_hash: stored.map(|s| s.hash) }))
}

#[derive(Clone, Copy)]
enum Line {
    P28,
    P29,
    P30,
}

fn line_for(protocol: u32) -> Option<Line> {
    match protocol {
        p if p == p28::PROTOCOL => Some(Line::P28),
        p if p == p29::PROTOCOL => Some(Line::P29),
        p if p == p30::PROTOCOL => Some(Line::P30),
        _ => None,
    }
}

/// Runs `simulate` on the host line of the ledger's protocol; a protocol no line runs is an error
/// result (the host would refuse it anyway, less clearly).
fn on_line_of_ledger(
    common: &Common,
    simulate: impl FnOnce(Line, &Rc<Snapshot>, &LedgerContext) -> SimulationOutput,
) -> SimulationOutput {
    let (snapshot, ledger) = match open_ledger(common) {
        Ok(v) => v,
        Err(e) => return SimulationOutput::failed(render_error(&e), 0),
    };
    let protocol = ledger.params.protocol_version;
    let Some(line) = line_for(protocol) else {
        return SimulationOutput::failed(
            format!("unsupported protocol version: {protocol} (this build simulates {})", crate::protocols::describe()),
            ledger.params.sequence,
        );
    };
    let out = simulate(line, &snapshot, &ledger);
    SimulationOutput { host_protocol: protocol, read_keys: snapshot.take_reads(), ..out }
}

/// Simulates an InvokeHostFunction operation.
pub fn simulate_invoke(req: &InvokeRequest) -> SimulationOutput {
    on_line_of_ledger(&req.common, |line, snapshot, ledger| match line {
        Line::P28 => p28::line::simulate_invoke(req, snapshot, ledger),
        Line::P29 => p29::line::simulate_invoke(req, snapshot, ledger),
        Line::P30 => p30::line::simulate_invoke(req, snapshot, ledger),
    })
}

#[derive(Clone, Debug)]
pub struct FootprintRequest {
    pub common: Common,
    pub op: OpInput,
}

/// Simulates ExtendFootprintTTL (with a restore preamble when archived entries must be restored
/// first) or RestoreFootprint.
pub fn simulate_footprint(req: &FootprintRequest) -> SimulationOutput {
    on_line_of_ledger(&req.common, |line, snapshot, ledger| match line {
        Line::P28 => p28::line::simulate_footprint(req, snapshot, ledger),
        Line::P29 => p29::line::simulate_footprint(req, snapshot, ledger),
        Line::P30 => p30::line::simulate_footprint(req, snapshot, ledger),
    })
}
