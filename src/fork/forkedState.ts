// A fork's lazy state: the local network holds what it has fetched from the forked network (and what
// its own ledgers wrote); every other key is read from the remote's getLedgerEntries on first use.
// A key, once asked for, is "resolved" (found or not) and recorded in the store's fork_resolved
// table, so it is never asked for again, also after a restart.
//
// Fetched entries are written straight into the current state as state from before the fork, the
// way a follower's history-archive bootstrap fills it: not a ledger change (no meta, no entry
// history, no event). Every local writer reads a key before it writes it (the engine's dry runs
// resolve what a transaction reads, see src/fork/discovery.ts), so a key a local ledger changed or
// deleted is resolved already and never overwritten by a later fetch; a key written locally without
// being resolved (genesis, a developer edit) keeps its local value (Store.resolveForked).
import { xdr } from '../xdr/xdr.ts';
import type { Store, StoredEntry } from '../store/types.ts';
import { decodeLedgerKey, encodeLedgerEntry, encodeLedgerKey, toBase64, type LedgerKey } from '../xdr/codec.ts';
import { EntryType, isPersistentKey, isSorobanKey, ledgerKeyType, ttlKeyFor } from '../xdr/ledgerKeys.ts';
import { ForkRemoteError, type RemoteRpc } from './remoteRpc.ts';

export interface ForkedState {
  /** Fetches from the remote every key not resolved yet, stores what exists, marks all resolved. */
  resolve(keys: readonly Uint8Array[], opts?: { signal?: AbortSignal }): Promise<void>;
  /** False when the key was never resolved (a reader must resolve it before trusting a miss). */
  isResolved(key: Uint8Array): boolean;
}

/** A remote that could not give the entries a caller needs: what the caller answers (-32603). */
export class ForkFetchError extends Error {
  constructor(url: string | undefined, cause: unknown) {
    const detail = cause instanceof ForkRemoteError ? cause.message : (cause as Error)?.message ?? String(cause);
    super(`could not read ledger entries from the forked network${url ? ` ${url}` : ''}: ${detail}`);
    this.name = 'ForkFetchError';
  }
}

export class RemoteForkedState implements ForkedState {
  private readonly store: Store;
  private readonly remote: RemoteRpc;
  /** The fork's first ledger: fetched entries are state as of it (their lastModified is at most this). */
  private readonly forkLedger: number;
  /** --fork-ledger: every fetch asks for the entries as of the fork ledger, not the remote's latest. */
  private readonly pinned: boolean;
  /** What the network keeps in memory about the state (TTL index, order book) learns the writes made here. */
  private readonly onStored: (writes: readonly StoredEntry[]) => void;
  /** Fetches under way, by base64 key: a second reader of the same key waits for the first fetch. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Counters for logs and the bench. */
  readonly stats = { requests: 0, keysAsked: 0, entriesStored: 0 };

  constructor(opts: { store: Store; remote: RemoteRpc; forkLedger: number; pinned?: boolean; onStored?: (writes: readonly StoredEntry[]) => void }) {
    this.store = opts.store;
    this.remote = opts.remote;
    this.forkLedger = opts.forkLedger;
    this.pinned = opts.pinned ?? false;
    this.onStored = opts.onStored ?? (() => {});
  }

  get url(): string { return this.remote.url; }

  isResolved(key: Uint8Array): boolean {
    // a TTL entry comes with its contract entry (getLedgerEntries does not serve TTL keys)
    if (ledgerKeyType(key) === EntryType.TTL) return true;
    return this.store.forkResolved(key);
  }

  async resolve(keys: readonly Uint8Array[], opts: { signal?: AbortSignal } = {}): Promise<void> {
    const waits: Promise<void>[] = [];
    const missing = new Map<string, Uint8Array>();
    for (const key of keys) {
      if (this.isResolved(key)) continue;
      const id = toBase64(key);
      const running = this.inFlight.get(id);
      if (running) waits.push(running);
      else missing.set(id, key);
    }
    if (missing.size > 0) {
      const fetch = this.fetchAndStore(missing, opts.signal);
      for (const id of missing.keys()) this.inFlight.set(id, fetch);
      const done = () => { for (const id of missing.keys()) if (this.inFlight.get(id) === fetch) this.inFlight.delete(id); };
      fetch.then(done, done);
      waits.push(fetch);
    }
    await Promise.all(waits);
  }

  private async fetchAndStore(keys: Map<string, Uint8Array>, signal: AbortSignal | undefined): Promise<void> {
    let answer;
    try {
      this.stats.requests += Math.ceil(keys.size / 200);
      this.stats.keysAsked += keys.size;
      answer = await this.remote.getLedgerEntries([...keys.keys()], { signal, ...(this.pinned ? { ledger: this.forkLedger } : {}) });
      const late = this.pinned ? answer.entries.find((e) => e.lastModifiedLedgerSeq > this.forkLedger) : undefined;
      if (late) {
        throw new ForkRemoteError(this.remote.url, 'getLedgerEntries', `asked for ledger ${this.forkLedger}, it answered an entry modified at ${late.lastModifiedLedgerSeq}`);
      }
    } catch (e) {
      throw new ForkFetchError(this.remote.url, e);
    }
    const found = new Map<string, StoredEntry[]>();
    const latest = this.store.latestLedger()?.sequence ?? this.forkLedger;
    for (const e of answer.entries) {
      const keyBytes = keys.get(e.key) ?? this.requestedKey(e.key, keys);
      if (!keyBytes) continue; // not one we asked for
      const writes = this.entryWrites(decodeLedgerKey(keyBytes), keyBytes, e, latest);
      found.set(toBase64(keyBytes), writes);
    }
    const groups = [...keys].map(([id, key]) => ({ key, writes: found.get(id) ?? [] }));
    const made = this.store.resolveForked(groups);
    this.stats.entriesStored += made.length;
    if (made.length > 0) this.onStored(made);
  }

  /** The key the remote answered, as we asked for it (a remote may re-encode it: compare decoded). */
  private requestedKey(answered: string, keys: Map<string, Uint8Array>): Uint8Array | undefined {
    try {
      const id = toBase64(encodeLedgerKey(decodeLedgerKey(Buffer.from(answered, 'base64'))));
      return keys.get(id);
    } catch { return undefined; }
  }

  /**
   * The entry and, for contract data and code, its TTL entry from the remote's liveUntilLedgerSeq.
   * A persistent entry whose TTL ended before the local latest ledger is archived (no TTL entry, as
   * the store keeps archived entries); an expired temporary one is absent. lastModified is at most
   * the fork ledger: the entry is pre-fork state here.
   */
  private entryWrites(key: LedgerKey, keyBytes: Uint8Array, e: { xdr: string; extXdr?: string; lastModifiedLedgerSeq: number; liveUntilLedgerSeq?: number }, latest: number): StoredEntry[] {
    const lastModified = Math.min(e.lastModifiedLedgerSeq, this.forkLedger);
    const data = xdr.LedgerEntryData.schema.decode(Buffer.from(e.xdr, 'base64'));
    const ext = e.extXdr ? xdr.LedgerEntryExt.schema.decode(Buffer.from(e.extXdr, 'base64')) : { v: 0 as const };
    const entry = { key: keyBytes, entry: encodeLedgerEntry({ lastModifiedLedgerSeq: lastModified, data, ext } as never), lastModified };
    if (!isSorobanKey(key)) return [entry];
    const liveUntil = e.liveUntilLedgerSeq ?? 0;
    if (liveUntil < latest) return isPersistentKey(key) ? [entry] : [];
    const ttlKey = ttlKeyFor(key);
    const ttl = encodeLedgerEntry({ lastModifiedLedgerSeq: lastModified, data: { type: 9, ttl: { keyHash: ttlKey.ttl.keyHash, liveUntilLedgerSeq: liveUntil } }, ext: { v: 0 } });
    return [entry, { key: encodeLedgerKey(ttlKey), entry: ttl, lastModified }];
  }
}

/** Marks keys resolved without asking the remote: what the fork's genesis wrote itself. */
export function markResolved(store: Store, keys: readonly Uint8Array[]): void {
  store.resolveForked(keys.map((key) => ({ key, writes: [] })));
}
