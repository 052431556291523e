// getTransactions: transactions in application order from startLedger, or from the one after
// `cursor` (the decimal TOID of a transaction, operation field 1), up to the latest ledger.
// Close timestamps and per-transaction `createdAt` are numbers here.
//
// Cursor rules, as the reference's: a full page ends at its last transaction; otherwise the scan
// reached the latest ledger and the cursor is that ledger's last transaction returned, or
// toid(latest, 0, 1) when none of it was returned. A cursor past the latest ledger yields "0".
import { invalidParams } from '../errors.ts';
import type { Method } from './types.ts';
import { GoNumError, parseGoInt64 } from './shared/go.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import {
  pageLimit, paginatedParamsSchema, readPaginatedRequest, validatePaginatedRequest,
} from './shared/pagination.ts';
import { TOID_TRANSACTION_MASK, toidDecode, toidEncode, transactionCursor } from './shared/toid.ts';
import { transactionInfo } from './shared/transactionInfo.ts';
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

export const getTransactions: Method = {
  name: 'getTransactions',
  paramsSchema: paginatedParamsSchema,
  handler(params, ctx) {
    const { maxTransactionsLimit, defaultTransactionsLimit } = ctx.config;
    const range = requireLedgerRange(ctx.store);
    const req = readPaginatedRequest(params);
    validatePaginatedRequest(req, maxTransactionsLimit, range);

    const start = pageStart(req.cursor, req.startLedger);
    const limit = pageLimit(req.pagination, defaultTransactionsLimit);
    const latest = range.latest.sequence;
    const result = (transactions: unknown[], cursor: string) => ({
      transactions,
      latestLedger: latest,
      latestLedgerCloseTimestamp: range.latest.closeTime,
      oldestLedger: range.oldest.sequence,
      oldestLedgerCloseTimestamp: range.oldest.closeTime,
      cursor,
    });

    if (start.ledger > latest) return result([], '0');
    if (start.ledger < 0) throw invalidParams('cursor ledger sequence cannot be negative');
    if (start.ledger < range.oldest.sequence) {
      throw invalidParams(`database does not contain metadata for ledger: ${start.ledger}`);
    }

    const fromId = start.transaction > TOID_TRANSACTION_MASK
      ? toidEncode({ ledger: start.ledger + 1, transaction: 0, operation: 0 })
      : toidEncode({ ledger: start.ledger, transaction: start.transaction, operation: 0 });
    const rows = ctx.store.transactionsFrom(fromId, limit).filter((tx) => tx.ledgerSequence <= latest);
    const format = formatOf(req.xdrFormat);
    const transactions = rows.map((tx) => transactionInfo(tx, format));

    const last = rows[rows.length - 1];
    let cursor: string;
    if (rows.length >= limit) cursor = transactionCursor(last.ledgerSequence, last.applicationOrder);
    else if (last && last.ledgerSequence === latest) cursor = transactionCursor(latest, last.applicationOrder);
    else cursor = transactionCursor(latest, 0);
    return result(transactions, cursor);
  },
};
