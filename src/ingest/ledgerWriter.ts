// The one commit point for ledgers, whichever path they come from: derives the state-size window
// entry, writes the ledgers in one store transaction, then announces them on the feed.
import type { IngestBatch, RevertedEntry, Store } from '../store/types.ts';
import { StateSizeWindow, type WindowLedger } from './stateSizeWindow.ts';
import { toBase64 } from '../xdr/codec.ts';
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
  readonly retentionWindow: number;

  constructor(store: Store, feed: LedgerFeed, retentionWindow: number) {
    this.store = store;
    this.feed = feed;
    this.retentionWindow = retentionWindow;
  }

  /** Consecutive ledgers, following the stored tip, all or nothing. */
  write(batches: readonly IngestBatch[], options: WriteOptions = {}): void {
    if (batches.length === 0) return;
    this.prepare(batches, options);
    if (batches.length === 1) this.store.ingest(batches[0], this.retentionWindow);
    else this.store.ingestMany(batches, this.retentionWindow);
    this.feed.committed(batches);
  }

  /**
   * write(), with requests answered while the store writes (Store.ingestManyInSlices): for a
   * followed network, whose ledgers may hold thousands of transactions. The caller awaits it before
   * writing again.
   */
  async writeInSlices(batches: readonly IngestBatch[], options: WriteOptions = {}): Promise<void> {
    if (batches.length === 0) return;
    this.prepare(batches, options);
    await this.store.ingestManyInSlices(batches, this.retentionWindow);
    this.feed.committed(batches);
  }

  /** Drops the writes of history-only ledgers and derives the state-size window entries. */
  private prepare(batches: readonly IngestBatch[], options: WriteOptions): void {
    // one window object for the group: the store does not hold the group's earlier ledgers yet
    const window = new StateSizeWindow((key) => this.store.entry(key)?.entry);
    const historyOnlyThrough = options.historyOnlyThrough ?? 0;
    for (const batch of batches) {
      if (batch.ledger.sequence <= historyOnlyThrough) batch.entryWrites = [];
      else if (options.deriveStateSizeWindow !== false) window.apply(batch);
    }
  }

  /**
   * The entry writes that storing `ledger` next (write([ledger]) after the stored tip) would make:
   * its own and the state-size window entry derived from it. Changes nothing: the standalone
   * network reads the state a ledger leaves before storing it (src/standalone/checkpointCommitment.ts).
   */
  entryWritesOf(ledger: WindowLedger): IngestBatch['entryWrites'] {
    const copy = { ...ledger, entryWrites: [...ledger.entryWrites] };
    new StateSizeWindow((key) => this.store.entry(key)?.entry).apply(copy);
    return copy.entryWrites;
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

  /**
   * Ledgers after a gap (a fast-forward, src/standalone/fastForward.ts): the ledgers between the
   * stored tip and batches[0] closed but are not kept, as the retention window would trim them at
   * once. `gap` lists those of them that wrote entries (evictions) or sampled the state-size window,
   * in order; the window is derived over them and the batches as write() does, their writes apply
   * and the batches are stored, in one store transaction (Store.ingestAfterGap: every ledger stored
   * before the gap goes). The feed announces the batches.
   */
  writeAfterGap(gap: readonly GapLedger[], batches: readonly IngestBatch[]): void {
    if (batches.length === 0) throw new Error('a gap must be followed by a stored ledger');
    const window = new StateSizeWindow((key) => this.store.entry(key)?.entry);
    const writes = new Map<string, IngestBatch['entryWrites'][number]>();
    for (const ledger of gap) {
      window.apply(ledger);
      for (const w of ledger.entryWrites) writes.set(toBase64(w.key), w);
    }
    for (const batch of batches) window.apply(batch);
    this.store.ingestAfterGap([...writes.values()], batches, this.retentionWindow);
    this.feed.committed(batches);
  }
}

/** A closed ledger that is not stored: only its entry writes and its state-size average. */
export type GapLedger = WindowLedger;
