// The replay's ledger state: what the metas reveal, kept at the network's real state between
// transactions. The engine reads it as its committed state (EntrySource); the replay then writes the
// real changes of each transaction, so a divergence of ours never carries into the next one.
//
// It also records what a transaction read that no meta shows, since that decides whether a
// difference is ours or the replay's blind spot: keys no meta ever shows, accounts known only to
// exist (answered with stand-ins, placeholders.ts), and the order book (which holds only the offers
// some meta shows).
import type { EntrySource } from '../ledger/ledgerTxn.ts';
import { OrderBook } from '../ledger/orderBook.ts';
import type { EntryWrite } from '../ledger/sorobanState.ts';
import {
  decodeLedgerEntry, decodeLedgerKey, encodeLedgerEntry, toHex,
  type AccountId, type Asset, type LedgerEntry, type LedgerEntryChange, type LedgerKey,
} from '../xdr/codec.ts';
import { EntryType, ledgerKeyOf, ledgerKeyType } from '../xdr/ledgerKeys.ts';
import { entryIdOf, entryIdOfKey, keyXdrOf, type InitialState } from './initialState.ts';
import { standIn, type StandInFloor, type StandInVersion } from './placeholders.ts';
import { offerLiabilities } from '../ledger/exchange/exchangeMath.ts';
import { assetEquals } from '../ledger/assets.ts';

/** Which stand-ins a transaction reads, and the reserve they must hold. */
export interface StandInOptions { version: StandInVersion; baseReserve: number }

/** What one transaction read beyond what the metas show. */
export interface BlindReads {
  /** Entries (LedgerKey XDR, base64) no meta shows, looked up and answered as absent. */
  unknownKeys: Set<string>;
  /** Entries no meta shows but known to exist, read through stand-ins. */
  placeholders: Set<string>;
  /** Order-book queries (by pair or by seller): the book holds only the offers some meta shows. */
  bookQueries: number;
}

const noReads = (): BlindReads => ({ unknownKeys: new Set(), placeholders: new Set(), bookQueries: 0 });

/**
 * The owner of an entry an account owns (trustline, offer, data), from its key: each of those keys
 * opens with the account id (after the entry type and the key type words).
 */
function ownerOf(keyXdr: Uint8Array): string | undefined {
  const type = ledgerKeyType(keyXdr);
  if (type !== EntryType.TRUSTLINE && type !== EntryType.OFFER && type !== EntryType.DATA) return undefined;
  return toHex(keyXdr.subarray(8, 40));
}

export class ScratchState implements EntrySource {
  private readonly entries = new Map<string, Uint8Array>();
  private readonly book = new OrderBook();
  private readonly initial: InitialState;
  /** Per account (hex), the trustlines, offers and data entries (ids) it owns in the state. */
  private readonly owned = new Map<string, Set<string>>();
  private found = new Set<string>();
  private standIns: StandInOptions = { version: 'bare', baseReserve: 0 };
  private reads: BlindReads = noReads();
  /** The header's idPool as the network's state stands (the highest offer id handed out). */
  idPool: bigint;

  constructor(initial: InitialState, idPool: bigint) {
    this.initial = initial;
    this.idPool = idPool;
    const writes: EntryWrite[] = [];
    for (const entry of initial.entries()) writes.push({ key: keyXdrOf(ledgerKeyOf(decodeLedgerEntry(entry).data)), entry });
    this.write(writes);
  }

  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined {
    const id = entryIdOf(keyXdr);
    const bytes = this.entries.get(id);
    if (bytes) return decodeLedgerEntry(bytes);
    if (this.initial.shows(id)) return undefined;
    // what the network's result shows it found exists, and so does an account that owns entries
    const exists = this.found.has(id) || (ledgerKeyType(keyXdr) === EntryType.ACCOUNT && (this.owned.get(toHex(keyXdr.subarray(8, 40)))?.size ?? 0) > 0);
    const key = exists ? decodeLedgerKey(keyXdr) : undefined;
    const placeholder = key && standIn(key, this.standIns.version, this.floorOf(key));
    if (placeholder) {
      this.reads.placeholders.add(id);
      return placeholder;
    }
    this.reads.unknownKeys.add(id);
    return undefined;
  }

  offers(selling: Asset, buying: Asset): readonly LedgerEntry[] {
    this.reads.bookQueries++;
    return this.book.offers(selling, buying);
  }

  offersBySeller(seller: AccountId): readonly LedgerEntry[] {
    this.reads.bookQueries++;
    return this.book.offersBySeller(seller);
  }

  /**
   * Starts a transaction's read log. `found`: entries the network's result shows it found
   * (placeholders.ts entriesFound); those no meta shows are answered with stand-ins.
   */
  beginTransaction(found: readonly LedgerKey[] = [], standIns: StandInOptions = { version: 'bare', baseReserve: 0 }): void {
    this.reads = noReads();
    this.found = new Set(found.map(entryIdOfKey));
    this.standIns = standIns;
  }

  /** What the state's entries owned by the stand-in's account commit it to. */
  private floorOf(key: LedgerKey): StandInFloor {
    const account = key.type === 0 ? key.account.accountId : key.type === 1 ? key.trustLine.accountId : undefined;
    const floor: StandInFloor = { subEntries: 0, sponsored: 0, liabilities: { buying: 0n, selling: 0n }, baseReserve: this.standIns.baseReserve };
    if (!account) return floor;
    // the asset whose liabilities the stand-in carries: native for an account, the line's own asset
    const asset: Asset | undefined = key.type === 0 ? { type: 0 }
      : key.type === 1 && (key.trustLine.asset.type === 1 || key.trustLine.asset.type === 2) ? key.trustLine.asset as Asset : undefined;
    for (const id of this.owned.get(toHex(account.ed25519)) ?? []) {
      const entry = decodeLedgerEntry(this.entries.get(id)!);
      // a pool-share line counts twice (core's computeMultiplier), everything else an account owns once
      const weight = entry.data.type === 1 && entry.data.trustLine.asset.type === 3 ? 2 : 1;
      floor.subEntries += weight;
      if (entry.ext.v === 1 && entry.ext.v1.sponsoringId) floor.sponsored += weight;
      if (entry.data.type !== 2 || !asset) continue;
      const offer = entry.data.offer;
      const owed = offerLiabilities(offer.price, offer.amount);
      if (assetEquals(offer.selling, asset)) floor.liabilities.selling += owed.selling;
      if (assetEquals(offer.buying, asset)) floor.liabilities.buying += owed.buying;
    }
    return floor;
  }

  /** What the transaction read beyond the metas, since beginTransaction. */
  endTransaction(): BlindReads {
    const reads = this.reads;
    this.reads = noReads();
    this.found = new Set();
    return reads;
  }

  /** Whether some meta shows this key (its value is then known here). */
  shows(key: LedgerKey): boolean { return this.initial.shows(entryIdOfKey(key)); }

  /** Writes the network's changes. A created offer moves idPool on: offer ids are handed out in order. */
  apply(changes: readonly LedgerEntryChange[]): void {
    const writes: EntryWrite[] = [];
    for (const c of changes) {
      if (c.type === 3) continue;
      if (c.type === 2) { writes.push({ key: keyXdrOf(c.removed), entry: null }); continue; }
      const entry = c.type === 0 ? c.created : c.type === 1 ? c.updated : c.restored;
      writes.push({ key: keyXdrOf(ledgerKeyOf(entry.data)), entry: encodeLedgerEntry(entry) });
      if (c.type === 0 && entry.data.type === 2 && entry.data.offer.offerId > this.idPool) this.idPool = entry.data.offer.offerId;
    }
    this.write(writes);
  }

  /** Removes evicted entries (archived persistent entries leave the live state too). */
  evict(keys: readonly LedgerKey[]): void {
    this.write(keys.map((k) => ({ key: keyXdrOf(k), entry: null })));
  }

  private write(writes: EntryWrite[]): void {
    for (const w of writes) {
      const id = entryIdOf(w.key);
      const existed = this.entries.has(id);
      if (w.entry) this.entries.set(id, w.entry); else this.entries.delete(id);
      const owner = ownerOf(w.key);
      if (owner && existed !== (w.entry !== null)) {
        let ids = this.owned.get(owner);
        if (!ids) { ids = new Set(); this.owned.set(owner, ids); }
        if (w.entry) ids.add(id); else ids.delete(id);
        if (ids.size === 0) this.owned.delete(owner);
      }
    }
    this.book.apply(writes);
  }
}
