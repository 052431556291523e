//! lumen-rpc's native addon: the Soroban host (soroban-env-host / soroban-simulation, protocol 28;
//! simulation also carries the protocol-27 line, see `simulate.rs`) exposed to Node through
//! Node-API.
//!
//! Host work runs on big-stack host threads with panics caught (see `runner.rs`). Simulations settle
//! their promise straight from the host thread, so the event loop keeps serving; the benchmark and
//! the panic self-test are napi AsyncTasks; ingestion and apply calls block the calling JS thread
//! until their host thread is done. Ledger state is read from the node's SQLite database directly
//! (see `store.rs`), never through JavaScript callbacks.
//!
//! XDR crosses the boundary as base64 strings (what the JSON-RPC API carries), except the genesis
//! entries, which are raw XDR bytes for the storage layer.

// The host allocates and frees many small objects per call (XDR values, host objects, events): under
// glibc malloc, malloc/realloc/free took about 15% of a counter simulation (perf, 2026-11-22), and
// the same simulation runs about 14% faster on mimalloc. Large zeroed blocks: see allocator.rs.
#[global_allocator]
static ALLOCATOR: allocator::HostAllocator = allocator::HostAllocator;

mod allocator;
mod apply;
mod chain;
mod config;
mod ingest;
mod protocols;
mod runner;
mod simulate;
mod store;
mod xdr_json;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use simulate::{Common, LedgerParams, OpInput, SimulationOutput};
use stellar_xdr::{Limits, ReadXdr, WriteXdr};

// ---------------------------------------------------------------------------------------------
// Requests

/// Ledger values for the host. Omit to use the latest ledger stored in the database (read in the
/// same snapshot as the state).
#[napi(object)]
pub struct LedgerInput {
    pub sequence: u32,
    /// Close time, unix seconds.
    pub timestamp: i64,
    pub protocol_version: u32,
    /// Stroops.
    pub base_reserve: u32,
}

/// Simulation of an InvokeHostFunction operation. Give either `transactionXdr` (a
/// TransactionEnvelope with exactly one operation; fee bumps accepted) or `operationXdr` (an
/// Operation) plus `sourceAccount` when the operation has no source of its own.
#[napi(object)]
pub struct SimulateInvokeRequest {
    /// The node's SQLite database (opened read-only).
    pub db_path: String,
    pub network_passphrase: String,
    pub ledger: Option<LedgerInput>,
    /// TransactionEnvelope XDR, base64.
    pub transaction_xdr: Option<String>,
    /// Operation XDR, base64.
    pub operation_xdr: Option<String>,
    /// G... strkey or AccountId XDR base64.
    pub source_account: Option<String>,
    /// "enforce" | "record" | "record_allow_nonroot"; default: enforce when the operation carries
    /// auth entries, record otherwise.
    pub auth_mode: Option<String>,
    /// Record AddressV2 credentials (CAP-71) in the recording modes. Default false.
    pub use_upgraded_auth: Option<bool>,
    /// Added to the simulated instructions (at least 50,000 are added anyway).
    pub instruction_leeway: Option<u32>,
    /// Record diagnostic events (default true).
    pub enable_debug: Option<bool>,
    /// 32 bytes; random when omitted. For reproducible simulations in tests.
    pub prng_seed: Option<Buffer>,
    /// The developer network's impersonation (both or neither): the node's ed25519 public key the
    /// impersonated accounts' auth entries are signed with, and those accounts' public keys.
    pub impersonation_signer: Option<Buffer>,
    pub impersonated_accounts: Option<Vec<Buffer>>,
}

/// Simulation of ExtendFootprintTTL or RestoreFootprint. Give either `transactionXdr` (its
/// SorobanTransactionData carries the footprint) or `operationXdr` plus `footprintXdr`.
#[napi(object)]
pub struct SimulateFootprintRequest {
    pub db_path: String,
    pub network_passphrase: String,
    pub ledger: Option<LedgerInput>,
    pub transaction_xdr: Option<String>,
    pub operation_xdr: Option<String>,
    /// LedgerFootprint XDR, base64.
    pub footprint_xdr: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Results

#[napi(object)]
pub struct StateChange {
    /// LedgerKey XDR, base64.
    pub key: String,
    /// LedgerEntry XDR, base64; absent when the entry was created.
    pub before: Option<String>,
    /// LedgerEntry XDR, base64; absent when the entry was deleted.
    pub after: Option<String>,
}

#[napi(object)]
pub struct RestorePreamble {
    /// SorobanTransactionData XDR, base64, for the RestoreFootprint transaction to send first.
    pub transaction_data: String,
    pub min_resource_fee: i64,
}

/// What a simulation found. On failure `error` holds the host's text and the other fields are
/// empty, except `events`, `cpuInstructions`, `memoryBytes` and `latestLedger` when known.
#[napi(object)]
pub struct SimulationResult {
    pub error: Option<String>,
    /// ScVal XDR, base64 (successful invocations).
    pub result: Option<String>,
    /// SorobanAuthorizationEntry XDR, base64, each.
    pub auth: Vec<String>,
    /// SorobanTransactionData XDR, base64.
    pub transaction_data: Option<String>,
    /// Equals transactionData's resourceFee (0 on failure).
    pub min_resource_fee: i64,
    /// DiagnosticEvent XDR, base64, each (every host event, contract events included).
    pub events: Vec<String>,
    /// ContractEvent XDR, base64, each (successful invocations only).
    pub contract_events: Vec<String>,
    pub state_changes: Vec<StateChange>,
    pub cpu_instructions: i64,
    pub memory_bytes: i64,
    pub restore_preamble: Option<RestorePreamble>,
    /// The ledger the simulation ran against (0 if the database could not be read).
    pub latest_ledger: u32,
    /// The protocol of the host line that ran the simulation (0 when none did: the database could
    /// not be read, or no line runs the ledger's protocol).
    pub host_protocol: u32,
    /// LedgerKey XDR, base64, each: every key the host asked the database for, found or not, also
    /// on failure.
    pub read_keys: Vec<String>,
}

fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// A 32-byte value (a seed, a network id) from JS bytes.
fn bytes32(bytes: &[u8], name: &str) -> Result<[u8; 32]> {
    <[u8; 32]>::try_from(bytes).map_err(|_| Error::new(Status::InvalidArg, format!("{name} must be 32 bytes")))
}

/// A ledger close time (unix seconds) from JS.
fn close_time(timestamp: i64) -> Result<u64> {
    u64::try_from(timestamp).map_err(|_| Error::new(Status::InvalidArg, "ledger.timestamp must not be negative"))
}

fn to_js(out: SimulationOutput) -> SimulationResult {
    SimulationResult {
        error: out.error,
        result: out.result.as_deref().map(b64),
        auth: out.auth.iter().map(|a| b64(a)).collect(),
        transaction_data: out.transaction_data.as_deref().map(b64),
        min_resource_fee: out.min_resource_fee,
        events: out.events.iter().map(|e| b64(e)).collect(),
        contract_events: out.contract_events.iter().map(|e| b64(e)).collect(),
        state_changes: out
            .state_changes
            .iter()
            .map(|c| StateChange {
                key: b64(&c.key),
                before: c.before.as_deref().map(b64),
                after: c.after.as_deref().map(b64),
            })
            .collect(),
        cpu_instructions: out.cpu_instructions as i64,
        memory_bytes: out.memory_bytes as i64,
        restore_preamble: out.restore_preamble.map(|p| RestorePreamble {
            transaction_data: b64(&p.transaction_data),
            min_resource_fee: p.min_resource_fee,
        }),
        latest_ledger: out.latest_ledger,
        host_protocol: out.host_protocol,
        read_keys: out.read_keys.iter().map(|k| b64(k)).collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Request conversion (on the JS thread, before the task leaves it)

fn common(db_path: String, network_passphrase: String, ledger: Option<LedgerInput>) -> Result<Common> {
    let ledger = ledger
        .map(|l| -> Result<LedgerParams> {
            Ok(LedgerParams {
                sequence: l.sequence,
                timestamp: close_time(l.timestamp)?,
                protocol_version: l.protocol_version,
                base_reserve: l.base_reserve,
            })
        })
        .transpose()?;
    if db_path.is_empty() {
        return Err(Error::new(Status::InvalidArg, "dbPath is required"));
    }
    Ok(Common { db_path, network_passphrase, ledger })
}

fn op_input(
    transaction_xdr: Option<String>,
    operation_xdr: Option<String>,
    source_account: Option<String>,
    footprint_xdr: Option<String>,
) -> Result<OpInput> {
    match (transaction_xdr, operation_xdr) {
        (Some(tx), None) => Ok(OpInput::Envelope(tx)),
        (None, Some(operation)) => Ok(OpInput::Parts { operation, source_account, footprint: footprint_xdr }),
        _ => Err(Error::new(
            Status::InvalidArg,
            "give exactly one of transactionXdr and operationXdr",
        )),
    }
}

fn invoke_request(r: SimulateInvokeRequest) -> Result<simulate::InvokeRequest> {
    let auth_mode = r
        .auth_mode
        .as_deref()
        .map(|m| m.parse::<simulate::AuthMode>())
        .transpose()
        .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
    let prng_seed = r.prng_seed.map(|b| bytes32(&b, "prngSeed")).transpose()?;
    let impersonation = match (r.impersonation_signer, r.impersonated_accounts) {
        (Some(signer), Some(accounts)) => Some(simulate::Impersonation {
            signer: bytes32(&signer, "impersonationSigner")?,
            accounts: accounts.iter().map(|a| bytes32(a, "impersonatedAccounts[]")).collect::<Result<_>>()?,
        }),
        (None, None) => None,
        _ => return Err(Error::new(Status::InvalidArg, "give both impersonationSigner and impersonatedAccounts, or neither")),
    };
    Ok(simulate::InvokeRequest {
        common: common(r.db_path, r.network_passphrase, r.ledger)?,
        op: op_input(r.transaction_xdr, r.operation_xdr, r.source_account, None)?,
        auth_mode,
        use_upgraded_auth: r.use_upgraded_auth.unwrap_or(false),
        instruction_leeway: r.instruction_leeway.unwrap_or(0),
        enable_debug: r.enable_debug.unwrap_or(true),
        prng_seed,
        impersonation,
    })
}

// ---------------------------------------------------------------------------------------------
// Tasks

/// Repeats one invocation simulation `iterations` times on one host thread and reports each
/// run's wall time in milliseconds: the direct-Rust baseline the benchmark compares against.
pub struct BenchInvokeTask(Option<simulate::InvokeRequest>, u32);

impl Task for BenchInvokeTask {
    type Output = Vec<f64>;
    type JsValue = Vec<f64>;

    fn compute(&mut self) -> Result<Self::Output> {
        let req = self.0.take().ok_or_else(|| Error::from_reason("task ran twice"))?;
        let n = self.1;
        runner::run_on_host_thread("benchmark", move || {
            (0..n)
                .map(|_| {
                    let t = std::time::Instant::now();
                    let out = simulate::simulate_invoke(&req);
                    let ms = t.elapsed().as_secs_f64() * 1000.0;
                    out.error.map_or(Ok(ms), Err)
                })
                .collect::<std::result::Result<Vec<f64>, String>>()
        })
        .and_then(|r| r)
        .map_err(Error::from_reason)
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

// ---------------------------------------------------------------------------------------------
// Exports

/// Runs a simulation on a host thread and settles the returned promise from there: the result is
/// converted (base64) on the host thread, and no libuv worker sits between the event loop and the
/// host, which saves two thread wake-ups per call.
fn simulate_on_host_thread<'env, F>(env: &'env Env, work: F) -> Result<Object<'env>>
where
    F: FnOnce() -> SimulationOutput + Send + 'static,
{
    let (deferred, promise) = env.create_deferred::<SimulationResult, _>()?;
    let deferred_for_failure = deferred.clone();
    runner::spawn_on_host_thread("simulation", work, move |outcome| {
        let output = outcome.unwrap_or_else(|e| SimulationOutput { error: Some(e), ..Default::default() });
        let result = to_js(output);
        deferred.resolve(move |_| Ok(result));
    })
    .map_err(|e| {
        deferred_for_failure.reject(Error::from_reason(e.clone()));
        Error::from_reason(e)
    })?;
    Ok(promise)
}

/// Simulates an InvokeHostFunction operation against the database's latest ledger, on the host
/// line of that ledger's protocol. Never rejects for simulation failures (they come back in
/// `error`); throws for malformed requests.
#[napi(ts_return_type = "Promise<SimulationResult>")]
pub fn simulate_invoke<'env>(env: &'env Env, request: SimulateInvokeRequest) -> Result<Object<'env>> {
    let req = invoke_request(request)?;
    simulate_on_host_thread(env, move || simulate::simulate_invoke(&req))
}

/// Simulates ExtendFootprintTTL (with `restorePreamble` when archived entries must be restored
/// first) or RestoreFootprint.
#[napi(ts_return_type = "Promise<SimulationResult>")]
pub fn simulate_footprint<'env>(env: &'env Env, request: SimulateFootprintRequest) -> Result<Object<'env>> {
    let req = simulate::FootprintRequest {
        common: common(request.db_path, request.network_passphrase, request.ledger)?,
        op: op_input(request.transaction_xdr, request.operation_xdr, None, request.footprint_xdr)?,
    };
    simulate_on_host_thread(env, move || simulate::simulate_footprint(&req))
}

/// Runs the same invocation simulation `iterations` times inside Rust; resolves to the per-run
/// milliseconds (rejects if a run fails).
#[napi]
pub fn bench_simulate_invoke(request: SimulateInvokeRequest, iterations: u32) -> Result<AsyncTask<BenchInvokeTask>> {
    Ok(AsyncTask::new(BenchInvokeTask(Some(invoke_request(request)?), iterations)))
}

/// The ConfigSetting LedgerEntries (XDR) a network at `protocol` starts with, the public testnet's
/// values, in ConfigSettingId order (ids 0..=20).
#[napi]
pub fn genesis_config_setting_entries(last_modified_ledger_seq: u32, protocol: u32) -> Result<Vec<Buffer>> {
    if !protocols::SUPPORTED.contains(&protocol) {
        return Err(Error::from_reason(format!("protocol {protocol} is not one this build runs ({})", protocols::describe())));
    }
    config::genesis_config_ledger_entries(protocol, last_modified_ledger_seq)
        .iter()
        .map(|e| {
            e.to_xdr(Limits::none())
                .map(Buffer::from)
                .map_err(|err| Error::from_reason(err.to_string()))
        })
        .collect()
}

/// The ConfigSetting LedgerEntries (XDR) an upgrade to `toProtocol` changes, given the network's
/// ConfigSetting entries before it (config.rs's protocol_upgrade_changes); empty when none change.
#[napi]
pub fn protocol_upgrade_config_entries(config_entries: Vec<Buffer>, to_protocol: u32) -> Result<Vec<Buffer>> {
    if !protocols::SUPPORTED.contains(&to_protocol) {
        return Err(Error::from_reason(format!("protocol {to_protocol} is not one this build runs ({})", protocols::describe())));
    }
    let entries = config_entries
        .iter()
        .map(|b| stellar_xdr::LedgerEntry::from_xdr(b.as_ref(), Limits::none()).map_err(|e| Error::from_reason(format!("cannot decode a ConfigSetting entry: {e}"))))
        .collect::<Result<Vec<_>>>()?;
    config::protocol_upgrade_changes(&entries, to_protocol)
        .iter()
        .map(|e| e.to_xdr(Limits::none()).map(Buffer::from).map_err(|err| Error::from_reason(err.to_string())))
        .collect()
}

/// Hands the free pages of the process's C heap (glibc malloc, which Node's own buffers use) back
/// to the OS. After a burst of large answers glibc keeps the freed memory in its arenas, and the
/// node's resident size would stay at its peak. True when memory was released; false where the
/// C library is not glibc.
#[napi]
pub fn trim_c_heap() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only walks glibc's own arenas.
        unsafe { libc::malloc_trim(0) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Drops the idle read-only connections kept for `dbPath` (all databases when omitted); call it
/// before deleting a database file.
#[napi]
pub fn close_database(db_path: Option<String>) {
    store::close_idle(db_path.as_deref());
}

#[napi(object)]
pub struct HostInfo {
    /// The newest ledger protocol this build runs.
    pub protocol_version: u32,
    /// The ledger protocols apply and simulation run, oldest first: one host line each.
    pub protocols: Vec<u32>,
    /// The same (simulation runs every line apply does).
    pub simulation_protocols: Vec<u32>,
    /// The host crate of each line, oldest first ("28.0.2, 29.0.2, 30.0.0").
    pub soroban_env_host_version: String,
    /// The XDR the addon reads and writes (the newest line's).
    pub stellar_xdr_version: String,
    pub addon_version: String,
}

#[napi]
pub fn host_info() -> HostInfo {
    let lines = [&soroban_env_host_p28::VERSION.pkg, &soroban_env_host_p29::VERSION.pkg, &soroban_env_host_p30::VERSION.pkg];
    HostInfo {
        protocol_version: protocols::SUPPORTED[protocols::SUPPORTED.len() - 1],
        protocols: protocols::SUPPORTED.to_vec(),
        simulation_protocols: simulate::SUPPORTED_PROTOCOLS.to_vec(),
        soroban_env_host_version: lines.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "),
        stellar_xdr_version: soroban_env_host_p30::VERSION.xdr.pkg.to_string(),
        addon_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

pub struct PanicTask(String);

impl Task for PanicTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<Self::Output> {
        let message = self.0.clone();
        Ok(match runner::run_on_host_thread("self-test", move || -> () { panic!("{message}") }) {
            Ok(()) => "no panic".to_string(),
            Err(caught) => caught,
        })
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// Self-test of the panic guard: panics on a host thread and resolves to the caught error text
/// (the process survives). For tests.
#[napi]
pub fn self_test_panic(message: String) -> AsyncTask<PanicTask> {
    AsyncTask::new(PanicTask(message))
}

// ---------------------------------------------------------------------------------------------
// Ingestion

/// One LedgerCloseMeta's rows for storage (src/ingest/ledgerToBatch.ts natively; unpacked by
/// src/ingest/nativeLedgerToBatch.ts). `networkId`: sha256 of the network passphrase. Runs on a
/// host thread (deep XDR, caught panics) and waits for it.
#[napi]
pub fn ledger_to_rows(lcm: Buffer, network_id: Buffer) -> Result<ingest::LedgerRows> {
    let network_id = bytes32(&network_id, "networkId")?;
    let lcm = lcm.to_vec();
    runner::run_on_host_thread("ingest", move || ingest::ledger_to_rows(&lcm, &network_id))
        .and_then(|r| r)
        .map(ingest::LedgerRows::from)
        .map_err(Error::from_reason)
}

/// The floor any ingester stands on, for the benchmarks: decoding `lcm` as a LedgerCloseMeta with
/// the stellar-xdr crate, `iterations` times, and nothing else. Milliseconds per decode.
#[napi]
pub fn bench_decode_ledger_close_meta(lcm: Buffer, iterations: u32) -> Result<Vec<f64>> {
    let lcm = lcm.to_vec();
    runner::run_on_host_thread("bench decode", move || ingest::time_decodes(&lcm, iterations))
        .and_then(|r| r)
        .map_err(Error::from_reason)
}

// ---------------------------------------------------------------------------------------------
// XDR as JSON (xdrFormat "json")

/// Each value's JSON text as UTF-8 (`types[i]` names the XDR type of `values[i]`), rendered by the
/// stellar-xdr crate's serde support on a background thread (deep values need its big stack; its
/// lower priority keeps the Node thread serving meanwhile); the promise
/// settles from there. Rejects, naming the value, when one does not decode or renders too large.
#[napi(ts_return_type = "Promise<Buffer[]>")]
pub fn xdr_to_json<'env>(env: &'env Env, types: Vec<String>, values: Vec<Uint8Array>) -> Result<Object<'env>> {
    if types.len() != values.len() {
        return Err(Error::new(Status::InvalidArg, format!("{} types for {} values", types.len(), values.len())));
    }
    let items: Vec<(String, Vec<u8>)> = types.into_iter().zip(values.iter().map(|v| v.to_vec())).collect();
    let (deferred, promise) = env.create_deferred::<Vec<Buffer>, _>()?;
    let deferred_for_failure = deferred.clone();
    runner::spawn_on_background_thread("XDR to JSON", move || xdr_json::render_all(&items), move |outcome| {
        match outcome.and_then(|r| r) {
            Ok(rendered) => {
                let buffers: Vec<Buffer> = rendered.into_iter().map(Buffer::from).collect();
                deferred.resolve(move |_| Ok(buffers));
            }
            Err(e) => deferred.reject(Error::from_reason(e)),
        }
    })
    .map_err(|e| {
        deferred_for_failure.reject(Error::from_reason(e.clone()));
        Error::from_reason(e)
    })?;
    Ok(promise)
}

/// One small value's JSON text, rendered on the calling thread (no thread hand-off): for values
/// whose nesting the caller bounds (an event's topic, a ledger entry).
#[napi]
pub fn xdr_to_json_sync(type_name: String, value: Uint8Array) -> Result<String> {
    let out = xdr_json::render(&type_name, &value, xdr_json::MAX_JSON_BYTES).map_err(Error::from_reason)?;
    String::from_utf8(out).map_err(|e| Error::from_reason(e.to_string()))
}

// ---------------------------------------------------------------------------------------------
// Applying Soroban operations on the standalone network

#[napi(object)]
pub struct ApplyLedgerInput {
    pub sequence: u32,
    /// Close time, unix seconds.
    pub timestamp: i64,
    pub protocol_version: u32,
    pub base_reserve: u32,
    /// sha256 of the network passphrase.
    pub network_id: Buffer,
}

/// One footprint key's state, in footprint order (read-only keys, then read-write).
#[napi(object)]
pub struct FootprintEntryInput {
    /// LedgerEntry XDR; absent when the key has no live entry.
    pub entry: Option<Buffer>,
    /// Contract data and code: the live-until ledger (the restored one for auto-restored entries).
    pub live_until: Option<u32>,
}

#[napi(object)]
pub struct InvokeApplyRequest {
    /// HostFunction XDR.
    pub host_function: Buffer,
    /// SorobanResources XDR (the transaction's declared resources and footprint).
    pub resources: Buffer,
    pub restored_rw_entry_indices: Vec<u32>,
    /// AccountId XDR of the operation's source.
    pub source_account: Buffer,
    /// SorobanAuthorizationEntry XDR each.
    pub auth_entries: Vec<Buffer>,
    pub ledger: ApplyLedgerInput,
    pub entries: Vec<FootprintEntryInput>,
    /// 32 bytes.
    pub prng_seed: Buffer,
    pub enable_diagnostics: bool,
    /// Records the host's frames, budget readings and storage calls in `trace`.
    pub trace: Option<bool>,
}

/// One step of the host's trace (apply::TraceStep): `step` is "push", "pop" or "storage".
#[napi(object)]
pub struct TraceStepOutput {
    pub step: String,
    /// push: VM, SAC or the host function type.
    pub kind: Option<String>,
    /// push: the function symbol as the host shows it.
    pub function: Option<String>,
    /// push: how many arguments the frame was called with.
    pub arg_count: Option<u32>,
    /// pop: whether the frame returned (else it failed and its changes are rolled back).
    pub ok: Option<bool>,
    /// pop: the host's rendering of the returned value or of the error.
    pub result: Option<String>,
    /// storage: the host function called (get_contract_data, put_contract_data, ...).
    pub call: Option<String>,
    /// storage: its arguments as the host shows them.
    pub args: Option<Vec<String>>,
    /// push / pop: CPU instructions and memory bytes the budget had metered.
    pub cpu: Option<i64>,
    pub mem: Option<i64>,
}

fn trace_step(step: apply::TraceStep) -> TraceStepOutput {
    let blank = TraceStepOutput {
        step: String::new(), kind: None, function: None, arg_count: None, ok: None, result: None, call: None, args: None, cpu: None, mem: None,
    };
    match step {
        apply::TraceStep::Push { kind, function, args, cpu, mem } => TraceStepOutput {
            step: "push".into(), kind: Some(kind), function: Some(function), arg_count: Some(args), cpu: Some(cpu as i64), mem: Some(mem as i64), ..blank
        },
        apply::TraceStep::Pop { ok, result, cpu, mem } => TraceStepOutput {
            step: "pop".into(), ok: Some(ok), result: Some(result), cpu: Some(cpu as i64), mem: Some(mem as i64), ..blank
        },
        apply::TraceStep::Storage { call, args } => TraceStepOutput { step: "storage".into(), call: Some(call), args: Some(args), ..blank },
    }
}

#[napi(object)]
pub struct InvokeApplyResult {
    /// Absent on success; else "trapped", "resource_limit_exceeded" or "internal".
    pub failure: Option<String>,
    /// The host's error text on failure.
    pub error: Option<String>,
    /// ScVal XDR.
    pub return_value: Option<Buffer>,
    /// ContractEvent XDR each.
    pub contract_events: Vec<Buffer>,
    /// DiagnosticEvent XDR each.
    pub diagnostic_events: Vec<Buffer>,
    /// LedgerEntry XDR each: the read-write entries kept and the TTL entries that grew. A
    /// read-write key not among them was deleted.
    pub modified_entries: Vec<Buffer>,
    pub rent_fee: i64,
    pub cpu_insns: i64,
    pub mem_bytes: i64,
    /// The host's trace, when the request asked for it.
    pub trace: Option<Vec<TraceStepOutput>>,
}

#[napi(object)]
pub struct RentChangeInput {
    pub is_persistent: bool,
    pub is_code_entry: bool,
    pub old_size_bytes: u32,
    pub new_size_bytes: u32,
    pub old_live_until_ledger: u32,
    pub new_live_until_ledger: u32,
}

#[napi(object)]
pub struct ResourcesInput {
    pub instructions: u32,
    pub disk_read_entries: u32,
    pub write_entries: u32,
    pub disk_read_bytes: u32,
    pub write_bytes: u32,
    pub contract_events_size_bytes: u32,
    pub transaction_size_bytes: u32,
}

#[napi(object)]
pub struct ResourceFee {
    pub non_refundable: i64,
    pub refundable: i64,
}

fn buf(b: Vec<u8>) -> Buffer {
    Buffer::from(b)
}

/// The host as the standalone network's ledger engine uses it: one per network, holding the
/// network configuration and the module cache.
#[napi]
pub struct SorobanApplier {
    inner: std::sync::Arc<apply::Applier>,
}

#[napi]
impl SorobanApplier {
    /// `configEntries`: the network's ConfigSetting LedgerEntries (XDR); `protocol`: the one it runs.
    #[napi(constructor)]
    pub fn new(config_entries: Vec<Buffer>, protocol: u32) -> Result<Self> {
        let entries: Vec<Vec<u8>> = config_entries.iter().map(|b| b.to_vec()).collect();
        let inner = apply::Applier::new(&entries, protocol).map_err(|e| Error::from_reason(simulate::render_error(&e)))?;
        Ok(Self { inner: std::sync::Arc::new(inner) })
    }

    /// Takes the network's ConfigSetting entries (XDR) as they are now, and the protocol it now runs;
    /// the module caches stay.
    #[napi]
    pub fn set_config(&self, config_entries: Vec<Buffer>, protocol: u32) -> Result<()> {
        let entries: Vec<Vec<u8>> = config_entries.iter().map(|b| b.to_vec()).collect();
        self.inner.set_config(&entries, protocol).map_err(|e| Error::from_reason(simulate::render_error(&e)))
    }

    /// Runs an InvokeHostFunction operation (synchronously, on a big-stack host thread). Throws
    /// only for malformed requests; the host's failures come back in `failure`.
    #[napi]
    pub fn invoke(&self, request: InvokeApplyRequest) -> Result<InvokeApplyResult> {
        let seed = bytes32(&request.prng_seed, "prngSeed")?;
        let network_id = bytes32(&request.ledger.network_id, "ledger.networkId")?;
        let input = apply::InvokeInput {
            host_function: request.host_function.to_vec(),
            resources: request.resources.to_vec(),
            restored_rw_entry_indices: request.restored_rw_entry_indices,
            source_account: request.source_account.to_vec(),
            auth_entries: request.auth_entries.iter().map(|b| b.to_vec()).collect(),
            ledger: apply::ApplyLedger {
                sequence: request.ledger.sequence,
                timestamp: close_time(request.ledger.timestamp)?,
                protocol_version: request.ledger.protocol_version,
                base_reserve: request.ledger.base_reserve,
                network_id,
            },
            entries: request
                .entries
                .into_iter()
                .map(|e| apply::FootprintEntry { entry: e.entry.map(|b| b.to_vec()), live_until: e.live_until })
                .collect(),
            prng_seed: seed,
            enable_diagnostics: request.enable_diagnostics,
            trace: request.trace.unwrap_or(false),
        };
        let traced = input.trace;
        let applier = self.inner.clone();
        let out = runner::run_on_host_thread("apply", move || applier.invoke(&input).map_err(|e| simulate::render_error(&e)))
            .and_then(|r| r)
            .map_err(Error::from_reason)?;
        Ok(InvokeApplyResult {
            failure: out.failure.map(|f| {
                match f {
                    apply::Failure::Trapped => "trapped",
                    apply::Failure::ResourceLimitExceeded => "resource_limit_exceeded",
                    apply::Failure::Internal => "internal",
                }
                .to_string()
            }),
            error: out.error,
            return_value: out.return_value.map(buf),
            contract_events: out.contract_events.into_iter().map(buf).collect(),
            diagnostic_events: out.diagnostic_events.into_iter().map(buf).collect(),
            modified_entries: out.modified_entries.into_iter().map(buf).collect(),
            rent_fee: out.rent_fee,
            cpu_insns: out.cpu_insns as i64,
            mem_bytes: out.mem_bytes as i64,
            trace: traced.then(|| out.trace.into_iter().map(trace_step).collect()),
        })
    }

    /// The size an entry pays rent for (XDR size, plus the parsed module's memory for code).
    #[napi]
    pub fn entry_size_for_rent(&self, entry: Buffer) -> Result<u32> {
        self.inner.entry_size_for_rent(&entry).map_err(|e| Error::from_reason(simulate::render_error(&e)))
    }

    /// Rent for extending or restoring entries, in stroops.
    #[napi]
    pub fn rent_fee(&self, changes: Vec<RentChangeInput>, ledger_seq: u32) -> Result<i64> {
        let changes: Vec<apply::RentChange> = changes
            .into_iter()
            .map(|c| apply::RentChange {
                is_persistent: c.is_persistent,
                is_code_entry: c.is_code_entry,
                old_size_bytes: c.old_size_bytes,
                new_size_bytes: c.new_size_bytes,
                old_live_until_ledger: c.old_live_until_ledger,
                new_live_until_ledger: c.new_live_until_ledger,
            })
            .collect();
        self.inner.rent_fee(&changes, ledger_seq).map_err(|e| Error::from_reason(simulate::render_error(&e)))
    }

    /// The resource fee of a resource use, split as core charges it.
    #[napi]
    pub fn resource_fee(&self, r: ResourcesInput) -> Result<ResourceFee> {
        let (non_refundable, refundable) = self.inner.resource_fee(&apply::Resources {
            instructions: r.instructions,
            disk_read_entries: r.disk_read_entries,
            write_entries: r.write_entries,
            disk_read_bytes: r.disk_read_bytes,
            write_bytes: r.write_bytes,
            contract_events_size_bytes: r.contract_events_size_bytes,
            transaction_size_bytes: r.transaction_size_bytes,
        }).map_err(|e| Error::from_reason(simulate::render_error(&e)))?;
        Ok(ResourceFee { non_refundable, refundable })
    }
}
