// Where getLedgers reads a page from: the store's retention window and, with
// --serve-ledgers-from-datastore, the ledger archive (a SEP-54 datastore) before it. A page may start
// in the archive and run on into the store; the boundary is the store's oldest ledger as it is at
// each read, since the window moves on while a page is being built.
import { internalError } from '../../errors.ts';
import type { LedgerArchive, LedgerRange, LedgerRow, StoreReader } from '../../../store/types.ts';
import type { SequenceBounds } from './pagination.ts';

/**
 * Ledgers asked of the archive at once: its files come over the network one request each, so a
 * page fetches several together (a page's last read asks no more than the page still needs).
 */
export const ARCHIVE_CHUNK = 8;

export interface LedgerRead {
  source: 'store' | 'archive';
  count: number;
}

/**
 * The next read of a page at `next` that still needs `wanted` ledgers: from the archive up to the
 * store's oldest ledger (at most `archiveChunk` at once), from the store from there on.
 */
export function planLedgerRead(next: number, wanted: number, storeOldest: number, archiveChunk = ARCHIVE_CHUNK): LedgerRead {
  if (next >= storeOldest) return { source: 'store', count: wanted };
  return { source: 'archive', count: Math.min(wanted, archiveChunk, storeOldest - next) };
}

/** The range a request may start in: the store's, reaching back to the archive's first ledger. */
export function availableLedgers(range: LedgerRange, archiveFirst: number | undefined): SequenceBounds {
  const oldest = Math.min(archiveFirst ?? range.oldest.sequence, range.oldest.sequence);
  return { oldest: { sequence: oldest }, latest: range.latest };
}

/** The ledgers of one page, in order from `from`, read from the archive or the store. */
export class LedgerHistoryReader {
  private readonly store: StoreReader;
  private readonly archive: LedgerArchive | undefined;
  private readonly signal: AbortSignal;
  private next: number;
  /** Ledgers of the page not yet read (archive reads fetch ahead, never past the page). */
  private remaining: number;
  /** Archive ledgers fetched ahead of the reads. */
  private ahead: LedgerRow[] = [];

  constructor(store: StoreReader, archive: LedgerArchive | undefined, from: number, pageLimit: number, signal: AbortSignal) {
    this.store = store;
    this.archive = archive;
    this.next = from;
    this.remaining = pageLimit;
    this.signal = signal;
  }

  /** The next `n` ledgers; fewer only when the store has no more. */
  async read(n: number): Promise<LedgerRow[]> {
    const rows: LedgerRow[] = [];
    while (rows.length < n) {
      if (this.ahead.length === 0) {
        const oldest = this.store.ledgerRange()?.oldest.sequence ?? this.next;
        const wanted = Math.max(this.remaining, n - rows.length);
        const plan: LedgerRead = this.archive ? planLedgerRead(this.next, wanted, oldest) : { source: 'store', count: wanted };
        if (plan.source === 'store') {
          // the store is read synchronously, so nothing moves the window between plan and read
          rows.push(...this.take(this.store.ledgers(this.next, n - rows.length)));
          break;
        }
        this.ahead = await this.fromArchive(plan.count);
      }
      rows.push(...this.take(this.ahead.splice(0, n - rows.length)));
    }
    return rows;
  }

  private take(rows: LedgerRow[]): LedgerRow[] {
    if (rows.length > 0) this.next = rows[rows.length - 1].sequence + 1;
    this.remaining -= rows.length;
    return rows;
  }

  /** Archive ledgers from `next`; its failures become the reference's -32603, a fired signal its reason. */
  private async fromArchive(count: number): Promise<LedgerRow[]> {
    try {
      return await this.archive!.ledgers(this.next, count, this.signal);
    } catch (e) {
      if (this.signal.aborted) throw this.signal.reason;
      throw internalError(`error fetching ledgers from datastore: ${(e as Error).message}`);
    }
  }
}
