// Request validation shared by getLedgers and getTransactions (the reference's ValidatePagination
// plus the xdrFormat check, joined like Go's errors.Join and reported as -32600).
import { invalidRequest } from '../../errors.ts';
import type { LedgerBound } from '../../../store/types.ts';
import { xdrFormatError } from './xdrFormat.ts';
import { xdrFormatParam } from './schemas.ts';

export interface PaginationParams {
  cursor?: string;
  limit?: number;
}

export const paginationSchema = {
  type: 'object',
  properties: {
    cursor: { type: 'string', description: 'the `cursor` of the previous page; excludes startLedger' },
    limit: { type: 'integer', minimum: 0, description: 'items per page (0: the default)' },
  },
} as const;

/** The reference's paginated-request params: startLedger (uint32), pagination, xdrFormat. */
export const paginatedParamsSchema = {
  type: 'object',
  properties: {
    startLedger: { type: 'integer', minimum: 0, maximum: 0xffffffff, description: 'the first ledger of the page' },
    pagination: paginationSchema,
    xdrFormat: xdrFormatParam,
  },
} as const;

/**
 * The ledgers a request may start from: the stored range, or wider (getLedgers with a ledger
 * archive). Only the sequences matter here.
 */
export interface SequenceBounds {
  oldest: Pick<LedgerBound, 'sequence'>;
  latest: Pick<LedgerBound, 'sequence'>;
}

export interface PaginatedRequest {
  startLedger: number;               // 0 when absent
  pagination: PaginationParams | undefined;
  cursor: string;                    // "" when absent
  xdrFormat: unknown;
}

export function readPaginatedRequest(params: Record<string, unknown>): PaginatedRequest {
  const pagination = typeof params.pagination === 'object' && params.pagination !== null
    ? params.pagination as PaginationParams : undefined;
  return {
    startLedger: typeof params.startLedger === 'number' ? params.startLedger : 0,
    pagination,
    cursor: typeof pagination?.cursor === 'string' ? pagination.cursor : '',
    xdrFormat: params.xdrFormat,
  };
}

const withinRange = (seq: number, range: SequenceBounds): boolean =>
  seq >= range.oldest.sequence && seq <= range.latest.sequence;

/** ValidatePagination's message, or undefined when the request is acceptable. */
export function paginationError(
  startLedger: number, pagination: PaginationParams | undefined, maxLimit: number, range: SequenceBounds,
): string | undefined {
  const badStart = `start ledger (${startLedger}) must be between the oldest ledger: ${range.oldest.sequence} `
    + `and the latest ledger: ${range.latest.sequence} for this rpc instance`;
  if (!pagination) return withinRange(startLedger, range) ? undefined : badStart;
  const cursor = pagination.cursor ?? '';
  if (cursor !== '') {
    if (startLedger !== 0) return `startLedger (${startLedger}) and cursor (${cursor}) cannot both be set`;
  } else if (!withinRange(startLedger, range)) {
    return badStart;
  }
  if ((pagination.limit ?? 0) > maxLimit) return `limit must not exceed ${maxLimit}`;
  return undefined;
}

/** Go's errors.Join: the non-nil messages, one per line; undefined when there are none. */
export function joinErrors(...messages: Array<string | undefined>): string | undefined {
  const present = messages.filter((m): m is string => m !== undefined);
  return present.length ? present.join('\n') : undefined;
}

/** Throws -32600 with the joined pagination and xdrFormat errors, as getLedgers/getTransactions do. */
export function validatePaginatedRequest(req: PaginatedRequest, maxLimit: number, range: SequenceBounds): void {
  const message = joinErrors(paginationError(req.startLedger, req.pagination, maxLimit, range), xdrFormatError(req.xdrFormat));
  if (message !== undefined) throw invalidRequest(message);
}

/** The page size: the requested limit when positive, else the default. */
export const pageLimit = (pagination: PaginationParams | undefined, defaultLimit: number): number =>
  pagination?.limit && pagination.limit > 0 ? pagination.limit : defaultLimit;
