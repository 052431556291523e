// getLedgers: a page of stored ledgers from startLedger, or from the ledger after `cursor` (a decimal
// sequence). Per ledger `ledgerCloseTime` is a string and `headerXdr` a LedgerHeaderHistoryEntry; the
// top-level close times are numbers. Validation errors are -32600, cursor errors -32602.
import { xdr } from '@stellar/stellar-sdk';
import { invalidParams } from '../errors.ts';
import { toBase64, toHex } from '../../xdr/codec.ts';
import type { LedgerRange, LedgerRow } from '../../store/types.ts';
import type { Method } from './types.ts';
import { GoNumError, parseGoUint } from './shared/go.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import {
  pageLimit, paginatedParamsSchema, readPaginatedRequest, validatePaginatedRequest,
} from './shared/pagination.ts';
import { formatOf, xdrJson, type XdrFormat } from './shared/xdrFormat.ts';

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

function ledgerInfo(row: LedgerRow, format: XdrFormat): Record<string, unknown> {
  const base = { hash: toHex(row.hash), sequence: row.sequence, ledgerCloseTime: String(row.closeTime) };
  if (format === 'json') {
    // The reference has no omitempty on the XDR fields: they stay, empty.
    return {
      ...base,
      headerXdr: '',
      headerJson: xdrJson(xdr.LedgerHeaderHistoryEntry, row.header),
      metadataXdr: '',
      metadataJson: xdrJson(xdr.LedgerCloseMeta, row.meta),
    };
  }
  return { ...base, headerXdr: toBase64(row.header), metadataXdr: toBase64(row.meta) };
}

export const getLedgers: Method = {
  name: 'getLedgers',
  paramsSchema: paginatedParamsSchema,
  handler(params, ctx) {
    const { maxLedgersLimit, defaultLedgersLimit } = ctx.config;
    const range = requireLedgerRange(ctx.store);
    const req = readPaginatedRequest(params);
    validatePaginatedRequest(req, maxLedgersLimit, range);

    const start = req.cursor !== '' ? ledgerAfterCursor(req.cursor, range) : req.startLedger;
    const limit = pageLimit(req.pagination, defaultLedgersLimit);
    const format = formatOf(req.xdrFormat);
    const ledgers = ctx.store.ledgers(start, limit).map((row) => ledgerInfo(row, format));

    let cursor: string;
    if (ledgers.length > 0) cursor = String(ledgers[ledgers.length - 1].sequence);
    else cursor = req.cursor !== '' ? req.cursor : String(start - 1);

    return {
      ledgers,
      latestLedger: range.latest.sequence,
      latestLedgerCloseTime: range.latest.closeTime,
      oldestLedger: range.oldest.sequence,
      oldestLedgerCloseTime: range.oldest.closeTime,
      cursor,
    };
  },
};
