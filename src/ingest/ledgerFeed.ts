// The one place that announces stored ledgers. Both ledger paths (the standalone network's closes
// and a followed network's ingestion) commit through LedgerWriter, which tells the feed only after
// the store's transaction committed, so a listener never hears of a ledger that getLedgers,
// getTransaction or getEvents could not read yet. Listeners: metrics, publishing, the standalone
// network's ledger waiters, and the streaming subscriptions.
import type { Logger } from 'pino';
import type { IngestBatch } from '../store/types.ts';

/** A committed ledger as ingestion wrote it (the rows stay in memory only for the listeners' call). */
export type CommittedLedger = IngestBatch;

export type LedgerListener = (ledgers: readonly CommittedLedger[]) => void;

/** Told that the store went back to the end of `ledger` (a developer revert): later ledgers are gone. */
export type RevertListener = (ledger: number) => void;

export class LedgerFeed {
  private readonly listeners = new Set<LedgerListener>();
  private readonly revertListeners = new Set<RevertListener>();
  private readonly logger: Logger | undefined;
  /** The newest ledger announced (0 before any). */
  latest = 0;

  constructor(logger?: Logger) { this.logger = logger; }

  /** Calls `listener` with every group of ledgers committed from now on; returns the way to stop. */
  listen(listener: LedgerListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /**
   * Called by the writer after a commit, with the ledgers in order. Listeners run synchronously and
   * must only hand work off: a listener's failure is logged and never reaches the ledger path.
   */
  committed(ledgers: readonly CommittedLedger[]): void {
    if (ledgers.length === 0) return;
    this.latest = ledgers[ledgers.length - 1].ledger.sequence;
    for (const listener of this.listeners) {
      try {
        listener(ledgers);
      } catch (err) {
        this.logger?.error({ err, ledger: this.latest }, 'a ledger listener failed');
      }
    }
  }

  /** Calls `listener` after every revert of the store (see reverted); returns the way to stop. */
  listenReverts(listener: RevertListener): () => void {
    this.revertListeners.add(listener);
    return () => { this.revertListeners.delete(listener); };
  }

  /**
   * Called by the writer after the store went back to the end of `ledger` (committed): whatever
   * assumed ledgers only grow (the newest ledger announced, positions past it) goes back with it.
   * The next ledger committed is `ledger + 1` again.
   */
  reverted(ledger: number): void {
    this.latest = ledger;
    for (const listener of this.revertListeners) {
      try {
        listener(ledger);
      } catch (err) {
        this.logger?.error({ err, ledger }, 'a revert listener failed');
      }
    }
  }
}
