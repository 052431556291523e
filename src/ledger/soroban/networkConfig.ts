// The Soroban limits the ledger engine enforces, read from the network's ConfigSetting entries (the
// same entries simulation reads), so validation and the host always agree on the configuration.
import { xdr } from '../../xdr/xdr.ts';
import { encodeLedgerEntry, type LedgerEntry, type LedgerKey } from '../../xdr/codec.ts';
import { ConfigSettingId as ID, configSettingKey } from '../../xdr/ledgerKeys.ts';
/** Every ConfigSettingID this protocol defines. */
const ALL_IDS = Array.from({ length: 21 }, (_, i) => i);

export interface SorobanNetworkConfig {
  maxContractSizeBytes: number;
  txMaxInstructions: bigint;
  txMemoryLimit: number;
  txMaxDiskReadEntries: number;
  txMaxDiskReadBytes: number;
  txMaxWriteLedgerEntries: number;
  txMaxWriteBytes: number;
  txMaxFootprintEntries: number;
  txMaxContractEventsSizeBytes: number;
  txMaxSizeBytes: number;
  maxContractDataKeySizeBytes: number;
  maxContractDataEntrySizeBytes: number;
  minTemporaryTtl: number;
  minPersistentTtl: number;
  maxEntryTtl: number;
  /** Most entries one ledger evicts. */
  maxEntriesToArchive: number;
  /** Every this many ledgers the state size is sampled into the window. */
  stateSizeWindowSamplePeriod: number;
  /** The recent state sizes whose average prices rent. */
  stateSizeWindow: bigint[];
  /** The ConfigSetting LedgerEntries (XDR) themselves, for the host. */
  entries: Uint8Array[];
}

/** Reads the configuration through `load`; undefined when the network has none (no Soroban). */
export function loadSorobanNetworkConfig(load: (key: LedgerKey) => LedgerEntry | undefined): SorobanNetworkConfig | undefined {
  const settings = new Map<number, xdr.ConfigSettingEntryWire>();
  const entries: Uint8Array[] = [];
  for (const id of ALL_IDS) {
    const entry = load(configSettingKey(id));
    if (!entry || entry.data.type !== 8) continue;
    settings.set(id, entry.data.configSetting);
    entries.push(encodeLedgerEntry(entry));
  }
  const get = <T>(id: number, arm: string): T => {
    const s = settings.get(id) as Record<string, unknown> | undefined;
    if (!s) throw new Error(`the network configuration lacks ConfigSetting ${id}`);
    return s[arm] as T;
  };
  if (!settings.has(ID.CONTRACT_COMPUTE_V0)) return undefined;
  const compute = get<xdr.ConfigSettingContractComputeV0Wire>(ID.CONTRACT_COMPUTE_V0, 'contractCompute');
  const ledgerCost = get<xdr.ConfigSettingContractLedgerCostV0Wire>(ID.CONTRACT_LEDGER_COST_V0, 'contractLedgerCost');
  const ledgerCostExt = get<xdr.ConfigSettingContractLedgerCostExtV0Wire>(ID.CONTRACT_LEDGER_COST_EXT_V0, 'contractLedgerCostExt');
  const events = get<xdr.ConfigSettingContractEventsV0Wire>(ID.CONTRACT_EVENTS_V0, 'contractEvents');
  const bandwidth = get<xdr.ConfigSettingContractBandwidthV0Wire>(ID.CONTRACT_BANDWIDTH_V0, 'contractBandwidth');
  const archival = get<xdr.StateArchivalSettingsWire>(ID.STATE_ARCHIVAL, 'stateArchivalSettings');
  return {
    maxContractSizeBytes: get<number>(ID.CONTRACT_MAX_SIZE_BYTES, 'contractMaxSizeBytes'),
    txMaxInstructions: compute.txMaxInstructions,
    txMemoryLimit: compute.txMemoryLimit,
    txMaxDiskReadEntries: ledgerCost.txMaxDiskReadEntries,
    txMaxDiskReadBytes: ledgerCost.txMaxDiskReadBytes,
    txMaxWriteLedgerEntries: ledgerCost.txMaxWriteLedgerEntries,
    txMaxWriteBytes: ledgerCost.txMaxWriteBytes,
    txMaxFootprintEntries: ledgerCostExt.txMaxFootprintEntries,
    txMaxContractEventsSizeBytes: events.txMaxContractEventsSizeBytes,
    txMaxSizeBytes: bandwidth.txMaxSizeBytes,
    maxContractDataKeySizeBytes: get<number>(ID.CONTRACT_DATA_KEY_SIZE_BYTES, 'contractDataKeySizeBytes'),
    maxContractDataEntrySizeBytes: get<number>(ID.CONTRACT_DATA_ENTRY_SIZE_BYTES, 'contractDataEntrySizeBytes'),
    minTemporaryTtl: archival.minTemporaryTtl,
    minPersistentTtl: archival.minPersistentTtl,
    maxEntryTtl: archival.maxEntryTtl,
    maxEntriesToArchive: archival.maxEntriesToArchive,
    stateSizeWindowSamplePeriod: archival.liveSorobanStateSizeWindowSamplePeriod,
    stateSizeWindow: get<bigint[]>(ID.LIVE_SOROBAN_STATE_SIZE_WINDOW, 'liveSorobanStateSizeWindow'),
    entries,
  };
}
