// The replay's ledger state: what the metas reveal, kept at the network's real state between
// transactions. The engine reads it as its committed state (EntrySource); the replay then writes the
// real changes of each transaction, so a divergence of ours never carries into the next one.
//
// It also records what a transaction read that no meta shows, since that decides whether a
// difference is ours or the replay's blind spot: keys no meta ever shows, accounts known only to
// exist (placeholders), and the order book (which holds only the offers some meta shows).
import type { EntrySource } from '../ledger/ledgerTxn.ts';
import { OrderBook } from '../ledger/orderBook.ts';
import type { EntryWrite } from '../ledger/sorobanState.ts';
import { decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, type Asset, type LedgerEntry, type LedgerEntryChange, type LedgerKey } from '../xdr/codec.ts';
import { ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { entryIdOf, type InitialState } from './initialState.ts';

/** What one transaction read beyond what the metas show. */
export interface BlindReads {
  /** Entries (LedgerKey XDR, base64) no meta shows, looked up and answered as absent. */
  unknownKeys: Set<string>;
  /** Accounts no meta shows that the transaction read as placeholders (known to exist, contents unknown). */
  placeholders: Set<string>;
  /** Order-book queries: the book holds only the offers some meta shows. */
  bookQueries: number;
}

const noReads = (): BlindReads => ({ unknownKeys: new Set(), placeholders: new Set(), bookQueries: 0 });

export class ScratchState implements EntrySource {
  private readonly entries = new Map<string, Uint8Array>();
  private readonly book = new OrderBook();
  private readonly initial: InitialState;
  private placeholders = new Map<string, LedgerEntry>();
  private reads: BlindReads = noReads();
  /** The header's idPool as the network's state stands (the highest offer id handed out). */
  idPool: bigint;

  constructor(initial: InitialState, idPool: bigint) {
    this.initial = initial;
    this.idPool = idPool;
    const writes: EntryWrite[] = [];
    for (const [id, entry] of initial.entries()) {
      this.entries.set(id, entry);
      writes.push({ key: Buffer.from(id, 'base64'), entry });
    }
    this.book.apply(writes);
  }

  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined {
    const id = entryIdOf(keyXdr);
    const bytes = this.entries.get(id);
    if (bytes) return decodeLedgerEntry(bytes);
    if (this.initial.shows(id)) return undefined;
    const placeholder = this.placeholders.get(id);
    if (placeholder) { this.reads.placeholders.add(id); return placeholder; }
    this.reads.unknownKeys.add(id);
    return undefined;
  }

  offers(selling: Asset, buying: Asset): readonly LedgerEntry[] {
    this.reads.bookQueries++;
    return this.book.offers(selling, buying);
  }

  /**
   * Starts a transaction's read log. `placeholders` are accounts no meta shows but the network
   * certainly found (sources of a transaction it applied successfully); they answer reads only.
   */
  beginTransaction(placeholders: readonly LedgerEntry[] = []): void {
    this.reads = noReads();
    this.placeholders = new Map(placeholders.map((e) => [entryIdOf(encodeLedgerKey(ledgerKeyOf(e.data))), e]));
  }

  /** What the transaction read beyond the metas, since beginTransaction. */
  endTransaction(): BlindReads {
    const reads = this.reads;
    this.reads = noReads();
    this.placeholders = new Map();
    return reads;
  }

  /** Whether some meta shows this key (its value is then known here). */
  shows(key: LedgerKey): boolean { return this.initial.shows(entryIdOf(encodeLedgerKey(key))); }

  /** Writes the network's changes. A created offer moves idPool on: offer ids are handed out in order. */
  apply(changes: readonly LedgerEntryChange[]): void {
    const writes: EntryWrite[] = [];
    for (const c of changes) {
      if (c.type === 3) continue;
      if (c.type === 2) { writes.push({ key: encodeLedgerKey(c.removed), entry: null }); continue; }
      const entry = c.type === 0 ? c.created : c.type === 1 ? c.updated : c.restored;
      writes.push({ key: encodeLedgerKey(ledgerKeyOf(entry.data)), entry: encodeLedgerEntry(entry) });
      if (c.type === 0 && entry.data.type === 2 && entry.data.offer.offerId > this.idPool) this.idPool = entry.data.offer.offerId;
    }
    this.write(writes);
  }

  /** Removes evicted entries (archived persistent entries leave the live state too). */
  evict(keys: readonly LedgerKey[]): void {
    this.write(keys.map((k) => ({ key: encodeLedgerKey(k), entry: null })));
  }

  private write(writes: EntryWrite[]): void {
    for (const w of writes) {
      const id = entryIdOf(w.key);
      if (w.entry) this.entries.set(id, w.entry); else this.entries.delete(id);
    }
    this.book.apply(writes);
  }
}
