// The ledger protocols a standalone network runs. Two things must hold for each: the host addon
// carries its host line (native/src/protocols.rs: apply and simulation of every Soroban operation),
// and this engine writes its ledgers. The next protocol is an entry here once both hold
// (docs/protocol-upgrade.md).
import { loadNative, nativeAvailable } from '../host/native.ts';

/** What a new standalone network runs unless --protocol says otherwise. */
export const DEFAULT_PROTOCOL = 30;

/** The protocols this engine writes ledgers of, oldest first (the host lines may run more). */
export const ENGINE_PROTOCOLS: readonly number[] = [28, 29, 30];

/** The protocols a standalone network of this build runs: the engine's, where the addon has their host line. */
export function runnableProtocols(): number[] {
  if (!nativeAvailable()) return [...ENGINE_PROTOCOLS];
  const lines = new Set(loadNative().hostInfo().protocols);
  return ENGINE_PROTOCOLS.filter((p) => lines.has(p));
}

/** Undefined when a standalone network can run `protocol`; else why not, in a sentence. */
export function protocolProblem(protocol: number): string | undefined {
  if (runnableProtocols().includes(protocol)) return undefined;
  const runs = runnableProtocols();
  return `protocol ${protocol} is not one this build runs protocols ${runs[0]} to ${runs[runs.length - 1]}`;
}
