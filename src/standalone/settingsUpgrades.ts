// Network settings changed at run time the way the network itself records them: as ledger upgrades
// (LedgerUpgrade in the ledger's scpValue, their entry changes in its upgradesProcessing), each a
// LedgerUpgradeStep for StandaloneNetwork.closeNextLedger. The checks are stellar-core's where they
// are cheap (Upgrades.cpp, ConfigUpgradeSetFrame::isValidXDR, isValidForApply and
// SorobanNetworkConfig::isValidConfigSettingEntry), so what a real network would refuse is refused
// here, before any ledger closes, with the reason.
import { xdr } from '../xdr/xdr.ts';
import { sha256 } from '../xdr/codec.ts';
import { configSettingKey } from '../xdr/ledgerKeys.ts';
import type { LedgerUpgradeStep } from '../ledger/closeLedger.ts';
import type { LedgerTxn } from '../ledger/ledgerTxn.ts';
import { decodeBase64Std } from '../xdr/codec.ts';
import { protocolProblem } from '../ledger/protocols.ts';
import { loadNative } from '../host/native.ts';

/** A setting that cannot be changed as asked; the message says why. */
export class SettingsError extends Error {}

/**
 * The contract the upgrade's ConfigUpgradeSetKey names. stellar-core reads a proposed set from a
 * TEMPORARY contract data entry of that contract (keyed by the set's hash) that some transaction
 * wrote; here the set comes with the request, so no entry is written and the key names this
 * contract, all zeros, which holds nothing. The hash is the set's, as core checks it.
 */
export const CONFIG_UPGRADE_CONTRACT_ID = new Uint8Array(32);

const U32_MAX = 0xffff_ffff;

/** Core's MinimumSorobanNetworkConfig (NetworkConfig.h). */
const MIN = {
  txMaxReadLedgerEntries: 3, txMaxReadBytes: 3_200, txMaxWriteLedgerEntries: 2, txMaxWriteBytes: 3_200,
  txMaxSizeBytes: 10_000, txMaxInstructions: 2_500_000n, memoryLimit: 2_000_000,
  maxContractDataKeySizeBytes: 200, maxContractDataEntrySizeBytes: 2_000, maxContractSize: 2_000,
  minTemporaryTtl: 16, minPersistentTtl: 10, maxEntryTtl: 1_054_080, windowSampleSize: 1, windowSamplePeriod: 1,
  startingEvictionLevel: 1, txMaxContractEventsSizeBytes: 200,
  ledgerTargetCloseMs: 4000, nominationInitialMs: 750, nominationIncrementMs: 750, ballotInitialMs: 750, ballotIncrementMs: 750,
};
/** Core's MaximumSorobanNetworkConfig, and the bucket list's level count (eviction scans start above the last). */
const MAX = { ledgerTargetCloseMs: 5000, nominationInitialMs: 2500, nominationIncrementMs: 2000, ballotInitialMs: 2500, ballotIncrementMs: 2000, dependentTxClusters: 128, bucketListLevels: 11 };

/** What the bucket list owns (core's isNonUpgradeableConfigSettingEntry): never set by an upgrade. */
const NOT_UPGRADEABLE: Record<number, string> = {
  12: 'the live Soroban state size window', 13: 'the eviction iterator', 17: 'the frozen ledger keys (upgraded through their delta)', 19: 'the freeze bypass transactions (upgraded through their delta)',
};
/** Known ids this network does not take: it does not enforce frozen keys, so it does not pretend to. */
const NOT_SUPPORTED: Record<number, string> = {
  18: 'frozen ledger keys are not enforced by this network', 20: 'freeze bypass transactions are not enforced by this network',
};
const LAST_ID = 20;

/**
 * The ConfigUpgradeSet of a request: base64 XDR, or its JSON form (the SDK's, stellar-xdr's serde
 * shape, as in Quickstart's config-settings files: `{ "updated_entry": [{ "contract_max_size_bytes": 65536 }] }`).
 */
export function parseConfigUpgradeSet(input: unknown): xdr.ConfigUpgradeSetWire {
  let bytes: Uint8Array;
  if (typeof input === 'string') {
    const raw = decodeBase64Std(input);
    if (!raw) throw new SettingsError('configUpgradeSet: not base64 (give base64 XDR of a ConfigUpgradeSet, or its JSON object)');
    bytes = raw;
  } else if (input !== null && typeof input === 'object') {
    try {
      bytes = xdr.ConfigUpgradeSet.fromJson(input as never).toXdr();
    } catch (e) {
      throw new SettingsError(`configUpgradeSet: not a ConfigUpgradeSet in JSON: ${(e as Error).message}`);
    }
  } else {
    throw new SettingsError('configUpgradeSet: give base64 XDR of a ConfigUpgradeSet, or its JSON object');
  }
  try {
    const set = xdr.ConfigUpgradeSet.schema.decode(bytes);
    // a decode that stops short would hash other bytes than the set's
    if (!equalBytes(xdr.ConfigUpgradeSet.schema.encode(set), bytes)) throw new Error('trailing bytes');
    return set;
  } catch (e) {
    throw new SettingsError(`configUpgradeSet: not a ConfigUpgradeSet XDR: ${(e as Error).message}`);
  }
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Checks a set as core does before applying it: entries, in ConfigSettingID order (sorted here, so
 * the order given does not matter), no id twice, every id upgradeable, every value within core's
 * bounds. `current` reads the setting as it stands (cost parameter counts, the state archival
 * settings a window resize needs). Returns the set to apply, sorted.
 */
export function checkConfigUpgradeSet(set: xdr.ConfigUpgradeSetWire, current: (id: number) => xdr.ConfigSettingEntryWire | undefined): xdr.ConfigUpgradeSetWire {
  if (set.updatedEntry.length === 0) throw new SettingsError('configUpgradeSet: no entries');
  const sorted = [...set.updatedEntry].sort((a, b) => a.configSettingID - b.configSettingID);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].configSettingID === sorted[i - 1].configSettingID) throw new SettingsError(`configUpgradeSet: ConfigSetting ${sorted[i].configSettingID} appears twice`);
  }
  for (const entry of sorted) {
    const id = entry.configSettingID;
    if (id > LAST_ID) throw new SettingsError(`configUpgradeSet: unknown ConfigSetting ${id}`);
    if (NOT_UPGRADEABLE[id]) throw new SettingsError(`configUpgradeSet: ConfigSetting ${id} (${NOT_UPGRADEABLE[id]}) is not upgradeable`);
    if (NOT_SUPPORTED[id]) throw new SettingsError(`configUpgradeSet: ConfigSetting ${id}: ${NOT_SUPPORTED[id]}`);
    const problem = invalidSetting(entry, current(id));
    if (problem) throw new SettingsError(`configUpgradeSet: ConfigSetting ${id} (${settingName(entry)}): ${problem}`);
  }
  return { updatedEntry: sorted };
}

/** The arm name of a setting (contractCompute, stateArchivalSettings...), for messages. */
const settingName = (e: xdr.ConfigSettingEntryWire): string => Object.keys(e).find((k) => k !== 'configSettingID') ?? String(e.configSettingID);

/** Why core's isValidConfigSettingEntry would refuse the entry, or undefined. */
function invalidSetting(e: xdr.ConfigSettingEntryWire, current: xdr.ConfigSettingEntryWire | undefined): string | undefined {
  const atLeast = (name: string, value: number | bigint, min: number | bigint) => (value < min ? `${name} ${value} is below the minimum ${min}` : undefined);
  const notAbove = (name: string, value: number | bigint, max: number | bigint, maxName: string) => (value > max ? `${name} ${value} exceeds ${maxName} ${max}` : undefined);
  const nonNegative = (fields: Record<string, bigint | number>) => {
    for (const [name, v] of Object.entries(fields)) if (v < 0) return `${name} ${v} is negative`;
    return undefined;
  };
  const first = (...checks: Array<string | undefined>) => checks.find((c) => c !== undefined);
  switch (e.configSettingID) {
    case 0: return atLeast('contractMaxSizeBytes', e.contractMaxSizeBytes, MIN.maxContractSize);
    case 1: {
      const c = e.contractCompute;
      return first(nonNegative({ feeRatePerInstructionsIncrement: c.feeRatePerInstructionsIncrement }),
        atLeast('txMaxInstructions', c.txMaxInstructions, MIN.txMaxInstructions),
        atLeast('ledgerMaxInstructions', c.ledgerMaxInstructions, c.txMaxInstructions),
        atLeast('txMemoryLimit', c.txMemoryLimit, MIN.memoryLimit));
    }
    case 2: {
      const c = e.contractLedgerCost;
      return first(
        atLeast('txMaxDiskReadEntries', c.txMaxDiskReadEntries, MIN.txMaxReadLedgerEntries),
        atLeast('ledgerMaxDiskReadEntries', c.ledgerMaxDiskReadEntries, c.txMaxDiskReadEntries),
        atLeast('txMaxDiskReadBytes', c.txMaxDiskReadBytes, MIN.txMaxReadBytes),
        atLeast('ledgerMaxDiskReadBytes', c.ledgerMaxDiskReadBytes, c.txMaxDiskReadBytes),
        atLeast('txMaxWriteLedgerEntries', c.txMaxWriteLedgerEntries, MIN.txMaxWriteLedgerEntries),
        atLeast('ledgerMaxWriteLedgerEntries', c.ledgerMaxWriteLedgerEntries, c.txMaxWriteLedgerEntries),
        atLeast('txMaxWriteBytes', c.txMaxWriteBytes, MIN.txMaxWriteBytes),
        atLeast('ledgerMaxWriteBytes', c.ledgerMaxWriteBytes, c.txMaxWriteBytes),
        nonNegative({ feeDiskReadLedgerEntry: c.feeDiskReadLedgerEntry, feeWriteLedgerEntry: c.feeWriteLedgerEntry, feeDiskRead1Kb: c.feeDiskRead1Kb,
          rentFee1KbSorobanStateSizeHigh: c.rentFee1KbSorobanStateSizeHigh, sorobanStateRentFeeGrowthFactor: c.sorobanStateRentFeeGrowthFactor }),
        atLeast('sorobanStateTargetSizeBytes', c.sorobanStateTargetSizeBytes, 1n));
    }
    case 3: return nonNegative({ feeHistorical1Kb: e.contractHistoricalData.feeHistorical1Kb });
    case 4: return first(atLeast('txMaxContractEventsSizeBytes', e.contractEvents.txMaxContractEventsSizeBytes, MIN.txMaxContractEventsSizeBytes),
      nonNegative({ feeContractEvents1Kb: e.contractEvents.feeContractEvents1Kb }));
    case 5: return first(nonNegative({ feeTxSize1Kb: e.contractBandwidth.feeTxSize1Kb }),
      atLeast('txMaxSizeBytes', e.contractBandwidth.txMaxSizeBytes, MIN.txMaxSizeBytes),
      atLeast('ledgerMaxTxsSizeBytes', e.contractBandwidth.ledgerMaxTxsSizeBytes, e.contractBandwidth.txMaxSizeBytes));
    case 6: case 7: {
      const params = e.configSettingID === 6 ? e.contractCostParamsCpuInsns : e.contractCostParamsMemBytes;
      const now = current?.configSettingID === 6 ? current.contractCostParamsCpuInsns : current?.configSettingID === 7 ? current.contractCostParamsMemBytes : undefined;
      if (now && params.length !== now.length) return `${params.length} cost parameters, the protocol has ${now.length}`;
      const negative = params.findIndex((p) => p.constTerm < 0n || p.linearTerm < 0n);
      return negative >= 0 ? `cost parameter ${negative} has a negative term` : undefined;
    }
    case 8: return atLeast('contractDataKeySizeBytes', e.contractDataKeySizeBytes, MIN.maxContractDataKeySizeBytes);
    case 9: return atLeast('contractDataEntrySizeBytes', e.contractDataEntrySizeBytes, MIN.maxContractDataEntrySizeBytes);
    case 10: {
      const s = e.stateArchivalSettings;
      return first(
        atLeast('maxEntryTtl', s.maxEntryTtl, MIN.maxEntryTtl),
        atLeast('minTemporaryTtl', s.minTemporaryTtl, MIN.minTemporaryTtl),
        atLeast('minPersistentTtl', s.minPersistentTtl, MIN.minPersistentTtl),
        atLeast('persistentRentRateDenominator', s.persistentRentRateDenominator, 1n),
        atLeast('tempRentRateDenominator', s.tempRentRateDenominator, 1n),
        atLeast('liveSorobanStateSizeWindowSampleSize', s.liveSorobanStateSizeWindowSampleSize, MIN.windowSampleSize),
        atLeast('startingEvictionScanLevel', s.startingEvictionScanLevel, MIN.startingEvictionLevel),
        notAbove('startingEvictionScanLevel', s.startingEvictionScanLevel, MAX.bucketListLevels - 1, 'the last bucket list level'),
        atLeast('liveSorobanStateSizeWindowSamplePeriod', s.liveSorobanStateSizeWindowSamplePeriod, MIN.windowSamplePeriod),
        s.maxEntryTtl <= s.minPersistentTtl ? `maxEntryTtl ${s.maxEntryTtl} must exceed minPersistentTtl ${s.minPersistentTtl}` : undefined,
        s.maxEntryTtl <= s.minTemporaryTtl ? `maxEntryTtl ${s.maxEntryTtl} must exceed minTemporaryTtl ${s.minTemporaryTtl}` : undefined);
    }
    case 11: return undefined;
    case 14: {
      const n = e.contractParallelCompute.ledgerMaxDependentTxClusters;
      return n === 0 ? 'ledgerMaxDependentTxClusters must be positive' : n >= MAX.dependentTxClusters ? `ledgerMaxDependentTxClusters ${n} must be below ${MAX.dependentTxClusters}` : undefined;
    }
    case 15: return first(atLeast('txMaxFootprintEntries', e.contractLedgerCostExt.txMaxFootprintEntries, MIN.txMaxReadLedgerEntries),
      nonNegative({ feeWrite1Kb: e.contractLedgerCostExt.feeWrite1Kb }));
    case 16: {
      const t = e.contractScpTiming;
      const within = (name: string, v: number, lo: number, hi: number) => (v < lo || v > hi ? `${name} ${v} is outside [${lo}, ${hi}]` : undefined);
      return first(
        within('ledgerTargetCloseTimeMilliseconds', t.ledgerTargetCloseTimeMilliseconds, MIN.ledgerTargetCloseMs, MAX.ledgerTargetCloseMs),
        within('nominationTimeoutInitialMilliseconds', t.nominationTimeoutInitialMilliseconds, MIN.nominationInitialMs, MAX.nominationInitialMs),
        within('nominationTimeoutIncrementMilliseconds', t.nominationTimeoutIncrementMilliseconds, MIN.nominationIncrementMs, MAX.nominationIncrementMs),
        within('ballotTimeoutInitialMilliseconds', t.ballotTimeoutInitialMilliseconds, MIN.ballotInitialMs, MAX.ballotInitialMs),
        within('ballotTimeoutIncrementMilliseconds', t.ballotTimeoutIncrementMilliseconds, MIN.ballotIncrementMs, MAX.ballotIncrementMs));
    }
    default: return undefined;
  }
}

/**
 * The upgrade of a checked set: LEDGER_UPGRADE_CONFIG keyed by the set's hash; its changes rewrite
 * each CONFIG_SETTING entry, and resize the state size window when the sample size changed (core's
 * maybeUpdateSorobanStateSizeWindowSize: the oldest samples go, or the oldest is repeated in front).
 */
export function configUpgradeStep(set: xdr.ConfigUpgradeSetWire): { step: LedgerUpgradeStep; contentHash: Uint8Array } {
  const contentHash = sha256(xdr.ConfigUpgradeSet.schema.encode(set));
  const step: LedgerUpgradeStep = {
    upgrade: { type: 6, newConfig: { contractId: CONFIG_UPGRADE_CONTRACT_ID, contentHash } },
    apply(ltx) {
      let resizeWindowTo: number | undefined;
      for (const updated of set.updatedEntry) {
        const entry = loadSetting(ltx, updated.configSettingID);
        const before = entry.data.type === 8 ? entry.data.configSetting : undefined;
        if (updated.configSettingID === 10 && before?.configSettingID === 10
          && before.stateArchivalSettings.liveSorobanStateSizeWindowSampleSize !== updated.stateArchivalSettings.liveSorobanStateSizeWindowSampleSize) {
          resizeWindowTo = updated.stateArchivalSettings.liveSorobanStateSizeWindowSampleSize;
        }
        ltx.update({ ...entry, data: { type: 8, configSetting: updated } });
      }
      if (resizeWindowTo !== undefined) {
        const entry = loadSetting(ltx, 12);
        if (entry.data.type === 8 && entry.data.configSetting.configSettingID === 12) {
          const window = entry.data.configSetting.liveSorobanStateSizeWindow;
          const resized = resizeWindowTo < window.length
            ? window.slice(window.length - resizeWindowTo)
            : [...Array<bigint>(resizeWindowTo - window.length).fill(window[0] ?? 0n), ...window];
          ltx.update({ ...entry, data: { type: 8, configSetting: { configSettingID: 12, liveSorobanStateSizeWindow: resized } } });
        }
      }
    },
  };
  return { step, contentHash };
}

function loadSetting(ltx: LedgerTxn, id: number) {
  const entry = ltx.load(configSettingKey(id));
  if (!entry || entry.data.type !== 8) throw new Error(`the network has no ConfigSetting ${id}`);
  return entry;
}

/** A header value upgrade: base fee, base reserve or maximum transaction set size (core: none may be 0). */
export function headerUpgradeStep(kind: 'baseFee' | 'baseReserve' | 'maxTxSetSize', value: number): LedgerUpgradeStep {
  if (!Number.isInteger(value) || value < 1 || value > U32_MAX) throw new SettingsError(`${kind} must be an integer from 1 to ${U32_MAX}, got ${value}`);
  const upgrade: xdr.LedgerUpgradeWire = kind === 'baseFee' ? { type: 2, newBaseFee: value }
    : kind === 'baseReserve' ? { type: 4, newBaseReserve: value } : { type: 3, newMaxTxSetSize: value };
  return { upgrade, apply(_ltx, header) { header[kind] = value; } };
}

/**
 * A LEDGER_UPGRADE_VERSION to `protocol`, as a network votes one in: the ledger that carries it is
 * closed at the old protocol and says the new one in its header; from the next ledger on, the
 * network runs the new protocol's host line. The configuration changes the new protocol brings are
 * made in the same upgrade, as core makes them (the cost parameters of the cost types it adds,
 * appended: the host addon knows them). Refused for a protocol that is not newer, or that this
 * build does not run.
 */
export function protocolUpgradeStep(current: number, protocol: number): LedgerUpgradeStep {
  if (!Number.isInteger(protocol) || protocol <= current) {
    throw new SettingsError(`protocol must be newer than the network's ${current}, got ${protocol} (a network never goes back)`);
  }
  const problem = protocolProblem(protocol);
  if (problem) throw new SettingsError(problem);
  return {
    upgrade: { type: 1, newLedgerVersion: protocol },
    apply(ltx, header) {
      const costEntries = [6, 7].flatMap((id) => {
        const entry = ltx.load(configSettingKey(id));
        return entry ? [xdr.LedgerEntry.schema.encode(entry)] : [];
      });
      for (const bytes of loadNative().protocolUpgradeConfigEntries(costEntries, protocol)) {
        ltx.update(xdr.LedgerEntry.schema.decode(bytes));
      }
      header.ledgerVersion = protocol;
    },
  };
}

/** The latest stored ledger's header (what the next ledger's upgrades start from). */
export function latestHeader(store: { latestLedger(): { header: Uint8Array } | undefined }): xdr.LedgerHeaderWire {
  const row = store.latestLedger();
  if (!row) throw new Error('the network has no ledger yet');
  return xdr.LedgerHeaderHistoryEntry.schema.decode(row.header).header;
}
