// queryEvents' cursor: the whole query (order, bounds, filters) and the position its scan reached,
// in one opaque string. The node keeps nothing between pages, so a cursor never expires: reused
// after new ledgers arrived, it carries on from where it stopped, and an ascending query without
// maxLedger then returns the events that arrived since.
//
// `qe1_` + base64url of (big-endian):
//   flags u8 (1 descending, 2 maxLedger set), minLedger u32, maxLedger u32 (0 when not set),
//   position: ledger u32, tx u32, op u16, event u32 (ascending: the next event to read, inclusive;
//     descending: the end of what is left, exclusive),
//   terms u8, each: field u8 (0 type, 1 contractId, 2 + p topic p) and its value (type u8; contract
//     id 32 bytes; topic u32 length + ScVal XDR),
//   filters u16, each: u8 count + that many term indexes (one term per field),
//   the CRC-32 of all of the above.
// Decoding is strict: the checksum catches edits and truncation, and every value is checked as a
// request's would be, so a cursor is either what the encoder wrote or malformed. (A checksum, not a
// signature: a cursor forged with a valid one can only ask what a request could.)
import { crc32 } from 'node:zlib';
import { xdr } from '../../../xdr/xdr.ts';
import type { EventPosition } from '../../../events/types.ts';
import { comparePositions, OP_MASK, TX_MASK } from '../../../events/eventIds.ts';
import { skipScVal } from '../../../events/eventBytes.ts';
import { toHex } from '../../../xdr/codec.ts';
import { ledgerStart } from './eventPage.ts';
import { FIRST_LEDGER, TOPIC_POSITIONS, type EventsQuery, type QueryFilter } from './queryEventsRequest.ts';

const PREFIX = 'qe1_';
const CHECK_BYTES = 4;
const DESCENDING = 1;
const BOUNDED = 2;
const FIELD_TYPE = 0;
const FIELD_CONTRACT = 1;
const FIELD_TOPIC0 = 2;

export interface CursorState {
  query: EventsQuery;
  position: EventPosition;
}

interface Term { field: number; value: Uint8Array }

/** The distinct terms of the filters, and each filter as indexes into them (duplicate filters once). */
function termTable(filters: readonly QueryFilter[]): { terms: Term[]; refs: number[][] } {
  const terms: Term[] = [];
  const index = new Map<string, number>();
  const refs: number[][] = [];
  const seen = new Set<string>();
  for (const f of filters) {
    const fields: Term[] = [];
    if (f.type !== undefined) fields.push({ field: FIELD_TYPE, value: Uint8Array.of(f.type) });
    if (f.contractId) fields.push({ field: FIELD_CONTRACT, value: f.contractId });
    f.topics.forEach((t, p) => { if (t) fields.push({ field: FIELD_TOPIC0 + p, value: t }); });
    const ref = fields.map((t) => {
      const key = `${t.field}:${toHex(t.value)}`;
      let i = index.get(key);
      if (i === undefined) {
        i = terms.push(t) - 1;
        index.set(key, i);
      }
      return i;
    });
    const key = ref.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      refs.push(ref);
    }
  }
  return { terms, refs };
}

export function encodeCursor({ query, position }: CursorState): string {
  const { terms, refs } = termTable(query.filters);
  if (terms.length > 255) throw new Error('a cursor holds at most 255 filter terms');
  const parts: Buffer[] = [];
  const head = Buffer.alloc(24);
  head.writeUInt8((query.descending ? DESCENDING : 0) | (query.maxLedger !== undefined ? BOUNDED : 0), 0);
  head.writeUInt32BE(query.minLedger, 1);
  head.writeUInt32BE(query.maxLedger ?? 0, 5);
  head.writeUInt32BE(position.ledger >>> 0, 9);
  head.writeUInt32BE(position.tx, 13);
  head.writeUInt16BE(position.op, 17);
  head.writeUInt32BE(position.event >>> 0, 19);
  head.writeUInt8(terms.length, 23);
  parts.push(head);
  for (const t of terms) {
    parts.push(Buffer.of(t.field));
    if (t.field >= FIELD_TOPIC0) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(t.value.length);
      parts.push(length);
    }
    parts.push(Buffer.from(t.value));
  }
  const count = Buffer.alloc(2);
  count.writeUInt16BE(refs.length);
  parts.push(count);
  for (const r of refs) parts.push(Buffer.from([r.length, ...r]));
  const body = Buffer.concat(parts);
  return PREFIX + Buffer.concat([body, checksum(body)]).toString('base64url');
}

function checksum(body: Uint8Array): Buffer {
  const b = Buffer.alloc(CHECK_BYTES);
  b.writeUInt32BE(crc32(body));
  return b;
}

/** Whether the bytes are exactly one ScVal (its structure, then its union arms through the XDR decoder). */
function isScVal(b: Uint8Array): boolean {
  try {
    if (skipScVal(b, 0) !== b.length) return false;
    xdr.ScVal.schema.decode(b);
    return true;
  } catch {
    return false; // EventXdrError from the first, XdrError from the second
  }
}

class Malformed extends Error {}

/** Reads big-endian values off a buffer; running past its end is Malformed. */
class Reader {
  private readonly b: Buffer;
  private at = 0;
  constructor(b: Buffer) { this.b = b; }
  private need(n: number): number {
    if (this.at + n > this.b.length) throw new Malformed('truncated');
    const at = this.at;
    this.at += n;
    return at;
  }
  u8(): number { return this.b.readUInt8(this.need(1)); }
  u16(): number { return this.b.readUInt16BE(this.need(2)); }
  u32(): number { return this.b.readUInt32BE(this.need(4)); }
  bytes(n: number): Uint8Array { const at = this.need(n); return new Uint8Array(this.b.subarray(at, at + n)); }
  get done(): boolean { return this.at === this.b.length; }
}

/** The state a cursor holds, or why it is malformed. */
export function decodeCursor(text: string): CursorState | string {
  try {
    return decode(text);
  } catch (e) {
    if (e instanceof Malformed) return e.message;
    throw e;
  }
}

function decode(text: string): CursorState {
  if (!text.startsWith(PREFIX)) throw new Malformed('not a queryEvents cursor');
  const encoded = text.slice(PREFIX.length);
  const raw = Buffer.from(encoded, 'base64url');
  // Buffer's decoder skips characters outside the alphabet: only its own output is accepted
  if (raw.toString('base64url') !== encoded || raw.length <= CHECK_BYTES) throw new Malformed('not base64url');
  const body = raw.subarray(0, raw.length - CHECK_BYTES);
  if (!checksum(body).equals(raw.subarray(raw.length - CHECK_BYTES))) throw new Malformed('checksum mismatch');
  const r = new Reader(body);
  const flags = r.u8();
  if ((flags & ~(DESCENDING | BOUNDED)) !== 0) throw new Malformed('unknown flags');
  const descending = (flags & DESCENDING) !== 0;
  const minLedger = r.u32();
  const max = r.u32();
  const maxLedger = (flags & BOUNDED) !== 0 ? max : undefined;
  if (minLedger < FIRST_LEDGER) throw new Malformed('minLedger below 2');
  if (maxLedger === undefined ? max !== 0 || descending : maxLedger < minLedger) throw new Malformed('bad ledger bounds');
  const position: EventPosition = { ledger: r.u32(), tx: r.u32(), op: r.u16(), event: r.u32() };
  if (position.tx > TX_MASK || position.op > OP_MASK) throw new Malformed('bad position');
  // every position a scan hands out lies in [start of minLedger, end of maxLedger]
  if (comparePositions(position, ledgerStart(minLedger)) < 0) throw new Malformed('position below minLedger');
  if (maxLedger !== undefined && position.ledger > maxLedger) throw new Malformed('position above maxLedger');

  const terms: Term[] = [];
  for (let n = r.u8(); n > 0; n--) {
    const field = r.u8();
    if (field === FIELD_TYPE) {
      const type = r.u8();
      if (type > 1) throw new Malformed('bad event type');
      terms.push({ field, value: Uint8Array.of(type) });
    } else if (field === FIELD_CONTRACT) {
      terms.push({ field, value: r.bytes(32) });
    } else if (field < FIELD_TOPIC0 + TOPIC_POSITIONS) {
      const value = r.bytes(r.u32());
      if (!isScVal(value)) throw new Malformed('bad topic value');
      terms.push({ field, value });
    } else {
      throw new Malformed('unknown filter field');
    }
  }
  const filters: QueryFilter[] = [];
  for (let n = r.u16(); n > 0; n--) {
    const f: QueryFilter = { type: undefined, contractId: undefined, topics: Array(TOPIC_POSITIONS).fill(undefined) };
    const count = r.u8();
    if (count === 0) throw new Malformed('empty filter');
    const fields = new Set<number>();
    for (let k = 0; k < count; k++) {
      const t = terms[r.u8()];
      if (t === undefined || fields.has(t.field)) throw new Malformed('bad filter');
      fields.add(t.field);
      if (t.field === FIELD_TYPE) f.type = t.value[0];
      else if (t.field === FIELD_CONTRACT) f.contractId = t.value;
      else f.topics[t.field - FIELD_TOPIC0] = t.value;
    }
    filters.push(f);
  }
  if (!r.done) throw new Malformed('trailing bytes');
  return { query: { descending, minLedger, maxLedger, filters }, position };
}
