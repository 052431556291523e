// The ledger state a stored transaction was applied on: the state at the end of the ledger before
// its own (the store's entry history), then the changes its ledger made before it (every fee
// charge comes first, then the transactions applied before it), from the stored meta.
import type { EntrySource } from '../ledger/ledgerTxn.ts';
import type { StoreReader } from '../store/types.ts';
import { decodeLedgerEntry, toBase64, type LedgerEntry, type LedgerEntryChange } from '../xdr/codec.ts';
import { ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { keyXdrOf } from '../replay/initialState.ts';

/** Reads an entry of the base state (LedgerEntry XDR), or says it had none. */
export type BaseReader = (keyXdr: Uint8Array, id: string) => Uint8Array | undefined;

export class StateBeforeTransaction implements EntrySource {
  /** By key (base64 XDR): the entry as the ledger's earlier changes left it (null: deleted), or as read. */
  private readonly overlay = new Map<string, LedgerEntry | null>();
  private readonly base: BaseReader;

  /**
   * `base`: the state at the end of the ledger before the transaction's (baseFromStore), or the
   * entries gathered from it beforehand (a trace worker's).
   */
  constructor(base: BaseReader) {
    this.base = base;
  }

  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined {
    const id = toBase64(keyXdr);
    const known = this.overlay.get(id);
    if (known !== undefined) return known ?? undefined;
    const stored = this.base(keyXdr, id);
    const entry = stored ? decodeLedgerEntry(stored) : null;
    this.overlay.set(id, entry);
    return entry ?? undefined;
  }

  /** Applies a list of changes from the ledger's meta (STATE changes only say what was there). */
  apply(changes: readonly LedgerEntryChange[]): void {
    for (const c of changes) {
      if (c.type === 3) continue;
      if (c.type === 2) { this.overlay.set(toBase64(keyXdrOf(c.removed)), null); continue; }
      const entry = c.type === 0 ? c.created : c.type === 1 ? c.updated : c.restored;
      this.overlay.set(toBase64(keyXdrOf(ledgerKeyOf(entry.data))), entry);
    }
  }
}

/**
 * The store's state at the end of `ledger` ('latest': the current state). A current entry last
 * written at or before that ledger is what the ledger ended with (every write stamps
 * lastModifiedLedgerSeq), so the entry history is asked only about the rest: entries written since,
 * or absent now.
 */
export function baseFromStore(store: StoreReader, ledger: number | 'latest'): BaseReader {
  return (keyXdr, id) => {
    const current = store.entry(keyXdr);
    if (ledger === 'latest' || (current && current.lastModified <= ledger)) return current?.entry;
    return store.entriesAt([keyXdr], ledger).get(id)?.entry;
  };
}
