// getEvents: contract and system events in id order, filtered, one page at a time (stellar-rpc
// methods/get_events.go). Request decoding and validation: shared/eventsRequest.ts.
//
// Window (ascending, the reference's): it starts at `startLedger`, or right after `cursor` (its event
// index + 1, wrapping); it ends (exclusive) at the earliest of start ledger + 10,000, the latest
// ledger + 1 and `endLedger` when given. The start ledger (the cursor's when paging) must lie in the
// stored range (-32600). The response cursor is the last event's id when the page is full, otherwise
// the end of the window: MaxCursor with ledger = end - 1 (event index 4294967295); clients keep paging
// from it, through empty pages too.
//
// Extras: `pagination.order: "desc"` walks the window newest first. Without a cursor the window is
// the last 10,000 ledgers of [startLedger, min(endLedger, latest + 1)); with one it is the events
// before the cursor, down 10,000 ledgers from the cursor's (not below the oldest stored ledger). A
// page that is not full ends with the window's start as cursor (`<toid(L, 0, 0)>-0000000000`), which
// a next descending call continues from. `txHash` keeps only that transaction's events (fee events
// included) and makes startLedger optional (default: the transaction's ledger).
//
// Bounded work: events are read a chunk at a time and rendered one by one, giving the event loop a
// turn between slices; a page that ends early on the answer budget ends at its last event, as a
// full page does, so the cursor continues right after it.
import { ErrorCode, RpcError } from '../errors.ts';
import type { EventQuery } from '../../store/types.ts';
import type { EventPosition } from '../../events/types.ts';
import { comparePositions as compare, formatEventId, maxPositionOf } from '../../events/eventIds.ts';
import { toHex } from '../../xdr/codec.ts';
import type { Method } from './types.ts';
import { afterCursor, getEventsParamsSchema, readEventsRequest } from './shared/eventsRequest.ts';
import { EventRenderer, eventInfoSchema, fillEventPage, LEDGER_SCAN_LIMIT, ledgerStart, positionOf } from './shared/eventPage.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import { Page } from './shared/page.ts';
import { arrayOf, ledgerSequence, object, unixTimeString } from './shared/schemas.ts';

export const getEvents: Method = {
  name: 'getEvents',
  paramsSchema: getEventsParamsSchema,
  doc: {
    summary: 'Contract and system events, filtered, a page at a time',
    description: 'Scans at most 10,000 ledgers per call from startLedger (or after the cursor). A page that is '
      + 'not full ends with the cursor of the end of the scanned window: keep paging from it.',
    result: {
      name: 'getEventsResult',
      schema: object({
        events: arrayOf(eventInfoSchema()),
        cursor: { type: 'string', pattern: '^\\d{19}-\\d{10}$' },
        latestLedger: ledgerSequence,
        oldestLedger: ledgerSequence,
        latestLedgerCloseTime: unixTimeString,
        oldestLedgerCloseTime: unixTimeString,
      }),
    },
  },
  chargesBudget: true,
  handler(params, ctx, call) {
    const req = readEventsRequest(params, ctx.config.maxEventsLimit);
    const range = requireLedgerRange(ctx.store);
    const oldest = range.oldest.sequence;
    const latest = range.latest.sequence;
    const limit = req.limit > 0 ? req.limit : ctx.config.defaultEventsLimit;
    const outOfRange = (ledger: number) => new RpcError(ErrorCode.invalidRequest,
      `startLedger must be within the ledger range: ${oldest} - ${latest}`);

    // The transaction of a txHash filter: its ledger bounds the window, its order selects events.
    let tx: { ledger: number; order: number } | undefined;
    if (req.txHash) {
      const found = ctx.store.transactionByHash(req.txHash);
      if (!found) throw new RpcError(ErrorCode.invalidRequest, `transaction ${toHex(req.txHash)} not found in ledgers ${oldest} - ${latest}`);
      tx = { ledger: found.ledgerSequence, order: found.applicationOrder };
    }
    const startLedger = req.startLedger !== 0 || req.cursor ? req.startLedger : tx!.ledger;

    let query: EventQuery;
    let windowEndCursor: string;
    if (!req.descending) {
      const start = req.cursor ? afterCursor(req.cursor) : ledgerStart(startLedger);
      let endLedger = Math.min(latest + 1, (start.ledger + LEDGER_SCAN_LIMIT) >>> 0);
      if (req.endLedger !== 0) endLedger = Math.min(req.endLedger, endLedger);
      if (start.ledger < oldest || start.ledger > latest) throw outOfRange(start.ledger);
      query = { start, end: ledgerStart(endLedger), descending: false, limit, filters: req.filters };
      windowEndCursor = formatEventId(maxPositionOf(endLedger - 1));
    } else {
      let end: EventPosition;
      let low: number;
      if (req.cursor) {
        if (req.cursor.ledger < oldest || req.cursor.ledger > latest) throw outOfRange(req.cursor.ledger);
        end = req.cursor;
        low = Math.max(oldest, req.cursor.ledger - (LEDGER_SCAN_LIMIT - 1));
      } else {
        if (startLedger < oldest || startLedger > latest) throw outOfRange(startLedger);
        const endLedger = req.endLedger !== 0 ? Math.min(req.endLedger, latest + 1) : latest + 1;
        end = ledgerStart(endLedger);
        low = Math.max(startLedger, endLedger - LEDGER_SCAN_LIMIT);
      }
      query = { start: ledgerStart(low), end, descending: true, limit, filters: req.filters };
      windowEndCursor = formatEventId(ledgerStart(low));
    }
    if (tx) {
      // Only the transaction's ledger can hold its events: narrow the window to it.
      const lo = ledgerStart(tx.ledger);
      const hi = ledgerStart(tx.ledger + 1);
      if (compare(query.start, lo) < 0) query.start = lo;
      if (compare(query.end, hi) > 0) query.end = hi;
      query.applicationOrder = tx.order;
    }

    return ctx.heavy.run(call, async () => {
      const page = new Page(call, limit);
      const last = await fillEventPage(ctx.store, page, query, new EventRenderer(req.format));
      const cursor = last !== undefined && page.full ? formatEventId(positionOf(last)) : windowEndCursor;
      return page.answer('{"events":', `,"cursor":${JSON.stringify(cursor)},"latestLedger":${latest},"oldestLedger":${oldest},`
        + `"latestLedgerCloseTime":"${range.latest.closeTime}","oldestLedgerCloseTime":"${range.oldest.closeTime}"}`);
    });
  },
};
