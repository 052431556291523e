// getLedgers beyond the retention window: a SEP-54 datastore read at random, ledgers handed out as
// the store's LedgerRows. Bounded like the rest of the serving path: files (megabytes each over the
// network) are fetched a few at a time for all requests together, a request stops waiting when its
// signal fires, each file is decoded once and kept in a small LRU cache (a file may hold several
// ledgers, and a page cut short by the answer budget is continued by the next one from the same
// files), and the datastore's first ledger is looked up now and then, not on every request.
import type { Logger } from 'pino';
import type { LedgerArchive, LedgerRow } from '../../store/types.ts';
import type { RawLedger } from '../ledgerSource.ts';
import { closeMetaHeader } from '../closeMetaSequence.ts';
import { untilAborted } from '../../io/abortable.ts';
import { Semaphore } from '../../work/semaphore.ts';
import { fileRange } from './objectKeys.ts';
import type { DatastoreSource } from './datastoreSource.ts';

/** The first ledger with close meta (genesis is created, not closed): what a whole datastore starts at. */
const ASSUMED_FIRST_LEDGER = 2;

export interface DatastoreArchiveOptions {
  /** Files being fetched at once, all requests together. Default 8. */
  fetchConcurrency?: number;
  /** Decoded files kept, in bytes of LedgerCloseMeta. Default 64 MiB. */
  cacheBytes?: number;
  /** How long a found first ledger is trusted (ms); a failed lookup is tried again after a tenth of it. Default 10 min. */
  firstLedgerTtlMs?: number;
  logger?: Logger;
}

export class DatastoreLedgerArchive implements LedgerArchive {
  readonly description: string;
  private readonly source: DatastoreSource;
  private readonly fetches: Semaphore;
  private readonly cache: FileCache;
  /** Fetches under way, by the first ledger of their file, shared by the requests that need them. */
  private readonly fetching = new Map<number, Promise<RawLedger[]>>();
  private readonly firstTtlMs: number;
  private readonly logger: Logger | undefined;
  private first: { value: number | undefined; until: number } | undefined;
  private firstLookup: Promise<number | undefined> | undefined;

  constructor(source: DatastoreSource, opts: DatastoreArchiveOptions = {}) {
    this.source = source;
    this.description = source.description;
    this.fetches = new Semaphore(opts.fetchConcurrency ?? 8);
    this.cache = new FileCache(opts.cacheBytes ?? 64 * 1024 * 1024);
    this.firstTtlMs = opts.firstLedgerTtlMs ?? 10 * 60_000;
    this.logger = opts.logger;
  }

  firstLedger(near: number, signal: AbortSignal): Promise<number | undefined> {
    if (this.first && Date.now() < this.first.until) return Promise.resolve(this.first.value);
    this.firstLookup ??= this.lookUpFirst(near).finally(() => { this.firstLookup = undefined; });
    return untilAborted(this.firstLookup, signal);
  }

  async ledgers(from: number, count: number, signal: AbortSignal): Promise<LedgerRow[]> {
    if (signal.aborted) throw signal.reason;
    if (count <= 0) return [];
    const { ledgersPerBatch } = await this.source.config();
    const last = from + count - 1;
    const files: Array<Promise<RawLedger[]>> = [];
    for (let ledger = from; ledger <= last; ledger = fileRange(ledger, ledgersPerBatch).end + 1) {
      files.push(this.file(fileRange(ledger, ledgersPerBatch).start, signal));
    }
    const fetched = await untilAborted(Promise.allSettled(files), signal);
    if (fetched === undefined) throw signal.reason;
    const rows: LedgerRow[] = [];
    for (const file of fetched) {
      if (file.status === 'rejected') throw file.reason; // the first failure in ledger order, whichever came first
      for (const raw of file.value) if (raw.sequence >= from && raw.sequence <= last) rows.push(this.rowOf(raw));
    }
    if (rows.length !== count) throw new Error(`${this.description}: ledgers ${from}-${last} are not all there`);
    return rows;
  }

  private async lookUpFirst(near: number): Promise<number | undefined> {
    let value: number | undefined;
    let found = false;
    try {
      value = await this.source.earliest(near);
      found = value !== undefined;
      if (!found) this.logger?.warn({ datastore: this.description }, 'the datastore holds no ledger yet');
    } catch (e) {
      // Assumed whole, as the reference always assumes: requests then reach the datastore, and its
      // failure is what they answer (-32603), not a range that hides it.
      value = ASSUMED_FIRST_LEDGER;
      this.logger?.error({ err: e, datastore: this.description }, 'cannot tell the datastore\'s first ledger');
    }
    this.first = { value, until: Date.now() + (found ? this.firstTtlMs : this.firstTtlMs / 10) };
    return value;
  }

  /** The ledgers of the file starting at `start`, from the cache or fetched; rejects when it is absent. */
  private async file(start: number, signal: AbortSignal): Promise<RawLedger[]> {
    const cached = this.cache.get(start);
    if (cached) return cached;
    let running = this.fetching.get(start);
    if (!running) {
      // a request that gives up while waiting for a slot starts nothing
      const release = await this.fetches.acquire(signal);
      running = this.fetching.get(start);
      if (running) {
        release();
      } else {
        const fetch = this.fetch(start).finally(() => { release(); this.fetching.delete(start); });
        this.fetching.set(start, fetch);
        running = fetch;
      }
    }
    return running;
  }

  private async fetch(start: number): Promise<RawLedger[]> {
    const ledgers = await this.source.fileOf(start);
    if (!ledgers) throw new Error(`${this.description}: no file holds ledger ${start}`);
    this.cache.put(start, ledgers);
    return ledgers;
  }

  private rowOf(raw: RawLedger): LedgerRow {
    const { entry, bytes } = closeMetaHeader(raw.bytes, `${this.description}: ledger ${raw.sequence}`);
    return {
      sequence: raw.sequence,
      hash: entry.hash,
      closeTime: Number(entry.header.scpValue.closeTime),
      protocolVersion: entry.header.ledgerVersion,
      header: bytes,
      meta: raw.bytes,
    };
  }
}

/** Decoded files by their first ledger, least recently used dropped first once over `maxBytes`. */
class FileCache {
  private readonly files = new Map<number, { ledgers: RawLedger[]; bytes: number }>();
  private readonly maxBytes: number;
  private bytes = 0;
  constructor(maxBytes: number) { this.maxBytes = maxBytes; }

  get(start: number): RawLedger[] | undefined {
    const file = this.files.get(start);
    if (!file) return undefined;
    this.files.delete(start); // a Map keeps insertion order: re-inserting makes it the newest
    this.files.set(start, file);
    return file.ledgers;
  }

  put(start: number, ledgers: RawLedger[]): void {
    const bytes = ledgers.reduce((n, l) => n + l.bytes.length, 0);
    if (bytes > this.maxBytes || this.files.has(start)) return;
    this.files.set(start, { ledgers, bytes });
    this.bytes += bytes;
    for (const [key, file] of this.files) {
      if (this.bytes <= this.maxBytes) break;
      this.files.delete(key);
      this.bytes -= file.bytes;
    }
  }
}
