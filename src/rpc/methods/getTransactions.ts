// getTransactions: transactions in application order from startLedger, or from the one after
// `cursor` (the decimal TOID of a transaction, operation field 1), up to the latest ledger.
// Close timestamps and per-transaction `createdAt` are numbers here.
//
// Cursor rules, as the reference's: a full page ends at its last transaction; otherwise the scan
// reached the latest ledger and the cursor is that ledger's last transaction returned, or
// toid(latest, 0, 1) when none of it was returned. A cursor past the latest ledger yields "0".
// A page that ends early on the answer budget ends at its last transaction, as a full page does.
import { invalidParams } from '../errors.ts';
import type { StoredTransaction } from '../../store/types.ts';
import type { Method } from './types.ts';
import { GoNumError, parseGoInt64 } from './shared/go.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import {
  pageLimit, paginatedParamsSchema, readPaginatedRequest, validatePaginatedRequest,
} from './shared/pagination.ts';
import { TOID_TRANSACTION_MASK, toidDecode, toidEncode, transactionCursor } from '../../ids/toid.ts';
import { Page } from './shared/page.ts';
import { transactionInfo, transactionInfoSchema } from './shared/transactionInfo.ts';
import { arrayOf, ledgerSequence, object, unixTime } from './shared/schemas.ts';
import { formatOf } from './shared/xdrFormat.ts';

/** Where the page starts: the ledger and 1-based application order. */
function pageStart(cursor: string, startLedger: number): { ledger: number; transaction: number } {
  if (cursor === '') return { ledger: startLedger, transaction: 1 };
  let id: bigint;
  try {
    id = parseGoInt64(cursor);
  } catch (e) {
    if (e instanceof GoNumError) throw invalidParams(e.message);
    throw e;
  }
  const { ledger, transaction } = toidDecode(id);
  return { ledger, transaction: transaction + 1 };
}

/** Transactions read from storage at a time. */
const READ_CHUNK = 50;

export const getTransactions: Method = {
  name: 'getTransactions',
  paramsSchema: paginatedParamsSchema,
  doc: {
    summary: 'A page of transactions in application order',
    description: 'From startLedger, or from the transaction after pagination.cursor, up to pagination.limit '
      + 'transactions (default 50, at most 200).',
    result: {
      name: 'getTransactionsResult',
      schema: object({
        transactions: arrayOf(transactionInfoSchema),
        latestLedger: ledgerSequence,
        latestLedgerCloseTimestamp: unixTime,
        oldestLedger: ledgerSequence,
        oldestLedgerCloseTimestamp: unixTime,
        cursor: { type: 'string', pattern: '^[0-9]+$', description: 'TOID of the last transaction scanned' },
      }),
    },
  },
  chargesBudget: true,
  handler(params, ctx, call) {
    const { maxTransactionsLimit, defaultTransactionsLimit } = ctx.config;
    const range = requireLedgerRange(ctx.store);
    const req = readPaginatedRequest(params);
    validatePaginatedRequest(req, maxTransactionsLimit, range);

    const start = pageStart(req.cursor, req.startLedger);
    const limit = pageLimit(req.pagination, defaultTransactionsLimit);
    const latest = range.latest.sequence;
    const result = (page: Page, cursor: string) => page.answer('{"transactions":',
      `,"latestLedger":${latest},"latestLedgerCloseTimestamp":${range.latest.closeTime},`
      + `"oldestLedger":${range.oldest.sequence},"oldestLedgerCloseTimestamp":${range.oldest.closeTime},"cursor":${JSON.stringify(cursor)}}`);

    if (start.ledger > latest) return result(new Page(call, limit), '0');
    if (start.ledger < 0) throw invalidParams('cursor ledger sequence cannot be negative');
    if (start.ledger < range.oldest.sequence) {
      throw invalidParams(`database does not contain metadata for ledger: ${start.ledger}`);
    }

    const fromId = start.transaction > TOID_TRANSACTION_MASK
      ? toidEncode({ ledger: start.ledger + 1, transaction: 0, operation: 0 })
      : toidEncode({ ledger: start.ledger, transaction: start.transaction, operation: 0 });
    const format = formatOf(req.xdrFormat);

    return ctx.heavy.run(call, async () => {
      const page = new Page(call, limit);
      let next = fromId;
      const read = (n: number): StoredTransaction[] => {
        const rows = ctx.store.transactionsFrom(next, n);
        if (rows.length > 0) next = rows[rows.length - 1].id + 1n;
        return rows;
      };
      const last = await page.fill(READ_CHUNK, read, (tx) => transactionInfo(tx, format, ctx.heavy), (tx) => tx.ledgerSequence <= latest, ctx.heavy.rowsAhead(format));
      let cursor: string;
      if (last !== undefined && page.full) cursor = transactionCursor(last.ledgerSequence, last.applicationOrder);
      else if (last && last.ledgerSequence === latest) cursor = transactionCursor(latest, last.applicationOrder);
      else cursor = transactionCursor(latest, 0);
      return result(page, cursor);
    });
  },
};
