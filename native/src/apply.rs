//! Applying Soroban operations on the standalone network, the way stellar-core drives the host:
//! the engine (TypeScript) loads the footprint's entries and their TTLs, decides what is archived
//! or auto-restored, and writes the outcome back; the host runs the end-to-end invoke and the fee
//! arithmetic, so costs and fees are exactly the network's.
//!
//! A host runs exactly one ledger protocol, so apply carries a host line per protocol the network
//! may run (the lines of `protocols.rs`), each compiling `apply/line.rs` against its own crates,
//! and runs a ledger's operations on the line of that ledger's protocol: a network that votes an
//! upgrade in goes on, from the upgrade ledger, on the next line. Only plain Rust and XDR bytes
//! cross between a line and this module.
//!
//! One [`Applier`] lives as long as the network. Each line it has used holds the network
//! configuration (read from the ConfigSetting entries) and a module cache: every contract is parsed
//! once, outside any transaction's budget, as core does. Simulation (recording mode) assumes such a
//! cache hit, so the instructions an applied call consumes match what was simulated.

use anyhow::{anyhow, bail, Result};
use std::sync::{Arc, Mutex, RwLock};

/// The line of each protocol, compiled from `apply/line.rs` against that protocol's crates.
#[path = "apply"]
mod p28 {
    use soroban_env_host_p28 as host;
    use soroban_simulation_p28 as simulation;
    pub const PROTOCOL: u32 = host::meta::INTERFACE_VERSION.protocol;
    pub mod line;
    pub mod trace;
}
#[path = "apply"]
mod p29 {
    use soroban_env_host_p29 as host;
    use soroban_simulation_p29 as simulation;
    pub const PROTOCOL: u32 = host::meta::INTERFACE_VERSION.protocol;
    pub mod line;
    pub mod trace;
}
#[path = "apply"]
mod p30 {
    use soroban_env_host_p30 as host;
    use soroban_simulation_p30 as simulation;
    pub const PROTOCOL: u32 = host::meta::INTERFACE_VERSION.protocol;
    pub mod line;
    pub mod trace;
}

// Each module runs the protocol it is named for, and the lines are the ones protocols.rs lists.
const _: () = assert!(p28::PROTOCOL == 28 && p29::PROTOCOL == 29 && p30::PROTOCOL == 30);
const _: () = assert!(crate::protocols::eq(&crate::protocols::SUPPORTED, &[p28::PROTOCOL, p29::PROTOCOL, p30::PROTOCOL]));

/// Ledger values of the ledger being closed.
#[derive(Clone, Debug)]
pub struct ApplyLedger {
    pub sequence: u32,
    pub timestamp: u64,
    pub protocol_version: u32,
    pub base_reserve: u32,
    pub network_id: [u8; 32],
}

/// One footprint key's current state, in footprint order (read-only keys, then read-write).
pub struct FootprintEntry {
    /// LedgerEntry XDR; None when the key has no live entry.
    pub entry: Option<Vec<u8>>,
    /// For contract data and code: the live-until ledger (already the restored one for auto-restored
    /// entries).
    pub live_until: Option<u32>,
}

pub struct InvokeInput {
    pub host_function: Vec<u8>,
    pub resources: Vec<u8>,
    pub restored_rw_entry_indices: Vec<u32>,
    pub source_account: Vec<u8>,
    pub auth_entries: Vec<Vec<u8>>,
    pub ledger: ApplyLedger,
    pub entries: Vec<FootprintEntry>,
    pub prng_seed: [u8; 32],
    pub enable_diagnostics: bool,
    /// Records the host's frames, their budget readings and storage calls (`InvokeOutput::trace`).
    pub trace: bool,
}

/// One thing the host reported to the trace hook while it ran (see `apply/trace.rs`).
#[derive(Clone, Debug)]
pub enum TraceStep {
    /// A frame was pushed. `kind`: VM, SAC or the host function's type; `function`: the symbol as
    /// the host shows it (long symbols by handle; the diagnostic fn_call events name them in full);
    /// `args`: how many arguments it was called with.
    Push { kind: String, function: String, args: u32, cpu: u64, mem: u64 },
    /// The top frame is about to be popped; `result` is the host's rendering of what it returned
    /// (`ok`) or of its error. A failed frame's changes are rolled back right after.
    Pop { ok: bool, result: String, cpu: u64, mem: u64 },
    /// A storage call the top frame made through the host (get/put/has/del/extend), its arguments
    /// as the host shows them.
    Storage { call: String, args: Vec<String> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The contract trapped, returned an error, or auth failed: INVOKE_HOST_FUNCTION_TRAPPED.
    Trapped,
    /// Instructions or memory beyond what was declared: RESOURCE_LIMIT_EXCEEDED.
    ResourceLimitExceeded,
    /// The host's own fault (core throws and the transaction ends txINTERNAL_ERROR).
    Internal,
}

#[derive(Default)]
pub struct InvokeOutput {
    pub failure: Option<Failure>,
    /// The host's error text on failure.
    pub error: Option<String>,
    /// ScVal XDR of the return value.
    pub return_value: Option<Vec<u8>>,
    /// ContractEvent XDR each.
    pub contract_events: Vec<Vec<u8>>,
    /// DiagnosticEvent XDR each (when diagnostics are on; also on failure).
    pub diagnostic_events: Vec<Vec<u8>>,
    /// New values (LedgerEntry XDR) of the read-write entries the call kept, and a TTL entry for
    /// every entry whose live-until ledger grew. A read-write key absent here was deleted.
    pub modified_entries: Vec<Vec<u8>>,
    pub rent_fee: i64,
    pub cpu_insns: u64,
    pub mem_bytes: u64,
    /// The host's trace, when asked for (`InvokeInput::trace`).
    pub trace: Vec<TraceStep>,
}


/// A rent change of an extended or restored entry (ExtendFootprintTTL, RestoreFootprint).
#[derive(Clone, Debug)]
pub struct RentChange {
    pub is_persistent: bool,
    pub is_code_entry: bool,
    pub old_size_bytes: u32,
    pub new_size_bytes: u32,
    pub old_live_until_ledger: u32,
    pub new_live_until_ledger: u32,
}

/// A transaction's resource use, for its resource fee.
#[derive(Clone, Debug)]
pub struct Resources {
    pub instructions: u32,
    pub disk_read_entries: u32,
    pub write_entries: u32,
    pub disk_read_bytes: u32,
    pub write_bytes: u32,
    pub contract_events_size_bytes: u32,
    pub transaction_size_bytes: u32,
}

/// One protocol's applier, made when the network first runs that protocol.
enum Line {
    P28(p28::line::LineApplier),
    P29(p29::line::LineApplier),
    P30(p30::line::LineApplier),
}

impl Line {
    fn new(protocol: u32, config_entries: &[Vec<u8>]) -> Result<Self> {
        Ok(match protocol {
            p if p == p28::PROTOCOL => Line::P28(p28::line::LineApplier::new(config_entries)?),
            p if p == p29::PROTOCOL => Line::P29(p29::line::LineApplier::new(config_entries)?),
            p if p == p30::PROTOCOL => Line::P30(p30::line::LineApplier::new(config_entries)?),
            p => bail!("protocol {p} is not one this build applies ({})", crate::protocols::describe()),
        })
    }
}

// Every method of a line, once for all lines.
macro_rules! on_line {
    ($line:expr, $applier:ident => $call:expr) => {
        match $line {
            Line::P28($applier) => $call,
            Line::P29($applier) => $call,
            Line::P30($applier) => $call,
        }
    };
}

pub struct Applier {
    /// The protocol the network runs now (its latest ledger's): fees and rent sizes are its line's.
    protocol: RwLock<u32>,
    /// The ConfigSetting entries as they are now, for lines made later.
    config_entries: RwLock<Vec<Vec<u8>>>,
    /// The lines used so far, by protocol; each keeps its module cache for the network's life.
    lines: Mutex<Vec<(u32, Arc<Line>)>>,
}

impl Applier {
    /// `config_entries`: the network's ConfigSetting LedgerEntries (XDR); `protocol`: the one it runs.
    pub fn new(config_entries: &[Vec<u8>], protocol: u32) -> Result<Self> {
        let applier = Self {
            protocol: RwLock::new(protocol),
            config_entries: RwLock::new(config_entries.to_vec()),
            lines: Mutex::new(Vec::new()),
        };
        applier.line(protocol)?; // a configuration the line cannot read fails here, at start
        Ok(applier)
    }

    /// Takes the network's ConfigSetting entries (XDR) as they are now, and the protocol it now runs.
    pub fn set_config(&self, config_entries: &[Vec<u8>], protocol: u32) -> Result<()> {
        *self.config_entries.write().map_err(|_| anyhow!("the configuration lock is poisoned"))? = config_entries.to_vec();
        *self.protocol.write().map_err(|_| anyhow!("the protocol lock is poisoned"))? = protocol;
        let lines: Vec<Arc<Line>> = self.lines.lock().map_err(|_| anyhow!("the lines lock is poisoned"))?.iter().map(|(_, l)| l.clone()).collect();
        for line in lines {
            on_line!(line.as_ref(), a => a.set_config(config_entries))?;
        }
        self.line(protocol)?;
        Ok(())
    }

    fn current_protocol(&self) -> u32 {
        *self.protocol.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The line of `protocol`, made (with the current configuration) on first use.
    fn line(&self, protocol: u32) -> Result<Arc<Line>> {
        let mut lines = self.lines.lock().map_err(|_| anyhow!("the lines lock is poisoned"))?;
        if let Some((_, line)) = lines.iter().find(|(p, _)| *p == protocol) {
            return Ok(line.clone());
        }
        let entries = self.config_entries.read().map_err(|_| anyhow!("the configuration lock is poisoned"))?.clone();
        let line = Arc::new(Line::new(protocol, &entries)?);
        lines.push((protocol, line.clone()));
        Ok(line)
    }

    pub fn entry_size_for_rent(&self, entry_xdr: &[u8]) -> Result<u32> {
        let line = self.line(self.current_protocol())?;
        on_line!(line.as_ref(), a => a.entry_size_for_rent(entry_xdr))
    }

    pub fn rent_fee(&self, changes: &[RentChange], ledger_seq: u32) -> Result<i64> {
        let line = self.line(self.current_protocol())?;
        Ok(on_line!(line.as_ref(), a => a.rent_fee(changes, ledger_seq)))
    }

    /// (non-refundable, refundable) resource fee of the given resource use.
    pub fn resource_fee(&self, resources: &Resources) -> Result<(i64, i64)> {
        let line = self.line(self.current_protocol())?;
        Ok(on_line!(line.as_ref(), a => a.resource_fee(resources)))
    }

    /// Runs an InvokeHostFunction operation on the line of its ledger's protocol.
    pub fn invoke(&self, input: &InvokeInput) -> Result<InvokeOutput> {
        let line = self.line(input.ledger.protocol_version)?;
        on_line!(line.as_ref(), a => a.invoke(input))
    }
}
