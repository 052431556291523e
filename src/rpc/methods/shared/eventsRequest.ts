// getEvents' request: decoding (cursor, topic segments) and validation, in the reference's order and
// with its messages (go-stellar-sdk protocols/rpc get_events.go and cursor.go):
//  1. decoding, as Go's JSON unmarshalling does it, in the order the params were written: a bad
//     cursor or a segment that is neither a wildcard nor base64 ScVal XDR is -32602
//     "invalid parameters" with the reason in `data`;
//  2. GetEventsRequest.Valid: xdrFormat, cursor vs ledger range, startLedger, limit, (order),
//     number of filters, then each filter: type, number of contract ids, number of topics, each
//     contract id, each topic (segments, `**` placement, at most 4 segments); all -32602.
// Extras the reference does not have (existing clients never send them): `pagination.order` (or
// top-level `order`) "asc" | "desc", and `txHash`, which restricts results to one transaction.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../../../xdr/xdr.ts';
import { invalidParams, RpcError } from '../../errors.ts';
import type { EventFilterSpec, EventPosition, TopicPattern } from '../../../events/types.ts';
import { EventXdrError, skipScVal } from '../../../events/eventBytes.ts';
import { MAX_UINT32 } from '../../../events/eventIds.ts';
import { GoNumError, goHexDecode, parseGoInt64, parseGoUint } from './go.ts';
import { toidDecode } from '../../../ids/toid.ts';
import { xdrFormatError, formatOf, type XdrFormat } from './xdrFormat.ts';
import { xdrFormatParam } from './schemas.ts';

export const MAX_FILTERS = 5;
export const MAX_CONTRACT_IDS = 5;
export const MAX_TOPICS = 5;
export const MAX_SEGMENTS = 4;
const WILDCARD_ONE = '*';
const WILDCARD_ANY = '**';
/** Event type names as filters spell them, to ContractEventType values. */
export const EVENT_TYPES: Readonly<Record<string, number>> = { system: 0, contract: 1 };

const uint32 = { type: 'integer', minimum: 0, maximum: 0xffffffff } as const;

const ORDER = { type: 'string', description: 'lumen-rpc extension: "asc" (default) or "desc", newest first' } as const;

export const getEventsParamsSchema = {
  type: 'object',
  properties: {
    startLedger: { ...uint32, description: 'first ledger to scan (required unless paging with a cursor or txHash)' },
    endLedger: { ...uint32, description: 'ledger to stop before (exclusive)' },
    filters: {
      type: 'array',
      description: `up to ${MAX_FILTERS} filters; an event matching any of them is returned`,
      items: {
        type: 'object',
        properties: {
          type: { type: 'string', description: '"system", "contract" or both, comma-separated' },
          contractIds: { type: 'array', items: { type: 'string' }, description: `up to ${MAX_CONTRACT_IDS} contract strkeys` },
          topics: {
            type: 'array',
            description: `up to ${MAX_TOPICS} topic patterns, each 1 to ${MAX_SEGMENTS} segments: a base64 ScVal, "*" `
              + '(any one) or, last, "**" (any number)',
            items: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
    pagination: {
      type: 'object',
      properties: {
        cursor: { type: 'string', description: 'an event id or the `cursor` of a previous page; excludes startLedger and endLedger' },
        limit: { type: 'integer', minimum: 0, description: 'events per page (0: the default)' },
        order: ORDER,
      },
    },
    xdrFormat: xdrFormatParam,
    order: ORDER,
    txHash: { type: 'string', description: 'lumen-rpc extension: only the events of this transaction (hex hash)' },
  },
} as const;

interface RawFilter { type?: string; contractIds?: string[]; topics?: string[][] }
interface RawPagination { cursor?: string; limit?: number; order?: string }

/** A segment as decoded: a wildcard, or the canonical XDR of its ScVal. */
type Segment = { wildcard: string } | { scVal: Uint8Array };

export interface EventsRequest {
  startLedger: number;          // 0 when absent
  endLedger: number;            // 0 when absent
  cursor: EventPosition | undefined;
  limit: number;                // 0 = the default
  descending: boolean;
  filters: EventFilterSpec[];
  format: XdrFormat;
  txHash: Uint8Array | undefined;
}

const decodeError = (why: string): RpcError => invalidParams('invalid parameters', why);

/** Go's ParseCursor: `<toid>-<event index>`, the errors carrying Go's texts. */
export function parseEventCursor(input: string): EventPosition {
  const dash = input.indexOf('-');
  if (dash < 0) throw decodeError(`invalid event id ${input}`);
  let id: bigint;
  let event: bigint;
  try {
    id = parseGoInt64(input.slice(0, dash));
    event = parseGoUint(input.slice(dash + 1), 32);
  } catch (e) {
    if (e instanceof GoNumError) throw decodeError(`invalid event id ${input}: ${e.message}`);
    throw e;
  }
  const t = toidDecode(id);
  return { ledger: t.ledger >>> 0, tx: t.transaction, op: t.operation, event: Number(event) };
}

/** Index of the first character Go's base64 decoder rejects, or -1 when the text is valid. */
function base64ErrorOffset(s: string): number {
  const body = s.replace(/[\r\n]/g, '');
  const alphabet = /[A-Za-z0-9+/]/;
  let i = 0;
  while (i < body.length && alphabet.test(body[i])) i++;
  const rest = body.length - i;
  if (rest === 0) return body.length % 4 === 0 ? -1 : (body.length % 4 === 1 ? body.length - 1 : body.length);
  if (body[i] !== '=') return i;
  // padding: only at the end of a quantum, one or two '='
  const q = i % 4;
  const pad = q === 2 ? 2 : q === 3 ? 1 : 0;
  if (pad === 0 || body.slice(i, i + pad) !== '='.repeat(pad)) return i;
  return rest === pad ? -1 : i + pad; // data after the padding
}

/**
 * The canonical XDR of a base64 ScVal as Go decodes it (padding required, CR/LF ignored, every byte
 * consumed), or why it is not one, in Go's words.
 */
export function scValFromBase64(text: string): Uint8Array | string {
  const bad = base64ErrorOffset(text);
  if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  return canonicalScVal(new Uint8Array(Buffer.from(text.replace(/[\r\n]/g, ''), 'base64')));
}

/** The canonical form of ScVal XDR bytes (all of them one ScVal), or why they are not one. */
export function canonicalScVal(bytes: Uint8Array): Uint8Array | string {
  let end: number;
  try {
    end = skipScVal(bytes, 0);
  } catch (e) {
    if (e instanceof EventXdrError) return `xdr: ${e.message}`;
    throw e;
  }
  if (end !== bytes.length) return `input not fully consumed. expected to read: ${bytes.length}, actual: ${end}`;
  try {
    return xdr.ScVal.schema.encode(xdr.ScVal.schema.decode(bytes));
  } catch (e) {
    return `xdr: ${(e as Error).message}`;
  }
}

function decodeSegment(text: string): Segment {
  if (text === WILDCARD_ONE || text === WILDCARD_ANY) return { wildcard: text };
  const scVal = scValFromBase64(text);
  if (typeof scVal === 'string') throw decodeError(scVal);
  return { scVal };
}

/** Step 1: what Go's unmarshalling of the params would reject, in the order the params were written. */
function decode(params: Record<string, unknown>): { segments: Segment[][][]; cursor: EventPosition | undefined } {
  let segments: Segment[][][] = [];
  let cursor: EventPosition | undefined;
  for (const key of Object.keys(params)) {
    if (key === 'filters') {
      segments = (params.filters as RawFilter[]).map((f) => (f.topics ?? []).map((t) => t.map(decodeSegment)));
    } else if (key === 'pagination') {
      const c = (params.pagination as RawPagination).cursor;
      if (c !== undefined) cursor = parseEventCursor(c);
    }
  }
  return { segments, cursor };
}

/** TopicFilter.Valid, then the decoded pattern. */
function topicPattern(segments: Segment[]): TopicPattern | string {
  if (segments.length < 1) return 'topic must have at least 1 segment';
  const last = segments[segments.length - 1];
  const flexible = 'wildcard' in last && last.wildcard === WILDCARD_ANY;
  const fixed = flexible ? segments.slice(0, -1) : segments;
  for (let i = 0; i < fixed.length; i++) {
    const s = fixed[i];
    if ('wildcard' in s && s.wildcard === WILDCARD_ANY) return `segment ${i + 1} invalid: wildcard '**' is only allowed as the last segment`;
  }
  if (fixed.length > MAX_SEGMENTS) return `topic cannot have more than ${MAX_SEGMENTS} segments`;
  return { segments: fixed.map((s) => ('scVal' in s ? s.scVal : null)), flexible };
}

/** EventFilter.Valid, then the decoded filter. */
function eventFilter(raw: RawFilter, segments: Segment[][]): EventFilterSpec | string {
  const types = new Set<number>();
  if (raw.type !== undefined && raw.type !== '') {
    for (const name of raw.type.split(',')) {
      const t = EVENT_TYPES[name];
      if (t === undefined || !Object.hasOwn(EVENT_TYPES, name)) return "filter type invalid: if set, type must be either 'system' or 'contract'";
      types.add(t);
    }
  }
  const ids = raw.contractIds ?? [];
  if (ids.length > MAX_CONTRACT_IDS) return `maximum ${MAX_CONTRACT_IDS} contract IDs per filter`;
  if (segments.length > MAX_TOPICS) return `maximum ${MAX_TOPICS} topics per filter`;
  const contractIds: Uint8Array[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (!StrKey.isValidContract(ids[i])) return `contract ID ${i + 1} invalid`;
    contractIds.push(new Uint8Array(StrKey.decodeContract(ids[i])));
  }
  const topics: TopicPattern[] = [];
  for (let i = 0; i < segments.length; i++) {
    const p = topicPattern(segments[i]);
    if (typeof p === 'string') return `topic ${i + 1} invalid: ${p}`;
    topics.push(p);
  }
  return { types: [...types], contractIds, topics };
}

function parseTxHash(hash: string): Uint8Array {
  const length = Buffer.byteLength(hash, 'utf8');
  if (Math.floor(length / 2) !== 32) throw invalidParams(`invalid txHash: unexpected hash length (${length})`);
  const decoded = goHexDecode(hash);
  if (typeof decoded === 'string') throw invalidParams(`invalid txHash: ${decoded}`);
  return decoded;
}

/** Decodes and validates getEvents params (-32602 on any problem). */
export function readEventsRequest(params: Record<string, unknown>, maxLimit: number): EventsRequest {
  const { segments, cursor } = decode(params);
  const fail = (message: string): never => { throw invalidParams(message); };

  const formatError = xdrFormatError(params.xdrFormat);
  if (formatError !== undefined) fail(formatError);

  const startLedger = typeof params.startLedger === 'number' ? params.startLedger : 0;
  const endLedger = typeof params.endLedger === 'number' ? params.endLedger : 0;
  const pagination = params.pagination as RawPagination | undefined;
  const txHashText = typeof params.txHash === 'string' ? params.txHash : undefined;
  if (cursor !== undefined) {
    if (startLedger !== 0 || endLedger !== 0) fail('ledger ranges and cursor cannot both be set');
  } else if (startLedger <= 0 && txHashText === undefined) {
    fail('startLedger must be positive');
  }
  const limit = pagination?.limit ?? 0;
  if (limit > maxLimit) fail(`limit must not exceed ${maxLimit}`);
  const order = pagination?.order ?? (typeof params.order === 'string' ? params.order : '');
  if (order !== '' && order !== 'asc' && order !== 'desc') fail("order must be 'asc' or 'desc'");

  const rawFilters = (params.filters ?? []) as RawFilter[];
  if (rawFilters.length > MAX_FILTERS) fail(`maximum ${MAX_FILTERS} filters per request`);
  const filters: EventFilterSpec[] = [];
  rawFilters.forEach((raw, i) => {
    const f = eventFilter(raw, segments[i] ?? []);
    if (typeof f === 'string') fail(`filter ${i + 1} invalid: ${f}`);
    filters.push(f as EventFilterSpec);
  });

  return {
    startLedger, endLedger, cursor, limit,
    descending: order === 'desc',
    filters,
    format: formatOf(params.xdrFormat),
    txHash: txHashText === undefined ? undefined : parseTxHash(txHashText),
  };
}

/** The position right after a cursor, as the reference computes it (the event index wraps). */
export const afterCursor = (c: EventPosition): EventPosition => ({ ...c, event: (c.event + 1) % (MAX_UINT32 + 1) });
