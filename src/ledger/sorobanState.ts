// What stellar-core keeps in memory about the Soroban state, for the standalone network: every
// contract entry's TTL, to find the entries to evict, and its rent size, for the live state size the
// state-size window samples. Built from the store once, then kept current from each stored ledger's
// entry writes (which include the evictions).
//
// The live state is every contract data and code entry that has a TTL entry, expired or not (core
// counts an expired entry until it is evicted). An entry without one was evicted to the hot archive.
import { decodeLedgerEntry, decodeLedgerKey, sha256, toHex, type LedgerKey } from '../xdr/codec.ts';
import { EntryType, ledgerKeyType, ttlKeyFor } from '../xdr/ledgerKeys.ts';

const { CONTRACT_DATA, CONTRACT_CODE, TTL } = EntryType;

interface Tracked {
  key?: LedgerKey;
  /** The entry's rent size; 0 while only its TTL is known. */
  size: number;
  liveUntil?: number;
}

export interface EntryWrite { key: Uint8Array; entry: Uint8Array | null }

/** An entry whose TTL has lapsed, with the key of that TTL. */
export interface EvictionCandidate { key: LedgerKey; ttlKey: LedgerKey }

export class SorobanStateIndex {
  /** By the sha256 of the entry's key (what its TTL entry names). */
  private readonly byHash = new Map<string, Tracked>();
  /** Key hashes by the ledger their entry lives until (no empty sets: an absent ledger is skipped at once). */
  private readonly expiring = new Map<number, Set<string>>();
  /** No TTL ends before this ledger. */
  private lowestLiveUntil = Number.POSITIVE_INFINITY;
  private live = 0n;
  /** The rent size of an entry (contract code costs its parsed module's memory too). */
  private readonly rentSize: (entryXdr: Uint8Array, isCode: boolean) => number;

  constructor(rentSize: (entryXdr: Uint8Array, isCode: boolean) => number) { this.rentSize = rentSize; }

  /** The bytes of live Soroban state, as core's in-memory state counts them. */
  get liveStateSize(): bigint { return this.live; }

  /** Applies stored writes (LedgerKey XDR -> LedgerEntry XDR, null = deleted); other entry types are ignored. */
  apply(writes: Iterable<EntryWrite>): void {
    const ttls: EntryWrite[] = [];
    for (const w of writes) {
      const type = ledgerKeyType(w.key);
      if (type === TTL) ttls.push(w);
      else if (type === CONTRACT_DATA || type === CONTRACT_CODE) this.setEntry(w, type === CONTRACT_CODE);
    }
    for (const w of ttls) this.setTtl(w);
  }

  /**
   * Entries whose TTL ended before `ledgerSeq`, those that ended first first, at most `limit`.
   * Core's scan goes through its bucket list instead; which entries go first differs, not what is
   * evicted eventually.
   */
  evictionCandidates(ledgerSeq: number, limit: number): EvictionCandidate[] {
    const out: EvictionCandidate[] = [];
    for (let until = this.lowestLiveUntil; until < ledgerSeq && out.length < limit; until++) {
      const hashes = this.expiring.get(until);
      if (!hashes) {
        if (until === this.lowestLiveUntil) this.lowestLiveUntil = until + 1;
        continue;
      }
      for (const hash of [...hashes].sort()) {
        const key = this.byHash.get(hash)?.key;
        if (!key) continue;
        out.push({ key, ttlKey: ttlKeyFor(key) });
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  private setEntry(w: EntryWrite, isCode: boolean): void {
    const hash = toHex(sha256(w.key));
    const t = this.byHash.get(hash) ?? { size: 0 };
    this.uncount(t);
    if (w.entry) {
      t.key = decodeLedgerKey(w.key);
      t.size = this.rentSize(w.entry, isCode);
    } else {
      t.key = undefined;
      t.size = 0;
    }
    this.store(hash, t);
  }

  private setTtl(w: EntryWrite): void {
    const data = w.entry ? decodeLedgerEntry(w.entry).data : undefined;
    if (data && data.type !== TTL) throw new Error('a TTL key holds a non-TTL entry');
    const key = decodeLedgerKey(w.key);
    if (key.type !== TTL) throw new Error('not a TTL key');
    const hash = toHex(key.ttl.keyHash);
    const t = this.byHash.get(hash) ?? { size: 0 };
    this.uncount(t);
    if (t.liveUntil !== undefined) this.unexpire(t.liveUntil, hash);
    t.liveUntil = data?.ttl.liveUntilLedgerSeq;
    if (t.liveUntil !== undefined) {
      let set = this.expiring.get(t.liveUntil);
      if (!set) this.expiring.set(t.liveUntil, set = new Set());
      set.add(hash);
      if (t.liveUntil < this.lowestLiveUntil) this.lowestLiveUntil = t.liveUntil;
    }
    this.store(hash, t);
  }

  private unexpire(liveUntil: number, hash: string): void {
    const set = this.expiring.get(liveUntil);
    if (set?.delete(hash) && set.size === 0) this.expiring.delete(liveUntil);
  }

  private uncount(t: Tracked): void {
    if (t.key && t.liveUntil !== undefined) this.live -= BigInt(t.size);
  }

  private store(hash: string, t: Tracked): void {
    if (t.key && t.liveUntil !== undefined) this.live += BigInt(t.size);
    if (!t.key && t.liveUntil === undefined) this.byHash.delete(hash);
    else this.byHash.set(hash, t);
  }
}
