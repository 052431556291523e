// Following a real network: the single writer that takes ledgers from a source (datastore, meta
// stream, captive core) and stores them through the same ledgerToBatch the standalone network uses.
// Each ledger is committed on its own, so a crash loses at most the ledger being written, and a
// restart resumes at the stored tip + 1: nothing is lost or stored twice.
//
// On an empty database it first bootstraps the ledger state from a history-archive checkpoint C,
// then backfills the retention window (ledgers <= C are history only: their entry changes are
// already in the checkpoint's state), reporting progress, then follows the tip.
import type { Logger } from 'pino';
import type { Store } from '../store/types.ts';
import type { LedgerSource, RawLedger } from '../sources/ledgerSource.ts';
import { verifiedLedgerBatch } from './verifiedLedger.ts';

/** Bootstraps the store's ledger state from a checkpoint no newer than `notAfter`; returns its ledger. */
export type StateBootstrapper = (notAfter: number | undefined, signal: AbortSignal) => Promise<number>;

export interface LedgerIngesterOptions {
  store: Store;
  source: LedgerSource;
  networkId: Uint8Array;
  retentionWindow: number;
  logger: Logger;
  /** Absent: no history archive; the state is only what the ingested ledgers changed. */
  bootstrapState?: StateBootstrapper;
  onLedger?: (sequence: number) => void;
  observeIngestion?: (type: string, seconds: number) => void;
  /** Attempts at one ledger before ingestion gives up (1 s apart). */
  attempts?: number;
  progressIntervalMs?: number;
}

export class LedgerIngester {
  private readonly o: LedgerIngesterOptions;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  /** Set when ingestion gave up; the node keeps serving what it has. */
  failure: Error | undefined;

  constructor(opts: LedgerIngesterOptions) { this.o = opts; }

  start(): void {
    this.running = this.run().catch((e: unknown) => {
      if (this.abort.signal.aborted) return;
      this.failure = e as Error;
      this.o.logger.error({ err: e }, 'ingestion stopped');
    });
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('stopping'));
    await this.running;
  }

  private async run(): Promise<void> {
    const { store, logger } = this.o;
    const signal = this.abort.signal;
    const tip = await this.o.source.latest();
    let stateLedger = Number(store.metadata('stateLedger') ?? 0);
    if (!store.latestLedger() && this.o.bootstrapState && !stateLedger) {
      stateLedger = await this.o.bootstrapState(tip, signal);
      logger.info({ checkpoint: stateLedger }, 'ledger state bootstrapped from the history archive');
    } else if (!this.o.bootstrapState && !stateLedger && !store.latestLedger()) {
      logger.warn('no history archive: the ledger state holds only what ingested ledgers changed');
    }
    const from = await this.firstLedger(tip, stateLedger);
    logger.info({ from, tip, source: this.o.source.description }, 'ingesting');
    const progress = new BackfillProgress(from, tip, logger, this.o.progressIntervalMs ?? 5000);

    let next = from;
    let failures = 0;
    const attempts = this.o.attempts ?? 5;
    while (!signal.aborted) {
      try {
        for await (const raw of this.o.source.ledgers(next, { signal })) {
          this.ingest(raw, stateLedger);
          next = raw.sequence + 1;
          failures = 0;
          progress.ledgerDone(raw.sequence);
        }
        return; // a bounded source (a stream file) ended
      } catch (e) {
        if (signal.aborted) return;
        failures++;
        if (failures >= attempts) throw e;
        logger.warn({ err: e, ledger: next, attempt: failures }, 'ingestion failed; retrying');
        await sleep(1000, signal);
      }
    }
  }

  /** The stored tip + 1; on an empty store, the start of the retention window (never after C + 1). */
  private async firstLedger(tip: number | undefined, stateLedger: number): Promise<number> {
    const latest = this.o.store.latestLedger();
    if (latest) return latest.sequence + 1;
    if (tip === undefined) return stateLedger ? stateLedger + 1 : 0;
    const earliest = (await this.o.source.earliest()) ?? 2;
    let from = Math.max(earliest, tip - this.o.retentionWindow + 1);
    if (stateLedger) from = Math.min(from, stateLedger + 1);
    return from;
  }

  /** Verifies and stores one ledger in one transaction. */
  private ingest(raw: RawLedger, stateLedger: number): void {
    const started = performance.now();
    const { store } = this.o;
    const previous = store.latestLedger();
    if (previous && raw.sequence !== previous.sequence + 1) {
      throw new Error(`${this.o.source.description} gave ledger ${raw.sequence} after the stored ledger ${previous.sequence}`);
    }
    const batch = verifiedLedgerBatch(raw, this.o.networkId, previous?.hash);
    // Ledgers up to the checkpoint are history only: the checkpoint's state already holds their changes.
    if (raw.sequence <= stateLedger) batch.entryWrites = [];
    store.ingest(batch, this.o.retentionWindow);
    this.o.observeIngestion?.('total', (performance.now() - started) / 1000);
    this.o.onLedger?.(raw.sequence);
  }
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}
