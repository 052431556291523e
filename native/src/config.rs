//! Genesis network configuration: the ConfigSetting ledger entries a standalone network starts with.
//! Values are the public testnet's settings for protocol 28 (stellar-core's
//! `soroban-settings/testnet_settings_upgrade.json`); the entries that file does not carry (the
//! state-size window, the eviction iterator and the CAP-77 freeze lists) are created the way core
//! creates them for a fresh network. Protocol 29 changed no setting; protocol 30 adds the nine ML-DSA
//! cost types (CAP-87), whose parameters a network started at 30 carries from genesis, with the
//! values host 30 is calibrated with (the same ones an upgrade to 30 appends: `upgrade_cost_params`).

use stellar_xdr::{
    ConfigSettingContractBandwidthV0, ConfigSettingContractComputeV0,
    ConfigSettingContractEventsV0, ConfigSettingContractExecutionLanesV0,
    ConfigSettingContractHistoricalDataV0, ConfigSettingContractLedgerCostExtV0,
    ConfigSettingContractLedgerCostV0, ConfigSettingContractParallelComputeV0,
    ConfigSettingEntry, ConfigSettingScpTiming, ContractCostParamEntry, ContractCostParams,
    ContractCostType, EvictionIterator, ExtensionPoint, FreezeBypassTxs, FreezeBypassTxsDelta,
    FrozenLedgerKeys, FrozenLedgerKeysDelta, LedgerEntry, LedgerEntryData, LedgerEntryExt,
    StateArchivalSettings, VecM,
};

/// (constTerm, linearTerm) per ContractCostType, index = the type's discriminant (0..=85).
const CPU_COST_PARAMS: [(i64, i64); 86] = [
    (4, 0), (434, 16), (42, 16), (44, 16), (295, 0), (60, 0), (221, 26), (331, 4369),
    (3636, 7013), (40256, 0), (377551, 4059), (417482, 45712), (41142, 634), (1945, 0),
    (6481, 5943), (711, 0), (2314804, 0), (4176, 0), (4716, 0), (4680, 0), (4256, 0), (884, 0),
    (1059, 502), (73077, 25410), (0, 540752), (0, 176363), (0, 29989), (0, 1061449),
    (0, 237336), (0, 328476), (0, 701845), (0, 429383), (0, 28), (43030, 0), (0, 7556),
    (0, 10711), (0, 3300), (0, 0), (0, 23038), (0, 42488), (0, 828974), (0, 297100), (0, 14),
    (1882, 0), (3000906, 0), (661, 0), (985, 0), (1934, 0), (730510, 0), (5921, 0),
    (1057822, 0), (92642, 0), (100742, 0), (7689, 0), (2458985, 0), (2347584, 94135478),
    (1020885, 0), (2638451, 6803), (25207, 0), (7873219, 0), (7663880, 298580871),
    (1856539, 0), (6315452, 7232), (10558948, 632860943), (1994, 0), (1155, 0), (74, 0),
    (332, 0), (691, 74558), (35421, 0), (344, 0), (476, 0), (904, 0), (2811, 0), (1706052, 0),
    (61, 0), (3623, 0), (1150435, 0), (5263916, 392472814), (2052, 0), (1133, 0), (74, 0),
    (332, 0), (755, 68930), (33151, 0), (1185193, 41568084),
];

const MEM_COST_PARAMS: [(i64, i64); 86] = [
    (0, 0), (16, 128), (0, 0), (0, 0), (0, 0), (0, 0), (242, 384), (0, 384), (0, 0), (0, 0),
    (0, 0), (132773, 4903), (69472, 1217), (14, 0), (0, 0), (0, 0), (181, 0), (99, 0), (99, 0),
    (99, 0), (99, 0), (99, 0), (0, 0), (17564, 6457), (0, 47464), (0, 13420), (0, 6285),
    (0, 64670), (0, 29074), (0, 48095), (0, 103229), (0, 36394), (0, 257), (70704, 0),
    (0, 14613), (0, 6833), (0, 1025), (0, 0), (0, 129632), (0, 13665), (0, 97637), (0, 9176),
    (0, 126), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0),
    (0, 0), (0, 0), (109494, 266603), (2776, 0), (5896, 0), (0, 0), (0, 0), (219654, 266603),
    (1672, 0), (3960, 0), (2204, 9340474), (0, 0), (248, 0), (0, 0), (0, 0), (0, 128), (0, 0),
    (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (1821, 6232546), (0, 0),
    (312, 0), (0, 0), (0, 0), (0, 0), (0, 0), (73061, 229779),
];

/// The ML-DSA cost types of protocol 30 (ContractCostType 86..=94: decoding verifying keys and
/// signatures of ML-DSA-44/65/87, then verifying), (cpu, mem) as (constTerm, linearTerm) each, as
/// soroban-env-host 30.0.0's budget defaults (budget.rs) give them.
const ML_DSA_COST_PARAMS: [((i64, i64), (i64, i64)); 9] = [
    ((849_110, 0), (24_656, 0)), ((1_505_271, 0), (43_088, 0)), ((2_625_760, 0), (73_808, 0)),
    ((37_888, 0), (4_104, 0)), ((47_691, 0), (5_128, 0)), ((66_346, 0), (7_176, 0)),
    ((685_165, 6_103), (0, 0)), ((983_619, 6_103), (0, 0)), ((1_437_210, 6_102), (0, 0)),
];

/// The first protocol with the ML-DSA cost types.
const ML_DSA_PROTOCOL: u32 = 30;

const STATE_SIZE_WINDOW_SAMPLES: usize = 30;
const STARTING_EVICTION_SCAN_LEVEL: u32 = 7;

fn cost_params(table: impl IntoIterator<Item = (i64, i64)>) -> ContractCostParams {
    let entries: Vec<ContractCostParamEntry> = table
        .into_iter()
        .map(|(const_term, linear_term)| ContractCostParamEntry {
            ext: ExtensionPoint::V0,
            const_term,
            linear_term,
        })
        .collect();
    ContractCostParams(entries.try_into().expect("the cost params fit the XDR bound"))
}

/// (cpu, mem) cost parameters of a network at `protocol`: one entry per cost type it has.
fn cost_tables(protocol: u32) -> (Vec<(i64, i64)>, Vec<(i64, i64)>) {
    let mut cpu = CPU_COST_PARAMS.to_vec();
    let mut mem = MEM_COST_PARAMS.to_vec();
    if protocol >= ML_DSA_PROTOCOL {
        cpu.extend(ML_DSA_COST_PARAMS.iter().map(|(c, _)| *c));
        mem.extend(ML_DSA_COST_PARAMS.iter().map(|(_, m)| *m));
        // the newest XDR's cost types are exactly these
        debug_assert_eq!(cpu.len(), ContractCostType::VARIANTS.len());
    }
    (cpu, mem)
}

/// The ConfigSetting entries a protocol upgrade changes, given the network's entries before it: the
/// cost parameters of the cost types `to_protocol` adds, appended to both ContractCostParams (as
/// core does at each upgrade that adds cost types; it keeps the values a network already has).
/// Empty when the upgrade adds none.
pub fn protocol_upgrade_changes(entries: &[LedgerEntry], to_protocol: u32) -> Vec<LedgerEntry> {
    let (cpu_to, mem_to) = cost_tables(to_protocol);
    let mut changed = Vec::new();
    for entry in entries {
        let LedgerEntryData::ConfigSetting(setting) = &entry.data else { continue };
        let (params, table, is_cpu) = match setting {
            ConfigSettingEntry::ContractCostParamsCpuInstructions(p) => (p, &cpu_to, true),
            ConfigSettingEntry::ContractCostParamsMemoryBytes(p) => (p, &mem_to, false),
            _ => continue,
        };
        if params.0.len() >= table.len() {
            continue;
        }
        let mut all: Vec<(i64, i64)> = params.0.iter().map(|e| (e.const_term, e.linear_term)).collect();
        all.extend_from_slice(&table[params.0.len()..]);
        let upgraded = cost_params(all);
        let setting = if is_cpu {
            ConfigSettingEntry::ContractCostParamsCpuInstructions(upgraded)
        } else {
            ConfigSettingEntry::ContractCostParamsMemoryBytes(upgraded)
        };
        changed.push(LedgerEntry { data: LedgerEntryData::ConfigSetting(setting), ..entry.clone() });
    }
    changed
}

/// Every ConfigSettingEntry of a fresh network at `protocol`, in ConfigSettingId order (0..=20).
pub fn genesis_config_settings(protocol: u32) -> Vec<ConfigSettingEntry> {
    let (cpu, mem) = cost_tables(protocol);
    let empty_keys = || VecM::default();
    vec![
        ConfigSettingEntry::ContractMaxSizeBytes(131_072),
        ConfigSettingEntry::ContractComputeV0(ConfigSettingContractComputeV0 {
            ledger_max_instructions: 580_000_000,
            tx_max_instructions: 400_000_000,
            fee_rate_per_instructions_increment: 7,
            tx_memory_limit: 41_943_040,
        }),
        ConfigSettingEntry::ContractLedgerCostV0(ConfigSettingContractLedgerCostV0 {
            ledger_max_disk_read_entries: 1000,
            ledger_max_disk_read_bytes: 400_000,
            ledger_max_write_ledger_entries: 1000,
            ledger_max_write_bytes: 286_720,
            tx_max_disk_read_entries: 200,
            tx_max_disk_read_bytes: 200_000,
            tx_max_write_ledger_entries: 200,
            tx_max_write_bytes: 132_096,
            fee_disk_read_ledger_entry: 1563,
            fee_write_ledger_entry: 2500,
            fee_disk_read1_kb: 447,
            soroban_state_target_size_bytes: 4_000_000_000,
            rent_fee1_kb_soroban_state_size_low: -17_000,
            rent_fee1_kb_soroban_state_size_high: 10_000,
            soroban_state_rent_fee_growth_factor: 5000,
        }),
        ConfigSettingEntry::ContractHistoricalDataV0(ConfigSettingContractHistoricalDataV0 {
            fee_historical1_kb: 4059,
        }),
        ConfigSettingEntry::ContractEventsV0(ConfigSettingContractEventsV0 {
            tx_max_contract_events_size_bytes: 16_384,
            fee_contract_events1_kb: 5000,
        }),
        ConfigSettingEntry::ContractBandwidthV0(ConfigSettingContractBandwidthV0 {
            ledger_max_txs_size_bytes: 266_240,
            tx_max_size_bytes: 132_096,
            fee_tx_size1_kb: 406,
        }),
        ConfigSettingEntry::ContractCostParamsCpuInstructions(cost_params(cpu)),
        ConfigSettingEntry::ContractCostParamsMemoryBytes(cost_params(mem)),
        ConfigSettingEntry::ContractDataKeySizeBytes(250),
        ConfigSettingEntry::ContractDataEntrySizeBytes(65_536),
        ConfigSettingEntry::StateArchival(StateArchivalSettings {
            max_entry_ttl: 3_110_400,
            min_temporary_ttl: 720,
            min_persistent_ttl: 120_960,
            persistent_rent_rate_denominator: 1215,
            temp_rent_rate_denominator: 2430,
            max_entries_to_archive: 1000,
            live_soroban_state_size_window_sample_size: STATE_SIZE_WINDOW_SAMPLES as u32,
            live_soroban_state_size_window_sample_period: 64,
            eviction_scan_size: 500_000,
            starting_eviction_scan_level: STARTING_EVICTION_SCAN_LEVEL,
        }),
        ConfigSettingEntry::ContractExecutionLanes(ConfigSettingContractExecutionLanesV0 {
            ledger_max_tx_count: 2000,
        }),
        // A fresh network holds no Soroban state: every sample of the window is 0.
        ConfigSettingEntry::LiveSorobanStateSizeWindow(
            vec![0u64; STATE_SIZE_WINDOW_SAMPLES].try_into().expect("window fits"),
        ),
        ConfigSettingEntry::EvictionIterator(EvictionIterator {
            bucket_list_level: STARTING_EVICTION_SCAN_LEVEL,
            is_curr_bucket: true,
            bucket_file_offset: 0,
        }),
        ConfigSettingEntry::ContractParallelComputeV0(ConfigSettingContractParallelComputeV0 {
            ledger_max_dependent_tx_clusters: 2,
        }),
        ConfigSettingEntry::ContractLedgerCostExtV0(ConfigSettingContractLedgerCostExtV0 {
            tx_max_footprint_entries: 400,
            fee_write1_kb: 875,
        }),
        ConfigSettingEntry::ScpTiming(ConfigSettingScpTiming {
            ledger_target_close_time_milliseconds: 5000,
            nomination_timeout_initial_milliseconds: 1000,
            nomination_timeout_increment_milliseconds: 1000,
            ballot_timeout_initial_milliseconds: 1000,
            ballot_timeout_increment_milliseconds: 1000,
        }),
        ConfigSettingEntry::FrozenLedgerKeys(FrozenLedgerKeys { keys: empty_keys() }),
        ConfigSettingEntry::FrozenLedgerKeysDelta(FrozenLedgerKeysDelta {
            keys_to_freeze: empty_keys(),
            keys_to_unfreeze: empty_keys(),
        }),
        ConfigSettingEntry::FreezeBypassTxs(FreezeBypassTxs { tx_hashes: VecM::default() }),
        ConfigSettingEntry::FreezeBypassTxsDelta(FreezeBypassTxsDelta {
            add_txs: VecM::default(),
            remove_txs: VecM::default(),
        }),
    ]
}

/// The genesis ConfigSetting entries of a network at `protocol` as LedgerEntries last modified in
/// `last_modified_ledger_seq`.
pub fn genesis_config_ledger_entries(protocol: u32, last_modified_ledger_seq: u32) -> Vec<LedgerEntry> {
    genesis_config_settings(protocol)
        .into_iter()
        .map(|setting| LedgerEntry {
            last_modified_ledger_seq,
            data: LedgerEntryData::ConfigSetting(setting),
            ext: LedgerEntryExt::V0,
        })
        .collect()
}
