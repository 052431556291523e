// Following a real network: the single writer that takes ledgers from a source (datastore, meta
// stream, captive core), has them converted to rows by the mapping the standalone network's ledgers
// go through (natively, on a worker thread, a few ahead), checks and stores them. Ledgers are
// committed whole (several per transaction while behind), so a crash loses only uncommitted work and
// a restart resumes at the stored tip + 1: nothing is lost or stored twice.
//
// On an empty database it first bootstraps the ledger state from a history-archive checkpoint C,
// then backfills the retention window (ledgers <= C are history only: their entry changes are
// already in the checkpoint's state), reporting progress, then follows the tip.
import type { Logger } from 'pino';
import type { IngestBatch, Store } from '../store/types.ts';
import type { LedgerSource, RawLedger } from '../sources/ledgerSource.ts';
import { CorruptLedgerError, verifiedLedgerBatch, type KnownLedger } from './verifiedLedger.ts';
import { toHex } from '../xdr/codec.ts';
import { LedgerRowsWorker } from './ledgerRowsWorker.ts';
import type { LedgerWriter } from './ledgerWriter.ts';

/** Ledgers converted ahead of the one being stored (each ~1-3 MB of rows in memory). */
const CONVERT_AHEAD = 4;
/** Most ledgers stored in one transaction while backfilling. */
const GROUP_LEDGERS = 16;

interface Converting { raw: RawLedger; batch: Promise<IngestBatch>; ready: boolean }

/**
 * Bootstraps the store's ledger state from a checkpoint no newer than `notAfter`; returns the
 * checkpoint ledger, with its hash as the history archive's verified header gives it.
 */
export type StateBootstrapper = (notAfter: number | undefined, signal: AbortSignal) => Promise<KnownLedger>;

/** Store metadata: the hash of the checkpoint ledger the state was bootstrapped from (hex). */
export const STATE_LEDGER_HASH = 'stateLedgerHash';

export interface LedgerIngesterOptions {
  /** Where ledgers are committed and announced (its store is the one followed from). */
  writer: LedgerWriter;
  source: LedgerSource;
  networkId: Uint8Array;
  retentionWindow: number;
  logger: Logger;
  /** Absent: no history archive; the state is only what the ingested ledgers changed. */
  bootstrapState?: StateBootstrapper;
  /**
   * The checkpoint the store's state was already bootstrapped from (an archive fork does it before
   * ingesting): the ledgers stored must chain through it. Without it, the bootstrap's (recorded in
   * the store's metadata) is used.
   */
  stateCheckpoint?: KnownLedger;
  observeIngestion?: (type: string, seconds: number) => void;
  /** Attempts at one ledger before ingestion gives up (1 s apart). */
  attempts?: number;
  progressIntervalMs?: number;
}

export class LedgerIngester {
  private readonly o: LedgerIngesterOptions;
  private readonly abort = new AbortController();
  private readonly converter = new LedgerRowsWorker();
  private running: Promise<void> | undefined;
  /** Set when ingestion gave up; the node keeps serving what it has. */
  failure: Error | undefined;

  constructor(opts: LedgerIngesterOptions) { this.o = opts; }

  private get store(): Store { return this.o.writer.store; }

  start(): void {
    this.running = this.run().catch((e: unknown) => {
      if (this.abort.signal.aborted) return;
      this.failure = e as Error;
      this.o.logger.error({ err: e }, 'ingestion stopped');
    });
  }

  /** Resolves when ingestion ends: a bounded source ended, it gave up (see failure), or stop(). */
  finished(): Promise<void> { return this.running ?? Promise.resolve(); }

  async stop(): Promise<void> {
    this.abort.abort(new Error('stopping'));
    await this.running;
    await this.converter.close();
  }

  private async run(): Promise<void> {
    const { store } = this;
    const { logger } = this.o;
    const signal = this.abort.signal;
    const tip = await this.retrying('reading the source\'s tip', () => this.o.source.latest());
    let stateLedger = Number(store.metadata('stateLedger') ?? 0);
    let checkpoint = this.o.stateCheckpoint ?? recordedCheckpoint(store, stateLedger);
    if (!store.latestLedger() && this.o.bootstrapState && !stateLedger) {
      checkpoint = await this.o.bootstrapState(tip, signal);
      stateLedger = checkpoint.sequence;
      store.setMetadata(STATE_LEDGER_HASH, toHex(checkpoint.hash));
      logger.info({ checkpoint: stateLedger }, 'ledger state bootstrapped from the history archive');
    } else if (!this.o.bootstrapState && !stateLedger && !store.latestLedger()) {
      logger.warn('no history archive: the ledger state holds only what ingested ledgers changed');
    }
    const from = await this.retrying('reading the source\'s first ledger', () => this.firstLedger(tip, stateLedger));
    logger.info({ from, tip, source: this.o.source.description }, 'ingesting');
    const progress = new BackfillProgress(from, tip, logger, this.o.progressIntervalMs ?? 5000);

    let failures = 0;
    const attempts = this.o.attempts ?? 5;
    while (!signal.aborted) {
      const latest = store.latestLedger();
      try {
        await this.pipeline(latest ? latest.sequence + 1 : from, stateLedger, checkpoint, progress, () => { failures = 0; });
        return; // a bounded source (a stream file) ended
      } catch (e) {
        if (signal.aborted) return;
        failures++;
        if (failures >= attempts) throw e;
        logger.warn({ err: e, ledger: store.latestLedger()?.sequence, attempt: failures }, 'ingestion failed; retrying');
        await sleep(1000, signal);
      }
    }
  }

  /**
   * Reads, converts (on the worker thread, a few ledgers ahead) and stores, in order. Ledgers that
   * are ready together (a backfill) are stored in one transaction, up to GROUP_LEDGERS; at the tip
   * each ledger is stored as soon as it is converted.
   */
  private async pipeline(from: number, stateLedger: number, checkpoint: KnownLedger | undefined, progress: BackfillProgress, stored: () => void): Promise<void> {
    const stop = new AbortController();
    const signal = AbortSignal.any([this.abort.signal, stop.signal]);
    const ahead = new BoundedQueue<Converting>(CONVERT_AHEAD);
    const producer = (async () => {
      try {
        for await (const raw of this.o.source.ledgers(from, { signal })) {
          const converting: Converting = { raw, batch: this.converter.convert(raw.bytes, this.o.networkId), ready: false };
          converting.batch.then(() => { converting.ready = true; }, () => { converting.ready = true; });
          await ahead.push(converting, signal);
        }
        ahead.end();
      } catch (e) {
        ahead.fail(e);
      }
    })();
    try {
      for (;;) {
        const first = await ahead.shift();
        if (!first) break;
        const group = [first];
        while (group.length < GROUP_LEDGERS && ahead.peek()?.ready) group.push((await ahead.shift())!);
        const started = performance.now();
        const batches: IngestBatch[] = [];
        let previous = this.store.latestLedger();
        let bad: unknown;
        for (const c of group) {
          try {
            if (previous && c.raw.sequence !== previous.sequence + 1) {
              throw new Error(`${this.o.source.description} gave ledger ${c.raw.sequence} after the stored ledger ${previous.sequence}`);
            }
            const converted = await c.batch.catch((e: Error) => { throw new CorruptLedgerError(`ledger ${c.raw.sequence}: ${e.message}`); });
            const batch = verifiedLedgerBatch(c.raw, converted, previous?.hash, checkpoint);
            batches.push(batch);
            previous = batch.ledger;
          } catch (e) {
            bad = e; // the good ledgers before it are still stored
            break;
          }
        }
        // ledgers up to the checkpoint are history only: the checkpoint's state already holds their changes
        await this.o.writer.writeInSlices(batches, { historyOnlyThrough: stateLedger });
        if (batches.length) stored();
        const seconds = (performance.now() - started) / 1000;
        for (const b of batches) {
          this.o.observeIngestion?.('total', seconds / batches.length);
          progress.ledgerDone(b.ledger.sequence);
        }
        if (bad !== undefined) throw bad;
      }
    } finally {
      stop.abort();
      ahead.end();
      await producer;
    }
  }

  /** `fn`, tried up to `attempts` times 1 s apart (a source over the network may fail for a moment). */
  private async retrying<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const attempts = this.o.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (attempt >= attempts || this.abort.signal.aborted) throw e;
        this.o.logger.warn({ err: (e as Error).message, attempt }, `${what} failed; retrying`);
        await sleep(1000, this.abort.signal);
      }
    }
  }

  /** The stored tip + 1; on an empty store, the start of the retention window (never after C + 1). */
  private async firstLedger(tip: number | undefined, stateLedger: number): Promise<number> {
    const latest = this.store.latestLedger();
    if (latest) return latest.sequence + 1;
    if (tip === undefined) return stateLedger ? stateLedger + 1 : 0;
    const earliest = (await this.o.source.earliest()) ?? 2;
    let from = Math.max(earliest, tip - this.o.retentionWindow + 1);
    if (stateLedger) from = Math.min(from, stateLedger + 1);
    return from;
  }

}

/** The checkpoint a previous start bootstrapped the state from, when it recorded its hash. */
function recordedCheckpoint(store: Store, stateLedger: number): KnownLedger | undefined {
  const hash = store.metadata(STATE_LEDGER_HASH);
  return stateLedger && hash ? { sequence: stateLedger, hash: Buffer.from(hash, 'hex') } : undefined;
}

/** Logs backfill progress (ledgers done, rate, time left) every few seconds until the start tip. */
class BackfillProgress {
  private readonly from: number;
  private readonly tip: number | undefined;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly started = performance.now();
  private lastReport = performance.now();
  private done = false;

  constructor(from: number, tip: number | undefined, log: Logger, intervalMs: number) {
    this.from = from; this.tip = tip; this.log = log; this.intervalMs = intervalMs;
    this.done = tip === undefined || from > tip;
  }

  ledgerDone(seq: number): void {
    if (this.done) return;
    const now = performance.now();
    const count = seq - this.from + 1;
    const rate = count / Math.max((now - this.started) / 1000, 1e-3);
    if (seq >= this.tip!) {
      this.done = true;
      this.log.info({ ledgers: count, seconds: Math.round((now - this.started) / 100) / 10, ledgersPerSecond: Math.round(rate * 10) / 10 }, 'backfill done; following the tip');
    } else if (now - this.lastReport >= this.intervalMs) {
      this.lastReport = now;
      const left = this.tip! - seq;
      this.log.info({ done: count, total: this.tip! - this.from + 1, ledgersPerSecond: Math.round(rate * 10) / 10, secondsLeft: Math.round(left / rate) }, 'backfilling');
    }
  }
}

/** A queue of at most `limit` items between a producer and one consumer; end() or fail() closes it. */
class BoundedQueue<T> {
  private readonly items: T[] = [];
  private readonly limit: number;
  private ended = false;
  private error: unknown;
  private wake: (() => void) | undefined;

  constructor(limit: number) { this.limit = limit; }

  private notify(): void { const w = this.wake; this.wake = undefined; w?.(); }
  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async push(item: T, signal: AbortSignal): Promise<void> {
    while (this.items.length >= this.limit && !this.ended && !signal.aborted) await this.wait(signal);
    if (this.ended || signal.aborted) return;
    this.items.push(item);
    this.notify();
  }

  peek(): T | undefined { return this.items[0]; }

  /** The next item; undefined once ended and drained; throws the producer's error after the items before it. */
  async shift(): Promise<T | undefined> {
    while (this.items.length === 0) {
      if (this.error !== undefined) throw this.error;
      if (this.ended) return undefined;
      await this.wait();
    }
    const item = this.items.shift();
    this.notify();
    return item;
  }

  end(): void { this.ended = true; this.notify(); }
  fail(e: unknown): void { this.error = e; this.ended = true; this.notify(); }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}
