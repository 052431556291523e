// The native Soroban host's TypeScript face. What the rest of the node uses:
// - Simulator: simulation of InvokeHostFunction / ExtendFootprintTTL / RestoreFootprint against the
//   node's SQLite database (for simulateTransaction);
// - genesisConfigSettingEntries(): the network configuration a fresh protocol-28 network starts
//   with, as LedgerEntry XDR (for the ledger engine's genesis);
// - hostInfo(): the host's versions, the protocol apply runs and the protocols simulation runs.
import { loadNative, type NativeHostInfo } from './native.ts';

export { PreflightQueueFullError, Simulator } from './simulator.ts';
export type {
  AuthMode, FootprintInput, FootprintOptions, InvokeInput, InvokeOptions, Simulation, SimulatorOptions, StateChange,
} from './simulator.ts';
export { HostUnavailableError, loadNative, nativeAvailable } from './native.ts';

/**
 * The ConfigSetting LedgerEntries (XDR) of a fresh protocol-28 network, one per ConfigSettingId
 * (0..=20), with the public testnet's values: limits, fees, the 86 CPU and memory cost parameter
 * pairs, state archival (min persistent TTL 120,960, min temporary 720, max 3,110,400), an all-zero
 * state-size window, the eviction iterator and empty freeze lists.
 */
export function genesisConfigSettingEntries(lastModifiedLedgerSeq = 1): Uint8Array[] {
  return loadNative().genesisConfigSettingEntries(lastModifiedLedgerSeq).map((b) => new Uint8Array(b));
}

export function hostInfo(): NativeHostInfo {
  return loadNative().hostInfo();
}
