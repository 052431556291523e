// queryEvents' request (developers.stellar.org "queryEvents"; go-stellar-sdk protocols/rpc
// get_events_v2.go): either a new query (minLedger, maxLedger, order, filters) or a continuation
// (cursor), with limit and xdrFormat in both. Every rejection is -32602 with `error.data.reason`:
// invalid_params here; ledger_out_of_range and cursor_malformed once the stored range is known.
//
// Filters: AND inside a filter (type, one contractId, topic0..topic3 each a base64 ScVal equal to
// the event's topic at that position), OR across filters; an omitted topic position matches any
// value, and there is no topic-count matching. Each distinct (field, value) pair across all filters
// is one term; a query may use at most TERM_BUDGET of them.
import { StrKey } from '@stellar/stellar-sdk';
import { ErrorCode, RpcError } from '../../errors.ts';
import type { EventFilterSpec } from '../../../events/types.ts';
import { toHex } from '../../../xdr/codec.ts';
import { EVENT_TYPES, scValFromBase64 } from './eventsRequest.ts';
import { formatOf, xdrFormatError, type XdrFormat } from './xdrFormat.ts';
import { xdrFormatParam } from './schemas.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
export const MAX_FILTERS = 256;
export const TERM_BUDGET = 15;
/** Topic positions a filter can set (topic0..topic3). */
export const TOPIC_POSITIONS = 4;
/** The lowest ledger a query can name: ledger 1 (genesis) has no events. */
export const FIRST_LEDGER = 2;

const uint32 = { type: 'integer', minimum: 0, maximum: 0xffffffff } as const;
const FILTER_FIELDS = ['type', 'contractId', 'topic0', 'topic1', 'topic2', 'topic3'] as const;
const PARAMS = ['minLedger', 'maxLedger', 'order', 'filters', 'cursor', 'limit', 'xdrFormat'] as const;
const topic = (p: number) => ({ type: 'string', description: `base64 ScVal XDR the event's topic ${p} must equal; unset: any` });

export const queryEventsParamsSchema = {
  type: 'object',
  properties: {
    minLedger: { ...uint32, description: 'first ledger, inclusive (required ascending; descending: 2 by default)' },
    maxLedger: { ...uint32, description: 'last ledger, inclusive (default: none ascending, the latest ledger descending)' },
    order: { type: 'string', description: '"asc" (default) or "desc", newest first' },
    filters: {
      type: 'array',
      description: `1 to ${MAX_FILTERS} filters, ORed; each ANDs what it sets; at most ${TERM_BUDGET} distinct (field, value) terms in all`,
      items: {
        type: 'object',
        properties: {
          type: { type: 'string', description: '"contract" or "system"' },
          contractId: { type: 'string', description: 'a contract strkey (C...)' },
          topic0: topic(0), topic1: topic(1), topic2: topic(2), topic3: topic(3),
        },
      },
    },
    cursor: { type: 'string', description: 'the cursor of a previous page, alone: it carries the query (minLedger, maxLedger, order, filters)' },
    limit: { type: 'integer', description: `events per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` },
    xdrFormat: xdrFormatParam,
  },
} as const;

/** One filter, decoded: each field undefined when the filter does not set it. */
export interface QueryFilter {
  type: number | undefined;                       // ContractEventType
  contractId: Uint8Array | undefined;             // 32 bytes
  topics: Array<Uint8Array | undefined>;          // TOPIC_POSITIONS canonical ScVal XDRs
}

/** What a query asks, as a cursor keeps it. */
export interface EventsQuery {
  descending: boolean;
  minLedger: number;                  // >= FIRST_LEDGER
  /** Inclusive; undefined only for an ascending query without end (it follows new ledgers). */
  maxLedger: number | undefined;
  filters: QueryFilter[];             // none: every event
}

/** A new query as sent: its bounds not yet settled against the stored range. */
export interface NewQuery {
  descending: boolean;
  minLedger: number | undefined;
  maxLedger: number | undefined;
  filters: QueryFilter[];
}

export type QueryEventsRequest = { limit: number; format: XdrFormat } & ({ query: NewQuery } | { cursor: string });

// ---------------------------------------------------------------------------------------------
// Errors: -32602 with error.data.reason

export const invalidQuery = (message: string, extra: Record<string, number> = {}): RpcError =>
  new RpcError(ErrorCode.invalidParams, message, { reason: 'invalid_params', ...extra });

export const ledgerOutOfRange = (missingLedger: number, oldestLedger: number, latestLedger: number): RpcError =>
  new RpcError(ErrorCode.invalidParams, `ledger ${missingLedger} is not stored (ledgers ${oldestLedger} - ${latestLedger} are)`,
    { reason: 'ledger_out_of_range', missingLedger, oldestLedger, latestLedger });

export const cursorMalformed = (why: string, oldestLedger: number, latestLedger: number): RpcError =>
  new RpcError(ErrorCode.invalidParams, `cursor is malformed: ${why}`, { reason: 'cursor_malformed', oldestLedger, latestLedger });

// ---------------------------------------------------------------------------------------------

/** The term (field and value) of each field a filter sets: what the budget counts. */
export function filterTerms(f: QueryFilter): string[] {
  const terms: string[] = [];
  if (f.type !== undefined) terms.push(`type:${f.type}`);
  if (f.contractId) terms.push(`contractId:${toHex(f.contractId)}`);
  f.topics.forEach((t, i) => { if (t) terms.push(`topic${i}:${toHex(t)}`); });
  return terms;
}

/** The store's form of a filter: the topics set, up to the last one, followed by any others. */
export function filterSpec(f: QueryFilter): EventFilterSpec {
  let last = -1;
  f.topics.forEach((t, i) => { if (t) last = i; });
  return {
    types: f.type === undefined ? [] : [f.type],
    contractIds: f.contractId ? [f.contractId] : [],
    topics: last < 0 ? [] : [{ segments: f.topics.slice(0, last + 1).map((t) => t ?? null), flexible: true }],
  };
}

function readFilter(raw: Record<string, unknown>, i: number): QueryFilter {
  const at = `filters[${i}]`;
  for (const key of Object.keys(raw)) {
    if (!(FILTER_FIELDS as readonly string[]).includes(key)) throw invalidQuery(`${at}: unknown field '${key}'`);
  }
  const f: QueryFilter = { type: undefined, contractId: undefined, topics: Array(TOPIC_POSITIONS).fill(undefined) };
  // as in Go's decoding, an empty type or contractId is the same as absent
  if (raw.type !== undefined && raw.type !== '') {
    if (!Object.hasOwn(EVENT_TYPES, raw.type as string)) throw invalidQuery(`${at}: type must be 'contract' or 'system'`);
    f.type = EVENT_TYPES[raw.type as string];
  }
  if (raw.contractId !== undefined && raw.contractId !== '') {
    if (!StrKey.isValidContract(raw.contractId as string)) throw invalidQuery(`${at}: contractId is not a contract address (C...)`);
    f.contractId = new Uint8Array(StrKey.decodeContract(raw.contractId as string));
  }
  for (let p = 0; p < TOPIC_POSITIONS; p++) {
    const text = raw[`topic${p}`];
    if (text === undefined) continue;
    const scVal = scValFromBase64(text as string);
    if (typeof scVal === 'string') throw invalidQuery(`${at}.topic${p} is not a base64 ScVal XDR: ${scVal}`);
    f.topics[p] = scVal;
  }
  if (filterTerms(f).length === 0) throw invalidQuery(`${at}: a filter needs type, contractId or a topic`);
  return f;
}

/** Decodes and checks queryEvents params (invalid_params on any problem); the cursor stays text. */
export function readQueryEventsRequest(params: Record<string, unknown>): QueryEventsRequest {
  for (const key of Object.keys(params)) {
    if (!(PARAMS as readonly string[]).includes(key)) throw invalidQuery(`unknown parameter '${key}'`);
  }
  const formatError = xdrFormatError(params.xdrFormat);
  if (formatError !== undefined) throw invalidQuery(formatError);
  const limit = params.limit === undefined ? DEFAULT_LIMIT : params.limit as number;
  if (limit < 1 || limit > MAX_LIMIT) throw invalidQuery(`limit must be between 1 and ${MAX_LIMIT}`);
  const format = formatOf(params.xdrFormat);

  // as in Go's decoding of the reference's request, 0 and "" are the same as absent
  const minLedger = params.minLedger ? params.minLedger as number : undefined;
  const maxLedger = params.maxLedger ? params.maxLedger as number : undefined;
  const order = params.order ? params.order as string : undefined;
  const rawFilters = params.filters as Array<Record<string, unknown>> | undefined;
  if (params.cursor) {
    if (minLedger !== undefined || maxLedger !== undefined || order !== undefined || rawFilters !== undefined) {
      throw invalidQuery('cursor cannot be combined with minLedger, maxLedger, order or filters: the cursor carries them');
    }
    return { cursor: params.cursor as string, limit, format };
  }
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw invalidQuery("order must be 'asc' or 'desc'");
  const descending = order === 'desc';
  if (!descending && minLedger === undefined) throw invalidQuery('minLedger is required in ascending order');
  if (minLedger !== undefined && maxLedger !== undefined && minLedger > maxLedger) throw invalidQuery('minLedger must not be above maxLedger');
  if (rawFilters !== undefined && (rawFilters.length === 0 || rawFilters.length > MAX_FILTERS)) {
    throw invalidQuery(`filters must hold 1 to ${MAX_FILTERS} filters (omit it to match every event)`);
  }
  const filters = (rawFilters ?? []).map(readFilter);
  const terms = new Set(filters.flatMap(filterTerms)).size;
  if (terms > TERM_BUDGET) {
    throw invalidQuery(`the filters use ${terms} distinct terms, over the budget of ${TERM_BUDGET}: split the query`,
      { termsUsed: terms, termBudget: TERM_BUDGET });
  }
  return {
    query: { descending, minLedger: minLedger === undefined ? undefined : Math.max(minLedger, FIRST_LEDGER), maxLedger, filters },
    limit, format,
  };
}
