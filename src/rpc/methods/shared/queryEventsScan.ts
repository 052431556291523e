// Where one queryEvents page scans and how it ends, over what the node stores (its retention
// window, oldest to latest ledger). A page reads at most LEDGER_SCAN_LIMIT ledgers and `limit`
// events, in the query's order, starting at the cursor's position.
//
// Ascending, from minLedger up to maxLedger (or without end): a position below the oldest stored
// ledger is ledger_out_of_range; one above the latest ledger waits (WAITING_FOR_LEDGERS, the same
// cursor). A page that read all of its window ends COMPLETE at maxLedger, WAITING_FOR_LEDGERS at the
// latest ledger (more may come), else HAS_MORE.
// Descending, from maxLedger (fixed to the latest ledger when the query starts without one) down to
// minLedger: a top edge above the latest ledger waits for it to close; below the oldest stored
// ledger nothing is left to read (OLDEST_REACHED, the same cursor, as long as minLedger is older
// than what is stored). A page that read all of its window ends COMPLETE at minLedger,
// OLDEST_REACHED at the oldest stored ledger, else HAS_MORE.
// A full page is HAS_MORE, its cursor right after its last event; `scannedLedger` is then the last
// ledger before that event's (the page may end inside a ledger).
import type { EventPosition } from '../../../events/types.ts';
import { maxPositionOf } from '../../../events/eventIds.ts';
import { LEDGER_SCAN_LIMIT, ledgerStart } from './eventPage.ts';
import { FIRST_LEDGER, type EventsQuery, type NewQuery } from './queryEventsRequest.ts';
import type { CursorState } from './queryEventsCursor.ts';

export const SCAN_STATUSES = ['HAS_MORE', 'WAITING_FOR_LEDGERS', 'OLDEST_REACHED', 'COMPLETE'] as const;
export type ScanStatus = typeof SCAN_STATUSES[number];

/** How a page ends: where the next one starts (undefined when COMPLETE). */
export interface ScanEnd { status: ScanStatus; scannedLedger: number; next: EventPosition | undefined }

export interface StoredLedgers { oldest: number; latest: number }

export type ScanPlan =
  /** Nothing to read now: the page ends at once. */
  | { stop: ScanEnd }
  /** ledger_out_of_range */
  | { missingLedger: number }
  /** Read [start, end) in the query's order, then end the page with finish(). */
  | { start: EventPosition; end: EventPosition; finish(last: EventPosition | undefined, full: boolean): ScanEnd };

/** A new query's state before its first page: its bounds settled against what is stored. */
export function startQuery(q: NewQuery, stored: StoredLedgers): CursorState | { missingLedger: number } {
  if (!q.descending) {
    const minLedger = q.minLedger!;
    return { query: { ...q, minLedger }, position: ledgerStart(minLedger) };
  }
  const minLedger = q.minLedger ?? FIRST_LEDGER;
  if (q.maxLedger === undefined && minLedger > stored.latest) return { missingLedger: minLedger };
  const maxLedger = q.maxLedger ?? stored.latest;
  // the end of maxLedger (exclusive), which unlike the start of the next ledger fits in 32 bits
  return { query: { ...q, minLedger, maxLedger }, position: maxPositionOf(maxLedger) };
}

const isLedgerStart = (p: EventPosition): boolean => p.tx === 0 && p.op === 0 && p.event === 0;

export function planScan(query: EventsQuery, position: EventPosition, stored: StoredLedgers): ScanPlan {
  return query.descending ? planDescending(query, position, stored) : planAscending(query, position, stored);
}

function planAscending(q: EventsQuery, from: EventPosition, { oldest, latest }: StoredLedgers): ScanPlan {
  const max = q.maxLedger;
  if (max !== undefined && from.ledger > max) return { stop: { status: 'COMPLETE', scannedLedger: max, next: undefined } };
  if (from.ledger < oldest) return { missingLedger: from.ledger };
  if (from.ledger > latest) return { stop: { status: 'WAITING_FOR_LEDGERS', scannedLedger: from.ledger - 1, next: from } };
  const top = Math.min(latest, from.ledger + LEDGER_SCAN_LIMIT - 1, max ?? Infinity);
  return {
    start: from,
    end: ledgerStart(top + 1),
    finish(last, full) {
      if (full && last) return { status: 'HAS_MORE', scannedLedger: last.ledger - 1, next: { ...last, event: last.event + 1 } };
      if (top === max) return { status: 'COMPLETE', scannedLedger: top, next: undefined };
      return { status: top === latest ? 'WAITING_FOR_LEDGERS' : 'HAS_MORE', scannedLedger: top, next: ledgerStart(top + 1) };
    },
  };
}

function planDescending(q: EventsQuery, before: EventPosition, { oldest, latest }: StoredLedgers): ScanPlan {
  const min = q.minLedger;
  // the newest ledger left to scan: an exclusive end at a ledger's start leaves none of that ledger
  const top = isLedgerStart(before) ? before.ledger - 1 : before.ledger;
  const idle = (status: ScanStatus): ScanPlan => ({ stop: { status, scannedLedger: top + 1, next: before } });
  if (top < min) return { stop: { status: 'COMPLETE', scannedLedger: min, next: undefined } };
  if (top > latest) return idle('WAITING_FOR_LEDGERS');
  if (top < oldest) return idle('OLDEST_REACHED');
  const bottom = Math.max(min, oldest, top - LEDGER_SCAN_LIMIT + 1);
  return {
    start: ledgerStart(bottom),
    end: before,
    finish(last, full) {
      if (full && last) return { status: 'HAS_MORE', scannedLedger: last.ledger + 1, next: last };
      if (bottom === min) return { status: 'COMPLETE', scannedLedger: bottom, next: undefined };
      return { status: bottom === oldest ? 'OLDEST_REACHED' : 'HAS_MORE', scannedLedger: bottom, next: ledgerStart(bottom) };
    },
  };
}
