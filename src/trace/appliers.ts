// Hosts for re-executing stored transactions, one per network configuration and protocol: a host
// keeps a module cache (each contract parsed once), so tracing the transactions of one stretch of
// ledgers reuses it. A few configurations are kept; the oldest used goes first.
//
// The configuration itself (21 ConfigSetting entries) is read once per latest ledger: a ledger at or
// after the newest write to any of them ran under the current ones. Older ledgers read theirs from
// the entry history.
import { loadNative, type NativeSorobanApplier } from '../host/native.ts';
import { encodeLedgerKey, sha256, toHex, type LedgerEntry, type LedgerKey } from '../xdr/codec.ts';
import { decodeLedgerEntry } from '../xdr/codec.ts';
import { ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { loadSorobanNetworkConfig, type SorobanNetworkConfig } from '../ledger/soroban/networkConfig.ts';
import type { StoreReader } from '../store/types.ts';

const KEPT = 4;

interface CurrentConfig { latestHash: string; config: SorobanNetworkConfig | undefined; newestWrite: number }

export class TraceAppliers {
  private readonly byConfig = new Map<string, NativeSorobanApplier>();
  private readonly ofConfig = new WeakMap<SorobanNetworkConfig, Map<number, NativeSorobanApplier>>();
  private current: CurrentConfig | undefined;
  /** Configurations by their entries: the same array (this thread's), or the same bytes (a worker's). */
  private readonly byEntries = new WeakMap<readonly Uint8Array[], SorobanNetworkConfig>();
  private readonly byEntryBytes = new Map<string, SorobanNetworkConfig>();

  private get(configEntries: readonly Uint8Array[], protocol: number): NativeSorobanApplier {
    const id = `${protocol}/${toHex(sha256(...configEntries))}`;
    let applier = this.byConfig.get(id);
    if (applier) {
      this.byConfig.delete(id); // most recently used last
    } else {
      applier = new (loadNative().SorobanApplier)([...configEntries], protocol);
      if (this.byConfig.size >= KEPT) this.byConfig.delete(this.byConfig.keys().next().value!);
    }
    this.byConfig.set(id, applier);
    return applier;
  }

  /** The host for `config` (as `get`, without hashing the entries again for a configuration already seen). */
  forConfig(config: SorobanNetworkConfig, protocol: number): NativeSorobanApplier {
    let byProtocol = this.ofConfig.get(config);
    if (!byProtocol) { byProtocol = new Map(); this.ofConfig.set(config, byProtocol); }
    let applier = byProtocol.get(protocol);
    if (!applier) { applier = this.get(config.entries, protocol); byProtocol.set(protocol, applier); }
    return applier;
  }

  /** The configuration these ConfigSetting entries make; undefined for none (a network without Soroban). */
  configOf(entries: readonly Uint8Array[]): SorobanNetworkConfig | undefined {
    if (entries.length === 0) return undefined;
    let config = this.byEntries.get(entries);
    if (config) return config;
    const id = toHex(sha256(...entries));
    config = this.byEntryBytes.get(id);
    if (!config) {
      const byKey = new Map(entries.map((bytes) => {
        const entry = decodeLedgerEntry(bytes);
        return [toHex(encodeLedgerKey(ledgerKeyOf(entry.data))), entry] as const;
      }));
      config = loadSorobanNetworkConfig((key) => byKey.get(toHex(encodeLedgerKey(key))));
      if (!config) return undefined;
      if (this.byEntryBytes.size >= KEPT) this.byEntryBytes.delete(this.byEntryBytes.keys().next().value!);
      this.byEntryBytes.set(id, config);
    }
    this.byEntries.set(entries, config);
    return config;
  }

  /**
   * The network configuration at the end of `ledger`; `load` reads an entry as it was then (used
   * when a ConfigSetting was written after it).
   */
  configAt(store: StoreReader, ledger: number, load: (key: LedgerKey) => LedgerEntry | undefined): SorobanNetworkConfig | undefined {
    const latest = store.latestLedger();
    const latestHash = latest ? toHex(latest.hash) : '';
    if (this.current?.latestHash !== latestHash) {
      let newestWrite = 0;
      const config = loadSorobanNetworkConfig((key) => {
        const stored = store.entry(encodeLedgerKey(key));
        if (!stored) return undefined;
        newestWrite = Math.max(newestWrite, stored.lastModified);
        return decodeLedgerEntry(stored.entry);
      });
      this.current = { latestHash, config, newestWrite };
    }
    const config = ledger >= this.current.newestWrite ? this.current.config : loadSorobanNetworkConfig(load);
    if (config) this.byEntries.set(config.entries, config);
    return config;
  }
}
