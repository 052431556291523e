// The native Soroban host's TypeScript face. What the rest of the node uses:
// - Simulator: simulation of InvokeHostFunction / ExtendFootprintTTL / RestoreFootprint against the
//   node's SQLite database (for simulateTransaction);
// - genesisConfigSettingEntries(): the network configuration a fresh network starts with, as
//   LedgerEntry XDR (for the ledger engine's genesis);
// - hostInfo(): the host lines' versions and the protocols they run.
import { loadNative, type NativeHostInfo } from './native.ts';

export { PreflightQueueFullError, Simulator } from './simulator.ts';
export type {
  AuthMode, FootprintInput, FootprintOptions, InvokeInput, InvokeOptions, Simulation, SimulatorOptions, StateChange,
} from './simulator.ts';
export { HostUnavailableError, loadNative, nativeAvailable } from './native.ts';

/**
 * The ConfigSetting LedgerEntries (XDR) of a fresh network at `protocol`, one per ConfigSettingId (0..=20), with the public testnet's values: limits, fees, the
 * CPU and memory cost parameter pairs (86 before protocol 30, 95 from it: the ML-DSA ones), state
 * archival (min persistent TTL 120,960, min temporary 720, max 3,110,400), an all-zero state-size
 * window, the eviction iterator and empty freeze lists.
 */
export function genesisConfigSettingEntries(lastModifiedLedgerSeq: number, protocol: number): Uint8Array[] {
  return loadNative().genesisConfigSettingEntries(lastModifiedLedgerSeq, protocol).map((b) => new Uint8Array(b));
}

export function hostInfo(): NativeHostInfo {
  return loadNative().hostInfo();
}
