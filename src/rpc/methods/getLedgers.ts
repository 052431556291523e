// getLedgers: a page of ledgers from startLedger, or from the ledger after `cursor` (a decimal
// sequence). Per ledger `ledgerCloseTime` is a string and `headerXdr` a LedgerHeaderHistoryEntry; the
// top-level close times are numbers. Validation errors are -32600, cursor errors -32602.
//
// With a ledger archive (--serve-ledgers-from-datastore) a request may also start before the store's
// window, down to the archive's first ledger: those ledgers come from the datastore, and a page runs
// on from it into the store (shared/ledgerHistory.ts). As in the reference, oldestLedger and its close
// time in the answer still describe the store; a datastore that cannot be read is -32603
// `error fetching ledgers from datastore: ...`.
//
// Bounded work: ledgers are read a few at a time and rendered one by one (JSON off the event loop),
// giving the event loop a turn between them; the page ends early when the next ledger would not fit
// the answer budget, and its cursor (the last ledger sent) continues right there.
import { invalidParams } from '../errors.ts';
import type { JsonPart } from '../rawJson.ts';
import { toBase64, toHex } from '../../xdr/codec.ts';
import type { LedgerRange, LedgerRow } from '../../store/types.ts';
import type { Method, MethodCall, MethodContext } from './types.ts';
import { GoNumError, parseGoUint } from './shared/go.ts';
import { LedgerHistoryReader, availableLedgers } from './shared/ledgerHistory.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import { Page } from './shared/page.ts';
import {
  pageLimit, paginatedParamsSchema, readPaginatedRequest, validatePaginatedRequest,
  type PaginatedRequest, type SequenceBounds,
} from './shared/pagination.ts';
import { formatOf, type XdrFormat } from './shared/xdrFormat.ts';
import {
  arrayOf, hexHash, ledgerSequence, object, unixTime, unixTimeString, xdrValue,
} from './shared/schemas.ts';

/** One LedgerInfo. Under xdrFormat "json" the XDR members stay, empty, beside the JSON ones. */
const ledgerInfoSchema = object({
  hash: hexHash,
  sequence: ledgerSequence,
  ledgerCloseTime: unixTimeString,
  headerXdr: xdrValue('LedgerHeaderHistoryEntry', { name: 'headerJson', keepAs: { type: 'string', maxLength: 0 } }),
  metadataXdr: xdrValue('LedgerCloseMeta', { name: 'metadataJson', keepAs: { type: 'string', maxLength: 0 } }),
});

/** Ledgers read from storage at a time (a pubnet ledger's meta is over a megabyte). */
const READ_CHUNK = 4;

/** The first ledger after a cursor (uint32 arithmetic, as the reference's), or -32602 with Go's parse error. */
function cursorStart(cursor: string): number {
  try {
    return Number((parseGoUint(cursor, 32) + 1n) & 0xffffffffn);
  } catch (e) {
    if (e instanceof GoNumError) throw invalidParams(e.message);
    throw e;
  }
}

/** The first ledger after a cursor, or -32602 with the reference's message. */
function ledgerAfterCursor(cursor: string, range: SequenceBounds): number {
  const start = cursorStart(cursor);
  if (start < range.oldest.sequence || start > range.latest.sequence) {
    throw invalidParams(`cursor ('${cursor}') must be between the oldest ledger: ${range.oldest.sequence} `
      + `and the latest ledger: ${range.latest.sequence} for this rpc instance`);
  }
  return start;
}

/**
 * Whether the request starts outside the store's range, where the archive's first ledger decides
 * whether it is served or what the error says. A cursor that does not parse fails on its own.
 */
function startsOutside(req: PaginatedRequest, range: LedgerRange): boolean {
  let start = req.startLedger;
  if (req.cursor !== '') {
    try { start = cursorStart(req.cursor); } catch { return false; }
  }
  return start < range.oldest.sequence || start > range.latest.sequence;
}

/** One LedgerInfo as JSON pieces, fields in the reference's order (streaming's ledger items too). */
export async function ledgerInfo(row: LedgerRow, format: XdrFormat, ctx: Pick<MethodContext, 'heavy'>): Promise<JsonPart[]> {
  const base = `{"hash":"${toHex(row.hash)}","sequence":${row.sequence},"ledgerCloseTime":"${row.closeTime}"`;
  if (format === 'json') {
    const [header, meta] = await ctx.heavy.renderJson([['LedgerHeaderHistoryEntry', row.header], ['LedgerCloseMeta', row.meta]]);
    // The reference has no omitempty on the XDR fields: they stay, empty.
    return [`${base},"headerXdr":"","headerJson":`, header, ',"metadataXdr":"","metadataJson":', meta, '}'];
  }
  return [`${base},"headerXdr":"${toBase64(row.header)}","metadataXdr":"${toBase64(row.meta)}"}`];
}

export const getLedgers: Method = {
  name: 'getLedgers',
  paramsSchema: paginatedParamsSchema,
  doc: {
    summary: 'A page of ledgers: headers and close metas',
    description: 'From startLedger, or from the ledger after pagination.cursor, up to pagination.limit ledgers '
      + '(default 50, at most 200); a page may end early to fit --max-response-body-bytes. With '
      + '--serve-ledgers-from-datastore a page may start before the retention window, down to the datastore\'s '
      + 'first ledger, and run on into the stored ledgers; oldestLedger still describes the stored window.',
    result: {
      name: 'getLedgersResult',
      schema: object({
        ledgers: arrayOf(ledgerInfoSchema),
        latestLedger: ledgerSequence,
        latestLedgerCloseTime: unixTime,
        oldestLedger: ledgerSequence,
        oldestLedgerCloseTime: unixTime,
        cursor: { type: 'string', description: 'the sequence of the page\'s last ledger' },
      }),
    },
  },
  chargesBudget: true,
  handler(params, ctx, call) {
    const range = requireLedgerRange(ctx.store);
    const req = readPaginatedRequest(params);
    const archive = ctx.ledgerArchive;
    // the archive is asked only when the store cannot answer alone: its first ledger may take a lookup
    if (!archive || !startsOutside(req, range)) return ledgersPage(req, range, range, ctx, call);
    return archive.firstLedger(range.oldest.sequence, call.signal).then((first) => {
      if (call.signal.aborted) throw call.signal.reason;
      return ledgersPage(req, range, availableLedgers(range, first), ctx, call);
    });
  },
};

/** The page of a request that may start anywhere in `available` (the store's `range`, or wider). */
function ledgersPage(req: PaginatedRequest, range: LedgerRange, available: SequenceBounds, ctx: MethodContext, call: MethodCall) {
  const { maxLedgersLimit, defaultLedgersLimit } = ctx.config;
  validatePaginatedRequest(req, maxLedgersLimit, available);
  const start = req.cursor !== '' ? ledgerAfterCursor(req.cursor, available) : req.startLedger;
  const limit = pageLimit(req.pagination, defaultLedgersLimit);
  const format = formatOf(req.xdrFormat);
  const latest = range.latest.sequence;

  return ctx.heavy.run(call, async () => {
    const page = new Page(call, limit);
    const ledgers = new LedgerHistoryReader(ctx.store, ctx.ledgerArchive, start, limit, call.signal);
    const last = await page.fill(READ_CHUNK, (n) => ledgers.read(n), (row) => ledgerInfo(row, format, ctx), (row) => row.sequence <= latest, ctx.heavy.rowsAhead(format));
    let cursor: string;
    if (last !== undefined) cursor = String(last.sequence);
    else cursor = req.cursor !== '' ? req.cursor : String(start - 1);
    return page.answer('{"ledgers":', `,"latestLedger":${latest},"latestLedgerCloseTime":${range.latest.closeTime},`
      + `"oldestLedger":${range.oldest.sequence},"oldestLedgerCloseTime":${range.oldest.closeTime},"cursor":${JSON.stringify(cursor)}}`);
  });
}
