// Hosts for re-executing stored transactions, one per network configuration and protocol: a host
// keeps a module cache (each contract parsed once), so tracing the transactions of one stretch of
// ledgers reuses it. A few configurations are kept; the oldest used goes first.
import { loadNative, type NativeSorobanApplier } from '../host/native.ts';
import { sha256, toHex } from '../xdr/codec.ts';

const KEPT = 4;

export class TraceAppliers {
  private readonly byConfig = new Map<string, NativeSorobanApplier>();

  get(configEntries: readonly Uint8Array[], protocol: number): NativeSorobanApplier {
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
}
