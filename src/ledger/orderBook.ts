// The order book of the committed state: every offer, grouped by the pair it trades and kept in the
// order stellar-core crosses them. LedgerTxn reads entries by key only; crossing needs "the best offer
// selling X for Y", so the standalone network keeps this index beside its contract-entry index, fed
// from the same stored entry writes, and LedgerTxn layers its uncommitted offers over it.
import { xdr } from '../xdr/xdr.ts';
import { decodeLedgerEntry, toHex, type Asset, type LedgerEntry } from '../xdr/codec.ts';
import { EntryType, ledgerKeyType } from '../xdr/ledgerKeys.ts';
import type { EntryWrite } from './sorobanState.ts';

export type OfferEntry = xdr.OfferEntryWire;

/** Where an offer stands in the book: its price and id (stellar-core's OfferDescriptor). */
export interface OfferPlace { price: xdr.PriceWire; offerId: bigint }

const b64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/**
 * An identifier of an asset (or trustline asset), for maps: built from its fields, without XDR
 * encoding (this runs for every offer a crossing looks at). Codes and keys have fixed lengths, so
 * the concatenation is unambiguous.
 */
export function assetId(a: Asset | xdr.TrustLineAssetWire): string {
  switch (a.type) {
    case 0: return 'native';
    case 1: return `4${b64(a.alphaNum4.assetCode)}${b64(a.alphaNum4.issuer.ed25519)}`;
    case 2: return `12${b64(a.alphaNum12.assetCode)}${b64(a.alphaNum12.issuer.ed25519)}`;
    default: return `x${toHex(xdr.TrustLineAsset.schema.encode(a as xdr.TrustLineAssetWire))}`;
  }
}

/** An identifier of the book of offers selling `selling` for `buying`. */
export const pairId = (selling: Asset, buying: Asset): string => `${assetId(selling)}/${assetId(buying)}`;

export function offerOf(e: LedgerEntry): OfferEntry {
  if (e.data.type !== 2) throw new Error('expected an offer entry');
  return e.data.offer;
}

/**
 * stellar-core's isBetterOffer: the lower price n/d first, compared as doubles exactly as core
 * computes them, then the lower offer id. The order matters: it decides which offers a trade crosses.
 */
export function isBetterPlace(a: OfferPlace, b: OfferPlace): boolean {
  const pa = a.price.n / a.price.d;
  const pb = b.price.n / b.price.d;
  if (pa !== pb) return pa < pb;
  return a.offerId < b.offerId;
}

export const placeOf = (o: OfferEntry): OfferPlace => ({ price: o.price, offerId: o.offerId });

/** Offers of the committed state in book order, per pair; the arrays are replaced, never edited, once handed out. */
export class OrderBook {
  private readonly books = new Map<string, LedgerEntry[]>();
  /** The pair each offer is in, by offer id. */
  private readonly pairOfOffer = new Map<bigint, string>();
  /** Each seller's offers, by offer id (revoking a trustline removes them). */
  private readonly bySeller = new Map<string, Map<bigint, LedgerEntry>>();

  /** The offers selling `selling` for `buying`, best first. */
  offers(selling: Asset, buying: Asset): readonly LedgerEntry[] {
    return this.books.get(pairId(selling, buying)) ?? EMPTY;
  }

  get size(): number { return this.pairOfOffer.size; }

  /** Forgets every offer (before reading the state again, after a revert). */
  clear(): void {
    this.books.clear();
    this.pairOfOffer.clear();
    this.bySeller.clear();
  }

  /** Every offer of `seller`, in no particular order. */
  offersBySeller(seller: xdr.PublicKeyWire): LedgerEntry[] {
    return [...(this.bySeller.get(toHex(seller.ed25519))?.values() ?? [])];
  }

  /** Applies stored writes (LedgerKey XDR -> LedgerEntry XDR, null = deleted); other entry types are ignored. */
  apply(writes: Iterable<EntryWrite>): void {
    const touched = new Map<string, LedgerEntry[]>();
    const bookFor = (pair: string): LedgerEntry[] => {
      let b = touched.get(pair);
      if (!b) { b = [...(this.books.get(pair) ?? [])]; touched.set(pair, b); }
      return b;
    };
    for (const w of writes) {
      if (ledgerKeyType(w.key) !== EntryType.OFFER) continue;
      // an offer key is type, seller id (type + 32 bytes) and the 8-byte id
      const offerId = Buffer.from(w.key.buffer, w.key.byteOffset, w.key.byteLength).readBigInt64BE(40);
      const sellerHex = toHex(w.key.subarray(8, 40));
      const oldPair = this.pairOfOffer.get(offerId);
      if (oldPair !== undefined) {
        const b = bookFor(oldPair);
        const i = b.findIndex((e) => offerOf(e).offerId === offerId);
        if (i >= 0) b.splice(i, 1);
        this.pairOfOffer.delete(offerId);
        const mine = this.bySeller.get(sellerHex);
        mine?.delete(offerId);
        if (mine?.size === 0) this.bySeller.delete(sellerHex);
      }
      if (w.entry) {
        const entry = decodeLedgerEntry(w.entry);
        const offer = offerOf(entry);
        const pair = pairId(offer.selling, offer.buying);
        const b = bookFor(pair);
        b.splice(insertionPoint(b, placeOf(offer)), 0, entry);
        this.pairOfOffer.set(offerId, pair);
        let mine = this.bySeller.get(sellerHex);
        if (!mine) { mine = new Map(); this.bySeller.set(sellerHex, mine); }
        mine.set(offerId, entry);
      }
    }
    for (const [pair, b] of touched) {
      if (b.length) this.books.set(pair, b); else this.books.delete(pair);
    }
  }
}

const EMPTY: readonly LedgerEntry[] = Object.freeze([]);

/** The index of the first offer in `book` (best first) that `place` is better than. */
export function insertionPoint(book: readonly LedgerEntry[], place: OfferPlace): number {
  let lo = 0, hi = book.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBetterPlace(placeOf(offerOf(book[mid])), place)) lo = mid + 1; else hi = mid;
  }
  return lo;
}
