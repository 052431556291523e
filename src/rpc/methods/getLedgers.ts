// getLedgers: a page of stored ledgers from startLedger, or from the ledger after `cursor` (a decimal
// sequence). Per ledger `ledgerCloseTime` is a string and `headerXdr` a LedgerHeaderHistoryEntry; the
// top-level close times are numbers. Validation errors are -32600, cursor errors -32602.
//
// Bounded work: ledgers are read a few at a time and rendered one by one (JSON on a worker thread),
// giving the event loop a turn between them; the page ends early when the next ledger would not fit
// the answer budget, and its cursor (the last ledger sent) continues right there.
import { invalidParams } from '../errors.ts';
import type { JsonPart } from '../rawJson.ts';
import { toBase64, toHex } from '../../xdr/codec.ts';
import type { LedgerRange, LedgerRow } from '../../store/types.ts';
import type { Method, MethodContext } from './types.ts';
import { GoNumError, parseGoUint } from './shared/go.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import { Page } from './shared/page.ts';
import {
  pageLimit, paginatedParamsSchema, readPaginatedRequest, validatePaginatedRequest,
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

/** The first ledger after a cursor, or -32602 with the reference's message. */
function ledgerAfterCursor(cursor: string, range: LedgerRange): number {
  let seq: bigint;
  try {
    seq = parseGoUint(cursor, 32);
  } catch (e) {
    if (e instanceof GoNumError) throw invalidParams(e.message);
    throw e;
  }
  const start = Number((seq + 1n) & 0xffffffffn); // uint32 arithmetic, as the reference's
  if (start < range.oldest.sequence || start > range.latest.sequence) {
    throw invalidParams(`cursor ('${cursor}') must be between the oldest ledger: ${range.oldest.sequence} `
      + `and the latest ledger: ${range.latest.sequence} for this rpc instance`);
  }
  return start;
}

/** One LedgerInfo as JSON pieces, fields in the reference's order. */
async function ledgerInfo(row: LedgerRow, format: XdrFormat, ctx: MethodContext): Promise<JsonPart[]> {
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
      + '(default 50, at most 200); a page may end early to fit --max-response-body-bytes.',
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
    const { maxLedgersLimit, defaultLedgersLimit } = ctx.config;
    const range = requireLedgerRange(ctx.store);
    const req = readPaginatedRequest(params);
    validatePaginatedRequest(req, maxLedgersLimit, range);

    const start = req.cursor !== '' ? ledgerAfterCursor(req.cursor, range) : req.startLedger;
    const limit = pageLimit(req.pagination, defaultLedgersLimit);
    const format = formatOf(req.xdrFormat);
    const latest = range.latest.sequence;

    return ctx.heavy.run(call.signal, async () => {
      const page = new Page(call, limit);
      let next = start;
      const read = (n: number): LedgerRow[] => {
        const rows = ctx.store.ledgers(next, n);
        if (rows.length > 0) next = rows[rows.length - 1].sequence + 1;
        return rows;
      };
      const last = await page.fill(READ_CHUNK, read, (row) => ledgerInfo(row, format, ctx), (row) => row.sequence <= latest);
      let cursor: string;
      if (last !== undefined) cursor = String(last.sequence);
      else cursor = req.cursor !== '' ? req.cursor : String(start - 1);
      return page.answer('{"ledgers":', `,"latestLedger":${latest},"latestLedgerCloseTime":${range.latest.closeTime},`
        + `"oldestLedger":${range.oldest.sequence},"oldestLedgerCloseTime":${range.oldest.closeTime},"cursor":${JSON.stringify(cursor)}}`);
    });
  },
};
