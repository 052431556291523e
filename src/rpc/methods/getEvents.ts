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
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { ErrorCode, RpcError } from '../errors.ts';
import type { EventPosition, EventQuery, StoredEvent } from '../../store/types.ts';
import {
  CONTRACT_EVENT_TYPE_NAMES, comparePositions as compare, formatEventId, maxPositionOf, parseContractEvent,
} from '../../ingest/events.ts';
import { toBase64, toHex } from '../../xdr/codec.ts';
import type { Method } from './types.ts';
import { afterCursor, getEventsParamsSchema, readEventsRequest } from './shared/eventsRequest.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import { Page } from './shared/page.ts';
import { xdrJson, type XdrFormat } from './shared/xdrFormat.ts';
import {
  arrayOf, contractIdOrEmpty, hexHash, ledgerSequence, object, optional, uint32, unixTimeString, xdrList, xdrValue,
} from './shared/schemas.ts';
import type { JsonSchema } from './types.ts';

/** The most ledgers one request scans (the reference's LedgerScanLimit). */
export const LEDGER_SCAN_LIMIT = 10_000;

/** Events read from storage at a time. */
const READ_CHUNK = 100;

const ledgerStart = (ledger: number): EventPosition => ({ ledger, tx: 0, op: 0, event: 0 });
const positionOf = (e: StoredEvent): EventPosition => ({ ledger: e.ledger, tx: e.tx, op: e.op, event: e.index });

/** Go's time.Unix(t, 0).UTC().Format(time.RFC3339). */
export function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The schema of one EventInfo (rpc.discover). */
export const eventInfoSchema: JsonSchema = object({
  type: { type: 'string', enum: ['contract', 'system'] },
  ledger: ledgerSequence,
  ledgerClosedAt: { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$', description: 'RFC 3339, UTC' },
  contractId: contractIdOrEmpty,
  id: { type: 'string', pattern: '^\\d{19}-\\d{10}$' },
  pagingToken: optional({ type: 'string', pattern: '^\\d{19}-\\d{10}$', description: 'lumen-rpc extension: the event id again, for older clients' }),
  operationIndex: uint32,
  transactionIndex: uint32,
  txHash: hexHash,
  inSuccessfulContractCall: { type: 'boolean', deprecated: true },
  topic: xdrList('ScVal', 'topicJson'),
  value: xdrValue('ScVal', 'valueJson'),
});

/** One EventInfo, fields in the reference's order. */
function eventInfo(e: StoredEvent, format: XdrFormat, contractIds: Map<string, string>): Record<string, unknown> {
  const parsed = parseContractEvent(e.event);
  const type = CONTRACT_EVENT_TYPE_NAMES[parsed.type];
  if (type === undefined) {
    throw new RpcError(ErrorCode.systemError, `could not parse event: unknown XDR ContractEventType type: ${parsed.type}`);
  }
  let contractId = '';
  if (parsed.contractId) {
    const key = toHex(parsed.contractId);
    contractId = contractIds.get(key) ?? StrKey.encodeContract(Buffer.from(parsed.contractId));
    contractIds.set(key, contractId);
  }
  const info: Record<string, unknown> = {
    type,
    ledger: e.ledger,
    ledgerClosedAt: rfc3339(e.closeTime),
    contractId,
    id: formatEventId(positionOf(e)),
    operationIndex: e.op,
    transactionIndex: e.tx,
    txHash: toHex(e.txHash),
    inSuccessfulContractCall: e.successful,
  };
  // `topic` is always present (the reference omits an empty list; Python's client requires it).
  if (format === 'json') {
    info.topicJson = parsed.topics.map((t) => xdrJson(xdr.ScVal, t));
    info.valueJson = xdrJson(xdr.ScVal, parsed.value);
  } else {
    info.topic = parsed.topics.map(toBase64);
    info.value = toBase64(parsed.value);
  }
  return info;
}

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
        events: arrayOf(eventInfoSchema),
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

    return ctx.heavy.run(call.signal, async () => {
      const page = new Page(call, limit);
      const contractIds = new Map<string, string>();
      const chunk: EventQuery = { ...query };
      const read = (n: number): StoredEvent[] => {
        if (compare(chunk.start, chunk.end) >= 0) return [];
        const found = ctx.store.events({ ...chunk, limit: n });
        if (found.length > 0) {
          // the next chunk continues right after the last event read, in the query's order
          const at = positionOf(found[found.length - 1]);
          if (query.descending) chunk.end = at;
          else chunk.start = { ...at, event: at.event + 1 };
        }
        return found;
      };
      const last = await page.fill(READ_CHUNK, read, (e) => JSON.stringify(eventInfo(e, req.format, contractIds)));
      const cursor = last !== undefined && page.full ? formatEventId(positionOf(last)) : windowEndCursor;
      return page.answer('{"events":', `,"cursor":${JSON.stringify(cursor)},"latestLedger":${latest},"oldestLedger":${oldest},`
        + `"latestLedgerCloseTime":"${range.latest.closeTime}","oldestLedgerCloseTime":"${range.oldest.closeTime}"}`);
    });
  },
};
