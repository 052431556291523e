//! One host line's apply (compiled once per line, see `apply.rs`): the line's crates are named only
//! through `super::host` and `super::simulation`; what crosses to `apply.rs` is plain Rust and XDR
//! bytes, so the lines' XDR types never meet.

use crate::apply::{ApplyLedger, Failure, InvokeInput, InvokeOutput, RentChange, Resources};
use anyhow::{anyhow, Context, Result};
use super::host::budget::{AsBudget, Budget};
use super::host::e2e_invoke::{self, entry_size_for_rent, extract_rent_changes, TtlLedgerEntryMeta};
use super::host::fees::{compute_rent_fee, compute_transaction_resource_fee, LedgerEntryRentChange, TransactionResources};
use super::host::storage::{EntryWithLiveUntil, SnapshotSource};
use super::host::vm::VersionedContractCodeCostInputs;
use super::host::xdr::{
    ContractCodeEntryExt, DiagnosticEvent, LedgerEntry, LedgerEntryData,
    LedgerEntryExt, LedgerKey, Limits, ReadXdr, ScErrorCode, ScErrorType,
    SorobanResources, TtlEntry, WriteXdr, Hash,
};
use super::host::{CompilationContext, ErrorHandler, HostError, LedgerInfo, ModuleCache};
use super::simulation::NetworkConfig;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, RwLock};

/// Contracts are compiled outside any transaction, with no limit (core's CoreCompilationContext).
#[derive(Clone)]
struct Compilation(Budget);

impl Compilation {
    fn new() -> Result<Self, HostError> {
        let budget = Budget::default();
        budget.reset_unlimited()?;
        Ok(Self(budget))
    }
}

impl ErrorHandler for Compilation {
    fn map_err<T, E>(&self, res: std::result::Result<T, E>) -> std::result::Result<T, HostError>
    where
        super::host::Error: From<E>,
        E: std::fmt::Debug,
    {
        res.map_err(HostError::from)
    }

    fn error(&self, error: super::host::Error, _msg: &str, _args: &[super::host::Val]) -> HostError {
        HostError::from(error)
    }
}

impl AsBudget for Compilation {
    fn as_budget(&self) -> &Budget {
        &self.0
    }
}

impl CompilationContext for Compilation {}

/// The ConfigSetting entries as a snapshot, so the simulation crate's loader reads them.
struct ConfigEntries(HashMap<LedgerKey, Rc<LedgerEntry>>);

impl SnapshotSource for ConfigEntries {
    fn get(&self, key: &Rc<LedgerKey>) -> std::result::Result<Option<EntryWithLiveUntil>, HostError> {
        Ok(self.0.get(key.as_ref()).map(|e| (e.clone(), None)))
    }
}

pub struct LineApplier {
    /// Replaced when the network's configuration changes (its state-size window, every sample
    /// period); the module cache stays.
    config: RwLock<Arc<NetworkConfig>>,
    modules: ModuleCache,
}

fn load_config(config_entries: &[Vec<u8>]) -> Result<NetworkConfig> {
    let mut map = HashMap::new();
    for bytes in config_entries {
        let entry = LedgerEntry::from_xdr(bytes, Limits::none()).context("cannot decode a ConfigSetting entry")?;
        map.insert(entry.to_key(), Rc::new(entry));
    }
    NetworkConfig::load_from_snapshot(&ConfigEntries(map)).context("cannot load the network configuration")
}

fn xdr<T: WriteXdr>(v: &T) -> Result<Vec<u8>> {
    Ok(v.to_xdr(Limits::none())?)
}

impl LineApplier {
    /// `config_entries`: the network's ConfigSetting LedgerEntries (XDR).
    pub fn new(config_entries: &[Vec<u8>]) -> Result<Self> {
        let config = load_config(config_entries)?;
        let compilation = Compilation::new().map_err(|e| anyhow!("{e:?}"))?;
        let modules = ModuleCache::new(&compilation).map_err(|e| anyhow!("{e:?}"))?;
        Ok(Self { config: RwLock::new(Arc::new(config)), modules })
    }

    /// Takes the network's ConfigSetting entries (XDR) as they are now.
    pub fn set_config(&self, config_entries: &[Vec<u8>]) -> Result<()> {
        let config = Arc::new(load_config(config_entries)?);
        *self.config.write().map_err(|_| anyhow!("the configuration lock is poisoned"))? = config;
        Ok(())
    }

    fn config(&self) -> Arc<NetworkConfig> {
        match self.config.read() {
            Ok(c) => c.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn ledger_info(config: &NetworkConfig, ledger: &ApplyLedger) -> LedgerInfo {
        let mut info = LedgerInfo {
            protocol_version: ledger.protocol_version,
            sequence_number: ledger.sequence,
            timestamp: ledger.timestamp,
            network_id: ledger.network_id,
            base_reserve: ledger.base_reserve,
            ..Default::default()
        };
        config.fill_config_fields_in_ledger_info(&mut info);
        info
    }

    fn size_budget(&self) -> Result<Budget> {
        let config = self.config();
        Budget::try_from_configs(u64::MAX, u64::MAX, config.cpu_cost_params.clone(), config.memory_cost_params.clone())
        .map_err(|e| anyhow!("{e:?}"))
    }

    /// The size an entry is charged rent for: its XDR size, plus the parsed module's memory for code.
    /// Only code needs the cost model (and a budget built from it).
    fn rent_size(&self, entry: &LedgerEntry, xdr_len: usize) -> Result<u32> {
        match entry.data {
            LedgerEntryData::ContractCode(_) => {
                entry_size_for_rent(&self.size_budget()?, entry, xdr_len as u32).map_err(|e| anyhow!("{e:?}"))
            }
            _ => Ok(xdr_len as u32),
        }
    }

    pub fn entry_size_for_rent(&self, entry_xdr: &[u8]) -> Result<u32> {
        self.rent_size(&LedgerEntry::from_xdr(entry_xdr, Limits::none())?, entry_xdr.len())
    }

    pub fn rent_fee(&self, changes: &[RentChange], ledger_seq: u32) -> i64 {
        let changes: Vec<LedgerEntryRentChange> = changes
            .iter()
            .map(|c| LedgerEntryRentChange {
                is_persistent: c.is_persistent,
                is_code_entry: c.is_code_entry,
                old_size_bytes: c.old_size_bytes,
                new_size_bytes: c.new_size_bytes,
                old_live_until_ledger: c.old_live_until_ledger,
                new_live_until_ledger: c.new_live_until_ledger,
            })
            .collect();
        compute_rent_fee(&changes, &self.config().rent_fee_configuration, ledger_seq)
    }

    /// (non-refundable, refundable) resource fee of the given resource use.
    pub fn resource_fee(&self, r: &Resources) -> (i64, i64) {
        let resources = TransactionResources {
            instructions: r.instructions,
            disk_read_entries: r.disk_read_entries,
            write_entries: r.write_entries,
            disk_read_bytes: r.disk_read_bytes,
            write_bytes: r.write_bytes,
            contract_events_size_bytes: r.contract_events_size_bytes,
            transaction_size_bytes: r.transaction_size_bytes,
        };
        compute_transaction_resource_fee(&resources, &self.config().fee_configuration)
    }

    /// Puts a contract the call may run into the module cache, if it is not there yet.
    fn cache_module(&self, entry: &LedgerEntry, protocol: u32) -> Result<()> {
        let LedgerEntryData::ContractCode(code) = &entry.data else { return Ok(()) };
        if self.modules.contains_module(&code.hash).map_err(|e| anyhow!("{e:?}"))? {
            return Ok(());
        }
        let inputs = match &code.ext {
            ContractCodeEntryExt::V0 => VersionedContractCodeCostInputs::V0 { wasm_bytes: code.code.len() },
            ContractCodeEntryExt::V1(v1) => VersionedContractCodeCostInputs::V1(v1.cost_inputs.clone()),
        };
        let compilation = Compilation::new().map_err(|e| anyhow!("{e:?}"))?;
        // A module that fails to parse is left out; the call then fails inside the host as it
        // would on the network.
        let _ = self.modules.parse_and_cache_module(&compilation, protocol, &code.hash, &code.code, inputs);
        Ok(())
    }

    pub fn invoke(&self, input: &InvokeInput) -> Result<InvokeOutput> {
        let resources = SorobanResources::from_xdr(&input.resources, Limits::none()).context("cannot decode the resources")?;
        let keys: Vec<LedgerKey> = resources
            .footprint
            .read_only
            .iter()
            .chain(resources.footprint.read_write.iter())
            .cloned()
            .collect();
        if keys.len() != input.entries.len() {
            return Err(anyhow!("{} footprint keys but {} entries", keys.len(), input.entries.len()));
        }
        // Entries stay undecoded for the host (it decodes lazily) except contract code, which the
        // module cache and the rent size need.
        let mut encoded = Vec::with_capacity(input.entries.len());
        for (key, item) in keys.iter().zip(&input.entries) {
            let meta = match (&item.entry, item.live_until) {
                (Some(bytes), Some(live_until)) => {
                    let size = if let LedgerKey::ContractCode(_) = key {
                        let entry = LedgerEntry::from_xdr(bytes, Limits::none())?;
                        self.cache_module(&entry, input.ledger.protocol_version)?;
                        self.rent_size(&entry, bytes.len())?
                    } else {
                        bytes.len() as u32
                    };
                    Some(TtlLedgerEntryMeta { live_until_ledger: live_until, entry_size_for_rent: size })
                }
                _ => None,
            };
            encoded.push((item.entry.as_deref(), meta));
        }

        // one configuration for the whole call, whatever set_config does meanwhile
        let config = self.config();
        let budget = Budget::try_from_configs(
            u64::from(resources.instructions),
            u64::from(config.tx_memory_limit),
            config.cpu_cost_params.clone(),
            config.memory_cost_params.clone(),
        )
        .map_err(|e| anyhow!("{e:?}"))?;
        let ledger_info = Self::ledger_info(&config, &input.ledger);
        let mut diagnostics: Vec<DiagnosticEvent> = Vec::new();
        let recorder = input.trace.then(super::trace::Recorder::new);
        let outcome = e2e_invoke::invoke_host_function(
            &budget,
            input.enable_diagnostics,
            input.host_function.as_slice(),
            input.resources.as_slice(),
            &input.restored_rw_entry_indices,
            input.source_account.as_slice(),
            input.auth_entries.iter().map(|a| a.as_slice()),
            ledger_info,
            encoded.into_iter(),
            input.prng_seed.as_slice(),
            &mut diagnostics,
            recorder.as_ref().map(|r| r.hook(&budget)),
            Some(self.modules.clone()),
        );
        let mut out = InvokeOutput {
            cpu_insns: budget.get_cpu_insns_consumed().unwrap_or(0),
            mem_bytes: budget.get_mem_bytes_consumed().unwrap_or(0),
            diagnostic_events: diagnostics.iter().map(xdr).collect::<Result<_>>()?,
            trace: recorder.map(|r| r.take()).unwrap_or_default(),
            ..Default::default()
        };
        let result = outcome.and_then(|r| r.encoded_invoke_result.map(|v| (v, r.ledger_changes, r.encoded_contract_events)));
        match result {
            Ok((value, changes, events)) => {
                out.return_value = Some(value);
                out.contract_events = events;
                out.rent_fee = compute_rent_fee(
                    &extract_rent_changes(&changes),
                    &config.rent_fee_configuration,
                    input.ledger.sequence,
                );
                for change in &changes {
                    if !change.read_only {
                        if let Some(new_value) = &change.encoded_new_value {
                            out.modified_entries.push(new_value.clone());
                        }
                    }
                    if let Some(ttl) = &change.ttl_change {
                        if ttl.new_live_until_ledger > ttl.old_live_until_ledger {
                            out.modified_entries.push(xdr(&LedgerEntry {
                                last_modified_ledger_seq: 0,
                                data: LedgerEntryData::Ttl(TtlEntry {
                                    key_hash: Hash(ttl.key_hash.as_slice().try_into().context("TTL key hash")?),
                                    live_until_ledger_seq: ttl.new_live_until_ledger,
                                }),
                                ext: LedgerEntryExt::V0,
                            })?);
                        }
                    }
                }
            }
            Err(e) => {
                let internal = e.error.is_code(ScErrorCode::InternalError) && !e.error.is_type(ScErrorType::Contract);
                out.failure = Some(if internal {
                    Failure::Internal
                } else if out.cpu_insns > u64::from(resources.instructions)
                    || out.mem_bytes > u64::from(config.tx_memory_limit)
                {
                    Failure::ResourceLimitExceeded
                } else {
                    Failure::Trapped
                });
                out.error = Some(format!("{e:?}"));
            }
        }
        Ok(out)
    }
}
