// Nested ledger-state transactions, after stellar-core's LedgerTxn: an operation works in a child of
// its transaction, which works in a child of the ledger. Committing a child folds its writes into the
// parent and yields the LedgerEntryChanges that go into the meta; rolling back drops them.
import { encodeLedgerKey, type LedgerEntry, type LedgerEntryChange, type LedgerKey } from '../xdr/codec.ts';
import { keyId, ledgerKeyOf } from '../xdr/ledgerKeys.ts';

/** Read-only access to the committed state (storage) beneath the outermost LedgerTxn. */
export interface EntrySource {
  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined;
}

interface Slot { key: LedgerKey; entry: LedgerEntry | null }

/** Copies plain objects and arrays; bytes, strings and bigints are never mutated in place, so they are shared. */
export function cloneWire<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneWire) as T;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const k in v) out[k] = cloneWire((v as Record<string, unknown>)[k]);
    return out as T;
  }
  return v;
}

export class LedgerTxn {
  private readonly slots = new Map<string, Slot>();
  /** Outermost only: what was read from the source, which does not change while a ledger is built. */
  private readonly reads = new Map<string, LedgerEntry | undefined>();
  private closed = false;
  private readonly parent: LedgerTxn | null;
  private readonly source: EntrySource | null;
  readonly ledgerSeq: number;

  constructor(parentOrSource: LedgerTxn | EntrySource, ledgerSeq: number) {
    if (parentOrSource instanceof LedgerTxn) { this.parent = parentOrSource; this.source = null; }
    else { this.parent = null; this.source = parentOrSource; }
    this.ledgerSeq = ledgerSeq;
  }

  nest(): LedgerTxn { return new LedgerTxn(this, this.ledgerSeq); }

  /** The current entry for a key, as a private copy the caller may edit before passing it to `update`. */
  load(key: LedgerKey): LedgerEntry | undefined {
    const e = this.peek(keyId(key), key);
    return e === undefined ? undefined : cloneWire(e);
  }

  exists(key: LedgerKey): boolean { return this.peek(keyId(key), key) !== undefined; }

  /** Whether this transaction (with what its children committed) wrote or erased `key`. */
  modified(key: LedgerKey): boolean { return this.slots.has(keyId(key)); }

  /** Adds a new entry; the caller has checked that the key is absent. */
  create(entry: LedgerEntry): void { this.write(ledgerKeyOf(entry.data), { ...entry, lastModifiedLedgerSeq: this.ledgerSeq }); }

  update(entry: LedgerEntry): void { this.write(ledgerKeyOf(entry.data), { ...entry, lastModifiedLedgerSeq: this.ledgerSeq }); }

  erase(key: LedgerKey): void {
    this.assertOpen();
    this.slots.set(keyId(key), { key, entry: null });
  }

  /** Folds this transaction into its parent and returns the changes, in the order they were first made. */
  commit(): LedgerEntryChange[] {
    this.assertOpen();
    const changes: LedgerEntryChange[] = [];
    for (const [id, slot] of this.slots) {
      const before = this.parent ? this.parent.peek(id, slot.key) : this.readSource(id, slot.key);
      if (slot.entry === null) {
        if (before !== undefined) changes.push({ type: 3, state: before }, { type: 2, removed: slot.key });
      } else if (before === undefined) {
        changes.push({ type: 0, created: slot.entry });
      } else {
        changes.push({ type: 3, state: before }, { type: 1, updated: slot.entry });
      }
      if (this.parent) this.parent.slots.set(id, slot);
    }
    this.closed = true;
    return changes;
  }

  rollback(): void { this.closed = true; this.slots.clear(); }

  /** Every key written (or erased) in this transaction, with its final value. */
  writes(): IterableIterator<Slot> { return this.slots.values(); }

  private peek(id: string, key: LedgerKey): LedgerEntry | undefined {
    const slot = this.slots.get(id);
    if (slot) return slot.entry ?? undefined;
    if (this.parent) return this.parent.peek(id, key);
    return this.readSource(id, key);
  }

  private readSource(id: string, key: LedgerKey): LedgerEntry | undefined {
    if (this.reads.has(id)) return this.reads.get(id);
    const e = this.source!.getEntry(encodeLedgerKey(key));
    this.reads.set(id, e);
    return e;
  }

  private write(key: LedgerKey, entry: LedgerEntry): void {
    this.assertOpen();
    this.slots.set(keyId(key), { key, entry });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('LedgerTxn used after commit or rollback');
  }
}
