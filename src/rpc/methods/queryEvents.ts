// queryEvents: contract and system events of a ledger range, ascending or descending, a page at a
// time, with cursors that hold the whole query and so never expire (developers.stellar.org
// "queryEvents", the archive node's beta method; draft types in go-stellar-sdk get_events_v2.go).
// Served over what this node stores, its retention window, from the same event index as getEvents.
//
// The request: shared/queryEventsRequest.ts; the cursor: shared/queryEventsCursor.ts; where a page
// scans and how it ends (scanStatus, scannedLedger): shared/queryEventsScan.ts. Events are read and
// rendered as getEvents' are (shared/eventPage.ts).
import type { Method } from './types.ts';
import { EventRenderer, eventInfoSchema, fillEventPage, positionOf } from './shared/eventPage.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import { Page } from './shared/page.ts';
import {
  cursorMalformed, filterSpec, invalidQuery, ledgerOutOfRange, MAX_FILTERS, MAX_LIMIT, queryEventsParamsSchema, readQueryEventsRequest,
} from './shared/queryEventsRequest.ts';
import { decodeCursor, encodeCursor, type CursorState } from './shared/queryEventsCursor.ts';
import { planScan, SCAN_STATUSES, startQuery, type ScanEnd } from './shared/queryEventsScan.ts';
import { arrayOf, ledgerSequence, object, optional } from './shared/schemas.ts';

export const queryEvents: Method = {
  name: 'queryEvents',
  paramsSchema: queryEventsParamsSchema,
  doc: {
    summary: 'Events of a ledger range, ascending or descending, with cursors that do not expire',
    description: 'The reference archive node\'s beta method, over the ledgers this node stores. A page scans at most '
      + '10,000 ledgers and may be empty: scanStatus says whether to send the cursor now (HAS_MORE), later '
      + '(WAITING_FOR_LEDGERS), or not (OLDEST_REACHED, COMPLETE). Errors are -32602 with error.data.reason '
      + '(invalid_params, ledger_out_of_range, cursor_malformed).',
    params: {
      order: { schema: { enum: ['asc', 'desc'] } },
      filters: { schema: { minItems: 1, maxItems: MAX_FILTERS } },
      limit: { schema: { minimum: 1, maximum: MAX_LIMIT } },
    },
    result: {
      name: 'queryEventsResult',
      schema: object({
        events: arrayOf(eventInfoSchema()),
        cursor: optional({ type: 'string', pattern: '^qe1_[A-Za-z0-9_-]+$', description: 'absent once the scan is COMPLETE' }),
        scanStatus: { type: 'string', enum: [...SCAN_STATUSES] },
        scannedLedger: { type: 'integer', minimum: 0, description: 'the last ledger fully scanned, in the scan\'s direction' },
        oldestLedger: ledgerSequence,
        latestLedger: ledgerSequence,
      }),
    },
  },
  chargesBudget: true,
  invalidParams: (detail) => invalidQuery(`invalid parameters: ${detail}`),
  handler(params, ctx, call) {
    const req = readQueryEventsRequest(params);
    const range = requireLedgerRange(ctx.store);
    const stored = { oldest: range.oldest.sequence, latest: range.latest.sequence };
    let state: CursorState;
    if ('cursor' in req) {
      const decoded = decodeCursor(req.cursor);
      if (typeof decoded === 'string') throw cursorMalformed(decoded, stored.oldest, stored.latest);
      state = decoded;
    } else {
      const started = startQuery(req.query, stored);
      if ('missingLedger' in started) throw ledgerOutOfRange(started.missingLedger, stored.oldest, stored.latest);
      state = started;
    }
    const plan = planScan(state.query, state.position, stored);
    if ('missingLedger' in plan) throw ledgerOutOfRange(plan.missingLedger, stored.oldest, stored.latest);

    const suffix = (end: ScanEnd): string => {
      const cursor = end.next === undefined ? '' : `,"cursor":${JSON.stringify(encodeCursor({ query: state.query, position: end.next }))}`;
      return `${cursor},"scanStatus":"${end.status}","scannedLedger":${end.scannedLedger},"oldestLedger":${stored.oldest},"latestLedger":${stored.latest}}`;
    };
    if ('stop' in plan) return new Page(call, req.limit).answer('{"events":', suffix(plan.stop));

    return ctx.heavy.run(call, async () => {
      const page = new Page(call, req.limit);
      const query = {
        start: plan.start, end: plan.end, descending: state.query.descending, limit: req.limit,
        filters: state.query.filters.map(filterSpec),
      };
      const last = await fillEventPage(ctx.store, page, query, new EventRenderer(req.format));
      return page.answer('{"events":', suffix(plan.finish(last && positionOf(last), page.full)));
    });
  },
};
