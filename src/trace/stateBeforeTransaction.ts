// The ledger state a stored transaction was applied on: the state at the end of the ledger before
// its own (the store's entry history), then the changes its ledger made before it (every fee
// charge comes first, then the transactions applied before it), from the stored meta.
import type { EntrySource } from '../ledger/ledgerTxn.ts';
import type { StoreReader, StoredEntry } from '../store/types.ts';
import { decodeLedgerEntry, toBase64, type LedgerEntry, type LedgerEntryChange } from '../xdr/codec.ts';
import { ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { keyXdrOf } from '../replay/initialState.ts';

export class StateBeforeTransaction implements EntrySource {
  /** By key (base64 XDR): the entry as the ledger's earlier changes left it (null: deleted), or as read. */
  private readonly overlay = new Map<string, LedgerEntry | null>();
  private readonly store: StoreReader;
  private readonly ledger: number | 'latest';

  /** `ledger`: the ledger whose end state is the base (the one before the transaction's); 'latest': the current state. */
  constructor(store: StoreReader, ledger: number | 'latest') {
    this.store = store;
    this.ledger = ledger;
  }

  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined {
    const id = toBase64(keyXdr);
    const known = this.overlay.get(id);
    if (known !== undefined) return known ?? undefined;
    const stored = this.read(keyXdr, id);
    const entry = stored ? decodeLedgerEntry(stored.entry) : null;
    this.overlay.set(id, entry);
    return entry ?? undefined;
  }

  /**
   * A current entry last written at or before the base ledger is what the base ledger ended with
   * (every write stamps lastModifiedLedgerSeq), so the entry history is asked only about the rest:
   * entries written since, or absent now.
   */
  private read(keyXdr: Uint8Array, id: string): StoredEntry | undefined {
    const current = this.store.entry(keyXdr);
    if (this.ledger === 'latest' || (current && current.lastModified <= this.ledger)) return current;
    return this.store.entriesAt([keyXdr], this.ledger).get(id);
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
