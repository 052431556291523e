// The one commit point for ledgers, whichever path they come from: derives the state-size window
// entry, writes the ledgers in one store transaction, then announces them on the feed.
import type { IngestBatch, RevertedEntry, Store } from '../store/types.ts';
import { StateSizeWindow } from './stateSizeWindow.ts';
import type { LedgerFeed } from './ledgerFeed.ts';

export interface WriteOptions {
  /**
   * Ledgers up to this one are history only (a followed network's ledgers at or before the
   * bootstrap checkpoint, whose changes the checkpoint's state already holds): their entry writes
   * are dropped and the state-size window is not derived from them.
   */
  historyOnlyThrough?: number;
  /** false: the batches carry the window entry already (the standalone network's genesis). */
  deriveStateSizeWindow?: boolean;
}

export class LedgerWriter {
  readonly store: Store;
  readonly feed: LedgerFeed;
  private readonly retentionWindow: number;

  constructor(store: Store, feed: LedgerFeed, retentionWindow: number) {
    this.store = store;
    this.feed = feed;
    this.retentionWindow = retentionWindow;
  }

  /** Consecutive ledgers, following the stored tip, all or nothing. */
  write(batches: readonly IngestBatch[], options: WriteOptions = {}): void {
    if (batches.length === 0) return;
    // one window object for the group: the store does not hold the group's earlier ledgers yet
    const window = new StateSizeWindow((key) => this.store.entry(key)?.entry);
    const historyOnlyThrough = options.historyOnlyThrough ?? 0;
    for (const batch of batches) {
      if (batch.ledger.sequence <= historyOnlyThrough) batch.entryWrites = [];
      else if (options.deriveStateSizeWindow !== false) window.apply(batch);
    }
    if (batches.length === 1) this.store.ingest(batches[0], this.retentionWindow);
    else this.store.ingestMany(batches, this.retentionWindow);
    this.feed.committed(batches);
  }

  /**
   * Takes the store back to the end of `ledger` (one store transaction; refused, changing nothing,
   * when the store cannot) and then tells the feed, so the revert is one commit point too. Returns
   * the entries put back (see Store.revertTo).
   */
  revertTo(ledger: number): RevertedEntry[] {
    const entries = this.store.revertTo(ledger);
    this.feed.reverted(ledger);
    return entries;
  }
}
