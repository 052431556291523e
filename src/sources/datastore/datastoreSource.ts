// Ledgers from a SEP-54 datastore (what galexie writes to a bucket, or our DatastoreWriter to a
// folder): one object per batch of ledgers, named by objectKeys.ts, described by `.config.json`.
// Following the tip is polling for the next file. Backfill speed comes from fetching the next few
// files while the current one is handed out.
import type { LedgerSource, RawLedger } from '../ledgerSource.ts';
import { openObjectStore, type HttpOptions, type ObjectStore } from '../../io/objectStore.ts';
import { CONFIG_KEY, checkPassphrase, parseDatastoreConfig, type DatastoreConfig } from './datastoreConfig.ts';
import { fileRange, keyVariants, objectKey, parseFileName, parsePartitionName, type KeyVariant, type LedgerRange } from './objectKeys.ts';
import { decodeBatch } from './batchCodec.ts';
import { sleep, untilAborted } from '../../io/abortable.ts';
import { inputCap, type ByteCap } from '../../io/inputCaps.ts';

/** The first ledger that has close meta (ledger 1 is genesis, created rather than closed). */
const FIRST_LEDGER = 2;
const MAX_UINT32 = 0xffff_ffff;

export interface DatastoreSourceOptions {
  /** Refuse a datastore whose manifest names another network. */
  networkPassphrase?: string;
  /** How often to look for the next file once at the tip (ms). */
  pollIntervalMs?: number;
  /** How many files to fetch ahead of the one being handed out. */
  prefetch?: number;
  /**
   * A ledger known to be in the datastore. Stores that cannot list (HTTP buckets) find latest()
   * and earliest() by probing outward from a present ledger: the one the caller names, the last one
   * handed out, this one, or ledger 2 (a datastore holding the whole history). Without any of those they answer undefined.
   */
  knownLedger?: number;
  /** The most bytes one file may take, as read and decompressed (--max-input-bytes). */
  cap?: ByteCap;
}

interface FetchedFile { key: string; bytes: Uint8Array }
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function openDatastoreSource(location: string, opts: DatastoreSourceOptions & { http?: HttpOptions } = {}): DatastoreSource {
  return new DatastoreSource(openObjectStore(location, opts.http, opts.cap), opts);
}

export class DatastoreSource implements LedgerSource {
  readonly description: string;
  private readonly store: ObjectStore;
  private readonly expectedPassphrase: string | undefined;
  private readonly pollIntervalMs: number;
  private readonly prefetch: number;
  private readonly knownLedger: number | undefined;
  private readonly cap: ByteCap;
  private configLoad: Promise<DatastoreConfig> | undefined;
  /** How this datastore names its files, once one was found (then only that name is tried). */
  private variant: KeyVariant | undefined;
  private lastSeen: number | undefined;

  constructor(store: ObjectStore, opts: DatastoreSourceOptions = {}) {
    this.store = store;
    this.description = `datastore ${store.description}`;
    this.expectedPassphrase = opts.networkPassphrase;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.prefetch = Math.max(1, opts.prefetch ?? 8);
    this.knownLedger = opts.knownLedger;
    this.cap = opts.cap ?? inputCap();
  }

  /** The manifest, read once (a failed read is tried again on the next call). */
  config(): Promise<DatastoreConfig> {
    this.configLoad ??= this.loadConfig().catch((e) => { this.configLoad = undefined; throw e; });
    return this.configLoad;
  }

  async *ledgers(from: number, opts: { signal: AbortSignal; to?: number }): AsyncGenerator<RawLedger> {
    const { signal } = opts;
    const config = await this.config();
    const perFile = config.ledgersPerBatch;
    const last = Math.min(opts.to ?? MAX_UINT32, MAX_UINT32);
    let next = Math.max(from, 0);
    // Files queued for fetching, in order; queue[i] is the file starting at queueStart + i * perFile.
    const queue: Array<Promise<Settled<FetchedFile | undefined>>> = [];
    let queueStart = fileRange(next, perFile).start;
    // Fetch ahead in full while files keep turning up; one at a time while waiting at the tip.
    let window = this.prefetch;
    while (next <= last && !signal.aborted) {
      while (queue.length < window && queueStart + queue.length * perFile <= last) {
        queue.push(settle(this.fetchFile(queueStart + queue.length * perFile, config)));
      }
      const head = await untilAborted(queue[0], signal);
      if (head === undefined) return;
      if (!head.ok) throw head.error;
      if (head.value === undefined) {
        // Not written yet (the tip), so neither are the ones queued after it: ask again later.
        queue.length = 0;
        window = 1;
        await sleep(this.pollIntervalMs, signal);
        continue;
      }
      queue.shift();
      window = Math.min(window * 2, this.prefetch);
      const expected = fileRange(queueStart, perFile);
      queueStart += perFile;
      for (const ledger of await this.ledgersOfFile(head.value, expected)) {
        if (ledger.sequence < next) continue;
        if (ledger.sequence > last || signal.aborted) return;
        if (ledger.sequence !== next) {
          throw new Error(`${this.description}: ${head.value.key} starts at ledger ${ledger.sequence}, expected ${next}`);
        }
        this.lastSeen = ledger.sequence;
        next++;
        yield ledger;
      }
    }
  }

  /**
   * The ledgers of the file holding `ledger` (the ledgers of its batch, in order), or undefined when
   * the datastore has no such file. For reading old ledgers at random (getLedgers beyond the
   * retention window); following the tip goes through ledgers().
   */
  async fileOf(ledger: number): Promise<RawLedger[] | undefined> {
    const config = await this.config();
    const file = await this.fetchFile(ledger, config);
    return file && this.ledgersOfFile(file, fileRange(ledger, config.ledgersPerBatch));
  }

  async latest(): Promise<number | undefined> {
    const config = await this.config();
    if (this.store.list) return (await this.listedEnd('newest'))?.end;
    return this.probe(config, 'newest');
  }

  /** `near`: a ledger likely in the datastore, where probing starts (stores that cannot list). */
  async earliest(near?: number): Promise<number | undefined> {
    const config = await this.config();
    if (this.store.list) {
      const oldest = await this.listedEnd('oldest');
      return oldest && Math.max(oldest.start, FIRST_LEDGER);
    }
    const first = await this.probe(config, 'oldest', near);
    return first === undefined ? undefined : Math.max(first, FIRST_LEDGER);
  }

  private async loadConfig(): Promise<DatastoreConfig> {
    const bytes = await this.store.get(CONFIG_KEY);
    if (!bytes) {
      throw new Error(`${this.description}: no ${CONFIG_KEY} at its root: not a SEP-54 datastore, or the wrong path or prefix`);
    }
    const config = parseDatastoreConfig(bytes, this.description);
    checkPassphrase(config, this.expectedPassphrase, this.description);
    return config;
  }

  private async ledgersOfFile(file: FetchedFile, expected: LedgerRange): Promise<RawLedger[]> {
    const ledgers = await decodeBatch(file.bytes, `${this.description}/${file.key}`, { cap: this.cap });
    const first = ledgers[0].sequence;
    const lastLedger = ledgers[ledgers.length - 1].sequence;
    if (first < expected.start || lastLedger > expected.end) {
      throw new Error(`${this.description}: ${file.key} holds ledgers ${first}-${lastLedger}, expected ledgers within ${expected.start}-${expected.end}`);
    }
    return ledgers;
  }

  /** The file holding `ledger`, under whichever name this datastore uses, or undefined if absent. */
  private async fetchFile(ledger: number, config: DatastoreConfig): Promise<FetchedFile | undefined> {
    for (const variant of this.variantsToTry(config)) {
      const key = objectKey(ledger, config, variant);
      const bytes = await this.store.get(key);
      if (bytes) {
        this.variant ??= variant;
        return { key, bytes };
      }
    }
    return undefined;
  }

  private async hasFile(ledger: number, config: DatastoreConfig): Promise<boolean> {
    for (const variant of this.variantsToTry(config)) {
      const key = objectKey(ledger, config, variant);
      const present = this.store.exists ? await this.store.exists(key) : (await this.store.get(key)) !== undefined;
      if (present) {
        this.variant ??= variant;
        return true;
      }
    }
    return false;
  }

  private variantsToTry(config: DatastoreConfig): KeyVariant[] {
    return this.variant ? [this.variant] : keyVariants(config);
  }

  /** Newest or oldest file from a listing: partition folders sort by name, newest first. */
  private async listedEnd(which: 'newest' | 'oldest'): Promise<LedgerRange | undefined> {
    const list = this.store.list!.bind(this.store);
    const root = (await list('')) ?? [];
    const better = (a: LedgerRange | undefined, b: LedgerRange | undefined) =>
      !a ? b : !b ? a : which === 'newest' ? (b.end > a.end ? b : a) : (b.start < a.start ? b : a);
    const pick = (names: string[]) => names.map(parseFileName).reduce<LedgerRange | undefined>((best, r) => better(best, r), undefined);

    let found = pick(root); // files kept flat at the root
    const partitions = root
      .filter((n) => n.endsWith('/'))
      .map((n) => ({ name: n, range: parsePartitionName(n.slice(0, -1)) }))
      .filter((p): p is { name: string; range: LedgerRange } => p.range !== undefined)
      .sort((a, b) => (which === 'newest' ? b.range.start - a.range.start : a.range.start - b.range.start));
    for (const p of partitions) {
      const inPartition = pick((await list(p.name)) ?? []);
      if (inPartition) { found = better(found, inPartition); break; }
    }
    return found;
  }

  /**
   * Newest or oldest ledger by probing for files: gallop outward from a present file, then binary
   * search. Assumes the datastore is contiguous (galexie writes it so); a hole would hide the part
   * beyond it.
   */
  private async probe(config: DatastoreConfig, which: 'newest' | 'oldest', near?: number): Promise<number | undefined> {
    const perFile = config.ledgersPerBatch;
    const present = (index: number) => this.hasFile(index * perFile, config);
    const minIndex = Math.floor(FIRST_LEDGER / perFile);
    const maxIndex = Math.floor(MAX_UINT32 / perFile);

    let anchor: number | undefined;
    // a datastore holding ledger 2 starts there: one request instead of a search down from elsewhere
    const anchors = [near, this.lastSeen, this.knownLedger];
    for (const ledger of which === 'oldest' ? [FIRST_LEDGER, ...anchors] : [...anchors, FIRST_LEDGER]) {
      if (ledger !== undefined && await present(Math.floor(ledger / perFile))) { anchor = Math.floor(ledger / perFile); break; }
    }
    if (anchor === undefined) return undefined;

    const dir = which === 'newest' ? 1 : -1;
    const limit = which === 'newest' ? maxIndex : minIndex;
    // `inside` is present; `outside` is absent or past the limit.
    let inside = anchor;
    let outside: number | undefined;
    for (let step = 1; outside === undefined; step *= 2) {
      const candidate = inside + dir * step;
      if (dir * (candidate - limit) > 0) { outside = limit + dir; break; }
      if (await present(candidate)) inside = candidate;
      else outside = candidate;
    }
    while (Math.abs(outside - inside) > 1) {
      const mid = Math.floor((inside + outside) / 2);
      if (await present(mid)) inside = mid;
      else outside = mid;
    }
    const range = fileRange(inside * perFile, perFile);
    return which === 'newest' ? range.end : range.start;
  }
}

async function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  try { return { ok: true, value: await p }; } catch (error) { return { ok: false, error }; }
}
