// Entries no key names in advance (an account's trustlines and offers, a contract's persistent and
// temporary storage) cannot be listed through getLedgerEntries. A standalone network's developer
// method lumen_dumpState answers the whole live state, each entry with its TTL: the explorer reads
// that when the node serves it to this page, and says so when it does not.
import { call, METHOD_NOT_FOUND, RpcError } from './rpc.ts';

export interface DumpedEntry {
  /** The LedgerEntry (crate JSON): last_modified_ledger_seq, data, ext. */
  entry: { data: any; last_modified_ledger_seq: number };
  /** The entry's live-until ledger (contract data and code), else null. */
  live_until: number | null;
}

export interface DumpedState { sequence: number; entries: DumpedEntry[] }

export type StateAnswer = { state: DumpedState } | { unavailable: string };

export async function dumpState(): Promise<StateAnswer> {
  try {
    const s = await call('lumen_dumpState');
    return { state: { sequence: s.sequence_number, entries: s.ledger_entries } };
  } catch (e) {
    if (e instanceof RpcError && e.code === METHOD_NOT_FOUND) {
      return { unavailable: 'this node does not serve the developer method lumen_dumpState (only a standalone network does, with developer methods on)' };
    }
    if (e instanceof RpcError && e.code === -32003) return { unavailable: 'this node refuses developer methods to this page' };
    return { unavailable: `lumen_dumpState failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** TTL as "until ledger N (in M ledgers)" or "archived" / "expired" when it lapsed. */
export function ttlText(liveUntil: number | null | undefined, latest: number, temporary = false): string {
  if (liveUntil === null || liveUntil === undefined) return '—';
  if (liveUntil === 0 || liveUntil < latest) return temporary ? 'expired' : `archived (lapsed at ${liveUntil})`;
  return `until ${liveUntil} (${(liveUntil - latest).toLocaleString('en-US')} more ledgers)`;
}
