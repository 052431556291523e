// Nested ledger-state transactions, after stellar-core's LedgerTxn: an operation works in a child of
// its transaction, which works in a child of the ledger. Committing a child folds its writes into the
// parent and yields the LedgerEntryChanges that go into the meta; rolling back drops them.
//
// Besides entries, each level carries what core keeps beside them in its LedgerTxn and rolls back the
// same way: the header's idPool (offer ids) and internal values that are never ledger entries (the
// sponsorships a transaction has begun).
import { bytesEqual, encodeLedgerKey, type AccountId, type Asset, type LedgerEntry, type LedgerEntryChange, type LedgerKey } from '../xdr/codec.ts';
import { keyId, ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { INT64_MAX } from './numeric.ts';
import { insertionPoint, isBetterPlace, offerOf, pairId, placeOf, type OfferPlace } from './orderBook.ts';

/** Read-only access to the committed state (storage) beneath the outermost LedgerTxn. */
export interface EntrySource {
  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined;
  /**
   * The committed offers selling `selling` for `buying`, best first (see orderBook.ts), unchanged
   * while a ledger is built. A source without offers may leave it out.
   */
  offers?(selling: Asset, buying: Asset): readonly LedgerEntry[];
  /** Every committed offer of `seller`. */
  offersBySeller?(seller: AccountId): readonly LedgerEntry[];
  /** Every committed pool-share trustline of `owner` (revoking authorization redeems them). */
  poolShareTrustLines?(owner: AccountId): readonly LedgerEntry[];
}

/** Header values an outermost LedgerTxn starts from. */
export interface HeaderState { idPool: bigint }

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
  /** The idPool as this level left it; undefined = as the parent has it. */
  private ownIdPool: bigint | undefined;
  /** Internal values written at this level; undefined = removed. */
  private readonly internals = new Map<string, unknown>();
  /** Offer ids this level wrote or erased, by the pair they are (or were) in. */
  private readonly offerIdsByPair = new Map<string, Set<string>>();
  /** The pair of each offer this level holds (its slot's entry), so that looking through a pair's ids encodes nothing. */
  private readonly pairOfOffer = new Map<string, string>();
  /**
   * Outermost only: the offers its slots hold, per pair, best first, and where each one is filed. The
   * outermost level gathers every offer a ledger writes, and a crossing asks for its best offer at
   * every step: looking through them all each time made a ledger's crossings quadratic.
   */
  private readonly sortedOffers = new Map<string, Array<{ place: OfferPlace; id: string }>>();
  private readonly filedOffers = new Map<string, { pair: string; place: OfferPlace }>();
  /** Outermost only: per pair, how many leading committed offers this level has already erased or changed. */
  private readonly consumedPrefix = new Map<string, { book: readonly LedgerEntry[]; n: number }>();

  constructor(parentOrSource: LedgerTxn | EntrySource, ledgerSeq: number, header?: HeaderState) {
    if (parentOrSource instanceof LedgerTxn) { this.parent = parentOrSource; this.source = null; }
    else { this.parent = null; this.source = parentOrSource; this.ownIdPool = header?.idPool ?? 0n; }
    this.ledgerSeq = ledgerSeq;
  }

  /** The last id handed out (LedgerHeader.idPool). */
  get idPool(): bigint {
    if (this.ownIdPool !== undefined) return this.ownIdPool;
    return this.parent!.idPool;
  }

  /** The next offer id (stellar-core's generateID); rolled back with this level. */
  generateId(): bigint {
    this.assertOpen();
    const next = this.idPool + 1n;
    if (next > INT64_MAX) throw new Error('idPool overflowed');
    this.ownIdPool = next;
    return next;
  }

  /** An internal value (not a ledger entry) visible at this level. */
  getInternal<T>(name: string): T | undefined {
    if (this.internals.has(name)) return this.internals.get(name) as T | undefined;
    return this.parent ? this.parent.getInternal<T>(name) : undefined;
  }

  /** Sets (or, with undefined, removes) an internal value; it commits and rolls back with this level. */
  setInternal(name: string, value: unknown): void {
    this.assertOpen();
    this.internals.set(name, value);
  }

  /** Internal values visible at this level whose names start with `prefix`. */
  internalsWithPrefix(prefix: string): Array<[string, unknown]> {
    const seen = new Map<string, unknown>();
    for (let l: LedgerTxn | null = this; l; l = l.parent) {
      for (const [k, v] of l.internals) if (k.startsWith(prefix) && !seen.has(k)) seen.set(k, v);
    }
    return [...seen].filter(([, v]) => v !== undefined);
  }

  /**
   * The best offer selling `selling` for `buying` as this level sees it (stellar-core's
   * loadBestOffer): the committed book with every level's writes laid over it. With `worseThan`,
   * the best offer strictly worse than that place. A private copy, as `load` returns.
   */
  bestOffer(selling: Asset, buying: Asset, worseThan?: OfferPlace): LedgerEntry | undefined {
    const pair = pairId(selling, buying);
    const decided = new Set<string>();
    let best: LedgerEntry | undefined;
    for (let l: LedgerTxn | null = this; l; l = l.parent) {
      if (!l.parent) {
        // the outermost level: its best offer that no level below has decided on
        const sorted = l.sortedOffers.get(pair);
        if (!sorted) continue;
        for (let i = worseThan ? firstWorse(sorted, worseThan) : 0; i < sorted.length; i++) {
          const { place, id } = sorted[i];
          if (decided.has(id)) continue;
          if (!best || isBetterPlace(place, placeOf(offerOf(best)))) best = l.slots.get(id)!.entry!;
          break;
        }
        continue;
      }
      const ids = l.offerIdsByPair.get(pair);
      if (!ids) continue;
      for (const id of ids) {
        if (decided.has(id)) continue;
        decided.add(id);
        const slot = l.slots.get(id)!;
        if (!slot.entry || l.pairOfOffer.get(id) !== pair) continue;
        const offer = offerOf(slot.entry);
        if (worseThan && !isBetterPlace(worseThan, placeOf(offer))) continue;
        if (!best || isBetterPlace(placeOf(offer), placeOf(offerOf(best)))) best = slot.entry;
      }
    }
    const committed = this.bestCommittedOffer(selling, buying, pair, worseThan);
    if (committed && (!best || isBetterPlace(placeOf(offerOf(committed)), placeOf(offerOf(best))))) best = committed;
    return best === undefined ? undefined : cloneWire(best);
  }

  /**
   * Every offer of `seller` as this level sees it (stellar-core's loadOffersByAccountAndAsset,
   * without the asset filter), as private copies.
   */
  offersBySeller(seller: AccountId): LedgerEntry[] {
    return this.overlaid(
      (key) => key.type === 2 && bytesEqual(key.offer.sellerId.ed25519, seller.ed25519),
      this.root().source!.offersBySeller?.(seller) ?? []);
  }

  /**
   * Every pool-share trustline of `owner` as this level sees it, as private copies: what stellar-core's
   * loadPoolShareTrustLinesByAccountAndAsset chooses from (the caller filters by the pools' assets).
   */
  poolShareTrustLinesOf(owner: AccountId): LedgerEntry[] {
    return this.overlaid(
      (key) => key.type === 1 && key.trustLine.asset.type === 3 && bytesEqual(key.trustLine.accountId.ed25519, owner.ed25519),
      this.root().source!.poolShareTrustLines?.(owner) ?? []);
  }

  /**
   * The entries whose keys match, as this level sees them: what any level wrote (the nearest write
   * wins, an erasure hides the entry), then the committed ones no level touched. Private copies.
   */
  private overlaid(matches: (key: LedgerKey) => boolean, committed: readonly LedgerEntry[]): LedgerEntry[] {
    const decided = new Set<string>();
    const out: LedgerEntry[] = [];
    for (let l: LedgerTxn | null = this; l; l = l.parent) {
      for (const [id, slot] of l.slots) {
        if (decided.has(id) || !matches(slot.key)) continue;
        decided.add(id);
        if (slot.entry) out.push(cloneWire(slot.entry));
      }
    }
    for (const e of committed) {
      if (!decided.has(keyId(ledgerKeyOf(e.data)))) out.push(cloneWire(e));
    }
    return out;
  }

  /** The outermost level, the one over the committed state. */
  private root(): LedgerTxn {
    let root: LedgerTxn = this;
    while (root.parent) root = root.parent;
    return root;
  }

  /** The best committed offer of the pair that no level has written or erased. */
  private bestCommittedOffer(selling: Asset, buying: Asset, pair: string, worseThan?: OfferPlace): LedgerEntry | undefined {
    const root = this.root();
    const book = root.source!.offers?.(selling, buying);
    if (!book || book.length === 0) return undefined;
    // the outermost level only ever adds writes while a ledger is built, so the offers it has
    // shadowed at the front of the book stay shadowed: skip them once, not at every look
    let prefix = root.consumedPrefix.get(pair);
    if (!prefix || prefix.book !== book) { prefix = { book, n: 0 }; root.consumedPrefix.set(pair, prefix); }
    while (prefix.n < book.length && root.slots.has(keyId(ledgerKeyOf(book[prefix.n].data)))) prefix.n++;
    let i = worseThan ? Math.max(prefix.n, insertionPoint(book, worseThan)) : prefix.n;
    for (; i < book.length; i++) {
      const e = book[i];
      if (worseThan && !isBetterPlace(worseThan, placeOf(offerOf(e)))) continue;
      if (!this.shadows(keyId(ledgerKeyOf(e.data)))) return e;
    }
    return undefined;
  }

  /** Whether this level or one above it wrote or erased the entry with this id. */
  private shadows(id: string): boolean {
    for (let l: LedgerTxn | null = this; l; l = l.parent) if (l.slots.has(id)) return true;
    return false;
  }

  nest(): LedgerTxn { return new LedgerTxn(this, this.ledgerSeq); }

  /** The current entry for a key, as a private copy the caller may edit before passing it to `update`. */
  load(key: LedgerKey): LedgerEntry | undefined {
    const e = this.peek(keyId(key), key);
    return e === undefined ? undefined : cloneWire(e);
  }

  /** The current entry for a key, shared with the state: to read only (load gives a copy to edit). */
  read(key: LedgerKey): Readonly<LedgerEntry> | undefined { return this.peek(keyId(key), key); }

  exists(key: LedgerKey): boolean { return this.peek(keyId(key), key) !== undefined; }

  /** Whether this transaction (with what its children committed) wrote or erased `key`. */
  modified(key: LedgerKey): boolean { return this.slots.has(keyId(key)); }

  /** Adds a new entry; the caller has checked that the key is absent. */
  create(entry: LedgerEntry): void { this.write(ledgerKeyOf(entry.data), { ...entry, lastModifiedLedgerSeq: this.ledgerSeq }); }

  update(entry: LedgerEntry): void { this.write(ledgerKeyOf(entry.data), { ...entry, lastModifiedLedgerSeq: this.ledgerSeq }); }

  erase(key: LedgerKey): void {
    this.assertOpen();
    const id = keyId(key);
    if (key.type === 2) {
      const current = this.peek(id, key);
      if (current) this.noteOffer(id, current);
    }
    const slot = { key, entry: null };
    this.slots.set(id, slot);
    if (key.type === 2 && !this.parent) this.fileOffer(id, slot);
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
      if (this.parent) {
        this.parent.slots.set(id, slot);
        const pair = this.pairOfOffer.get(id);
        if (pair !== undefined) this.parent.pairOfOffer.set(id, pair);
        if (slot.key.type === 2 && !this.parent.parent) this.parent.fileOffer(id, slot);
      }
    }
    if (this.parent) {
      const p = this.parent;
      if (this.ownIdPool !== undefined) p.ownIdPool = this.ownIdPool;
      for (const [k, v] of this.internals) p.internals.set(k, v);
      for (const [pair, ids] of this.offerIdsByPair) {
        let into = p.offerIdsByPair.get(pair);
        if (!into) { into = new Set(); p.offerIdsByPair.set(pair, into); }
        for (const id of ids) into.add(id);
      }
    }
    this.closed = true;
    return changes;
  }

  rollback(): void {
    this.closed = true; this.slots.clear(); this.internals.clear(); this.offerIdsByPair.clear(); this.pairOfOffer.clear();
    this.sortedOffers.clear(); this.filedOffers.clear();
  }

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
    const id = keyId(key);
    if (key.type === 2) {
      // an update may move an offer to another pair: it leaves the old book and joins the new
      const current = this.peek(id, key);
      if (current) this.noteOffer(id, current);
      this.pairOfOffer.set(id, this.noteOffer(id, entry));
    }
    const slot = { key, entry };
    this.slots.set(id, slot);
    if (key.type === 2 && !this.parent) this.fileOffer(id, slot);
  }

  /** Outermost only: keeps sortedOffers in step with the offer's slot (filed when it holds an offer, else not). */
  private fileOffer(id: string, slot: Slot): void {
    const old = this.filedOffers.get(id);
    if (old) {
      const sorted = this.sortedOffers.get(old.pair)!;
      const i = firstNotBetter(sorted, old.place);
      if (sorted[i]?.id !== id) throw new Error('order book index out of step');
      sorted.splice(i, 1);
      this.filedOffers.delete(id);
    }
    if (!slot.entry) return;
    const o = offerOf(slot.entry);
    const pair = this.pairOfOffer.get(id) ?? pairId(o.selling, o.buying);
    const place: OfferPlace = { price: { n: o.price.n, d: o.price.d }, offerId: o.offerId };
    let sorted = this.sortedOffers.get(pair);
    if (!sorted) { sorted = []; this.sortedOffers.set(pair, sorted); }
    sorted.splice(firstNotBetter(sorted, place), 0, { place, id });
    this.filedOffers.set(id, { pair, place });
  }

  /** Files the offer under its pair at this level; returns the pair. */
  private noteOffer(id: string, e: LedgerEntry): string {
    const o = offerOf(e);
    const pair = pairId(o.selling, o.buying);
    let ids = this.offerIdsByPair.get(pair);
    if (!ids) { ids = new Set(); this.offerIdsByPair.set(pair, ids); }
    ids.add(id);
    return pair;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('LedgerTxn used after commit or rollback');
  }
}

/** The index of the first filed offer that `place` is better than or equal to (where `place` goes, or is). */
function firstNotBetter(sorted: ReadonlyArray<{ place: OfferPlace }>, place: OfferPlace): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBetterPlace(sorted[mid].place, place)) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** The index of the first filed offer strictly worse than `place`. */
function firstWorse(sorted: ReadonlyArray<{ place: OfferPlace }>, place: OfferPlace): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (!isBetterPlace(place, sorted[mid].place)) lo = mid + 1; else hi = mid;
  }
  return lo;
}
