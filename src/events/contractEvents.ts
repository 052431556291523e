// Contract and system events as getEvents serves them: which events a ledger has and what their ids
// are (the reference's `%019d-%010d` over a TOID), the event bytes read without a full XDR decode,
// the index terms storage keeps for them, and the reference's exact filter matching.
//
// Ids (stellar-rpc db/event.go, go-stellar-sdk protocols/rpc/cursor.go): `<toid>-<event index>`,
// toid = ledger << 32 | tx << 12 | op, where for
//   - an operation's events:                   tx = application order (1-based), op = operation index (0-based),
//                                              event index = position in the operation's list;
//   - a BEFORE_ALL_TXS transaction event (fee): tx = 0, op = 0, index counted over the whole ledger;
//   - an AFTER_TX transaction event:           tx = application order, op = 4095, index counted per transaction;
//   - an AFTER_ALL_TXS transaction event (refund): tx = 1048575, op = 0, index counted over the ledger.
// Failed transactions keep their events (fees are charged anyway). Diagnostic events are not events
// here: getTransaction serves them. TransactionMeta V0-V2 carry no events, V3 carries a Soroban
// transaction's events as one operation's list, V4 carries all of the above.
import type { EventFilterSpec, EventPosition, EventRow, TransactionEvents } from './types.ts';
import { TOID_OPERATION_MASK, TOID_TRANSACTION_MASK, toidEncode } from '../ids/toid.ts';

export const TX_MASK = TOID_TRANSACTION_MASK;
export const OP_MASK = TOID_OPERATION_MASK;
export const MAX_UINT32 = 0xffffffff;
const STAGE_BEFORE_ALL_TXS = 0;
const STAGE_AFTER_TX = 1;
const STAGE_AFTER_ALL_TXS = 2;

export const CONTRACT_EVENT_TYPE_NAMES = ['system', 'contract', 'diagnostic'] as const;

// ---------------------------------------------------------------------------------------------
// Ids and cursors

/** The TOID of a position, as Go's toid.New(...).ToInt64(). */
export const positionToid = (p: Pick<EventPosition, 'ledger' | 'tx' | 'op'>): bigint =>
  toidEncode({ ledger: p.ledger, transaction: p.tx, operation: p.op });

/** `%019d-%010d`: the event id, also the cursor string. */
export function formatEventId(p: EventPosition): string {
  const toid = positionToid(p);
  const head = toid < 0n ? '-' + (-toid).toString().padStart(18, '0') : toid.toString().padStart(19, '0');
  return `${head}-${String(p.event >>> 0).padStart(10, '0')}`;
}

/** The reference's end-of-window cursor: MaxCursor with its ledger replaced. */
export const maxPositionOf = (ledger: number): EventPosition => ({ ledger, tx: TX_MASK, op: OP_MASK, event: MAX_UINT32 });

/** Orders two positions (ledger, tx, op, event), all compared as unsigned. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  return (a.ledger >>> 0) - (b.ledger >>> 0) || a.tx - b.tx || a.op - b.op || (a.event >>> 0) - (b.event >>> 0);
}

/** `tx << 12 | op`: the order of an event's (tx, op) pair inside its ledger. */
export const txOpOrder = (tx: number, op: number): number => tx * 4096 + op;

// ---------------------------------------------------------------------------------------------
// Extraction

const fromBase64 = (s: string): Uint8Array => {
  const b = Buffer.from(s, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** What extraction needs of one applied transaction. */
export interface EventSource {
  applicationOrder: number;
  events: TransactionEvents;
}

/**
 * The events of one ledger in id order, from the event lists ingestion cut out of each
 * transaction's meta (TransactionEvent XDRs carry their stage in the first 4 bytes).
 */
export function ledgerEventRows(transactions: readonly EventSource[]): EventRow[] {
  const rows: EventRow[] = [];
  let beforeAll = 0;
  let afterAll = 0;
  for (const tx of transactions) {
    const order = tx.applicationOrder;
    let afterTx = 0;
    for (const b64 of tx.events.transactionEventsXdr) {
      const bytes = fromBase64(b64);
      const stage = readInt32(bytes, 0);
      const event = bytes.subarray(4);
      switch (stage) {
        case STAGE_BEFORE_ALL_TXS: rows.push({ tx: 0, op: 0, index: beforeAll++, applicationOrder: order, event }); break;
        case STAGE_AFTER_TX: rows.push({ tx: order, op: OP_MASK, index: afterTx++, applicationOrder: order, event }); break;
        case STAGE_AFTER_ALL_TXS: rows.push({ tx: TX_MASK, op: 0, index: afterAll++, applicationOrder: order, event }); break;
        default: throw new Error(`transaction ${order}: unknown transaction event stage ${stage}`);
      }
    }
    tx.events.contractEventsXdr.forEach((list, op) => {
      list.forEach((b64, index) => rows.push({ tx: order, op, index, applicationOrder: order, event: fromBase64(b64) }));
    });
  }
  // Sorting is stable: within one (tx, op) the indexes already ascend.
  rows.sort((a, b) => txOpOrder(a.tx, a.op) - txOpOrder(b.tx, b.op) || a.index - b.index);
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Reading ContractEvent XDR in place

/** A ContractEvent's parts, as subarrays of its XDR (each topic and the value are ScVal XDR). */
export interface ParsedEvent {
  contractId: Uint8Array | null;
  type: number;             // ContractEventType: 0 system, 1 contract, 2 diagnostic
  topics: Uint8Array[];
  value: Uint8Array;
}

export class EventXdrError extends Error {}

const readInt32 = (b: Uint8Array, o: number): number => {
  if (o + 4 > b.length) throw new EventXdrError('unexpected end of event XDR');
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]);
};
const readUint32 = (b: Uint8Array, o: number): number => readInt32(b, o) >>> 0;

function need(b: Uint8Array, end: number): number {
  if (end > b.length) throw new EventXdrError('unexpected end of event XDR');
  return end;
}

const MAX_DEPTH = 200;

/** The offset just past the ScVal that starts at `o`. */
export function skipScVal(b: Uint8Array, o: number, depth = 0): number {
  if (depth > MAX_DEPTH) throw new EventXdrError('ScVal nested too deeply');
  const type = readInt32(b, o);
  o += 4;
  switch (type) {
    case 1: case 20: return o;                                   // void, ledger key contract instance
    case 0: case 3: case 4: return need(b, o + 4);               // bool, u32, i32
    case 2: case 5: case 6: case 7: case 8: case 21: return need(b, o + 8); // error, u64, i64, timepoint, duration, nonce key
    case 9: case 10: return need(b, o + 16);                     // u128, i128
    case 11: case 12: return need(b, o + 32);                    // u256, i256
    case 13: case 14: case 15: case 22: return skipOpaque(b, o);  // bytes, string, symbol, executable tag (CAP-85)
    case 16: {                                                   // vec (optional)
      if (readInt32(b, o) === 0) return o + 4;
      const n = readUint32(b, o + 4);
      o += 8;
      for (let i = 0; i < n; i++) o = skipScVal(b, o, depth + 1);
      return o;
    }
    case 17: return skipMap(b, o, depth);                        // map (optional)
    case 18: return skipAddress(b, o);
    case 19: {                                                   // contract instance: executable, storage map
      const exec = readInt32(b, o);
      o += 4;
      if (exec === 0) o = need(b, o + 32);                       // Wasm hash
      else if (exec === 2) o = skipOpaque(b, skipAddress(b, o)); // external reference (CAP-85): owner, tag
      else if (exec !== 1) throw new EventXdrError(`unknown contract executable type ${exec}`);
      return skipMap(b, o, depth);
    }
    default: throw new EventXdrError(`unknown ScVal type ${type}`);
  }
}

/** Variable-length opaque data or a string: its length, then the bytes padded to 4. */
function skipOpaque(b: Uint8Array, o: number): number {
  const n = readUint32(b, o);
  return need(b, o + 4 + n + ((4 - (n % 4)) % 4));
}

function skipMap(b: Uint8Array, o: number, depth: number): number {
  if (readInt32(b, o) === 0) return o + 4;
  const n = readUint32(b, o + 4);
  o += 8;
  for (let i = 0; i < n; i++) o = skipScVal(b, skipScVal(b, o, depth + 1), depth + 1);
  return o;
}

function skipAddress(b: Uint8Array, o: number): number {
  const type = readInt32(b, o);
  o += 4;
  switch (type) {
    case 0: case 3: return need(b, o + 36);   // account id (key type + key), claimable balance id (type + hash)
    case 1: case 4: return need(b, o + 32);   // contract id, liquidity pool id
    case 2: return need(b, o + 40);           // muxed account (id + key)
    default: throw new EventXdrError(`unknown ScAddress type ${type}`);
  }
}

/** Splits ContractEvent XDR into its parts without decoding the values. */
export function parseContractEvent(b: Uint8Array): ParsedEvent {
  let o = 0;
  if (readInt32(b, o) !== 0) throw new EventXdrError('unknown ContractEvent extension');
  o += 4;
  let contractId: Uint8Array | null = null;
  if (readInt32(b, o) !== 0) {
    contractId = b.subarray(o + 4, need(b, o + 36));
    o += 36;
  } else {
    o += 4;
  }
  const type = readInt32(b, o);
  if (readInt32(b, o + 4) !== 0) throw new EventXdrError('unknown ContractEvent body version');
  const n = readUint32(b, o + 8);
  o += 12;
  const topics: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const end = skipScVal(b, o);
    topics.push(b.subarray(o, end));
    o = end;
  }
  const end = skipScVal(b, o);
  return { contractId, type, topics, value: b.subarray(o, end) };
}

// ---------------------------------------------------------------------------------------------
// Index terms
//
// Every event is indexed under a few integer terms: its contract id, each of its first four topics
// at its position, its type, its topic count (5 standing for "5 or more"), and two pairs that
// common filters combine: (topic 1, topic count) and (contract id, topic 1). The pairs answer
// e.g. "3-topic transfers" or "transfers of contract X" directly where the single terms are both
// frequent but rarely together. A term is a 47-bit hash of (kind, value XDR) for contract ids and
// topics, a small constant for types and counts. A hash collision only adds candidates; every
// candidate is matched exactly before it is returned.

export const TYPE_TERM_BASE = 16;     // + ContractEventType
export const COUNT_TERM_BASE = 32;    // + min(topic count, 5), for counts >= 1
export const MAX_COUNT_TERM = 5;
const HASH_FLOOR = 0x10000;           // hashes never collide with the constants above

/**
 * A 47-bit hash of bytes [start, end) (then of `more`, when given) seeded by the term kind
 * (1 contract, 2..5 topic 1..4, 6..10 topic 1 with count 1..5, 11 contract with topic 1).
 */
export function termHash(kind: number, b: Uint8Array, start = 0, end = b.length, more?: Uint8Array): number {
  return termHash2(kind, b, start, end, more ?? b, 0, more ? more.length : 0);
}

/** termHash over bytes [s1, e1) of `a` followed by bytes [s2, e2) of `b`. */
function termHash2(kind: number, a: Uint8Array, s1: number, e1: number, b: Uint8Array, s2: number, e2: number): number {
  let h1 = 0xdeadbeef ^ kind;
  let h2 = 0x41c6ce57 ^ Math.imul(kind, 0x9e3779b1);
  for (let i = s1; i < e1; i++) {
    const c = a[i];
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  for (let i = s2; i < e2; i++) {
    const c = b[i];
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const h = (h1 >>> 17) * 0x100000000 + (h2 >>> 0);
  return h < HASH_FLOOR ? h + HASH_FLOOR : h;
}

export const contractTerm = (id: Uint8Array): number => termHash(1, id);
/** position: 1..4 */
export const topicTerm = (position: number, scVal: Uint8Array): number => termHash(1 + position, scVal);
export const typeTerm = (type: number): number => TYPE_TERM_BASE + type;
export const countTerm = (count: number): number => COUNT_TERM_BASE + Math.min(count, MAX_COUNT_TERM);
/** Topic 1 together with the topic count (>= 1). */
export const topic1CountTerm = (scVal: Uint8Array, count: number): number => termHash(5 + Math.min(count, MAX_COUNT_TERM), scVal);
/** Contract id together with topic 1. */
export const contractTopic1Term = (id: Uint8Array, scVal: Uint8Array): number => termHash(11, id, 0, id.length, scVal);

/**
 * The terms a ContractEvent's XDR is indexed under, read in place (the ingest path: no decoding,
 * no allocation per topic). Equal to eventTerms(parseContractEvent(b)).
 */
export function eventTermsOf(b: Uint8Array, out: number[] = []): number[] {
  out.length = 0;
  let o = 0;
  if (readInt32(b, 0) !== 0) throw new EventXdrError('unknown ContractEvent extension');
  let cs = -1;
  if (readInt32(b, 4) !== 0) {
    cs = 8;
    o = need(b, 40);
  } else {
    o = 8;
  }
  const type = readInt32(b, o);
  if (readInt32(b, o + 4) !== 0) throw new EventXdrError('unknown ContractEvent body version');
  const n = readUint32(b, o + 8);
  o += 12;
  out.push(typeTerm(type));
  if (n > 0) out.push(countTerm(n));
  if (cs >= 0) out.push(termHash2(1, b, cs, cs + 32, b, 0, 0));
  let t1s = 0;
  let t1e = 0;
  for (let i = 0; i < n; i++) {
    const end = skipScVal(b, o);
    if (i < 4) out.push(termHash2(2 + i, b, o, end, b, 0, 0));
    if (i === 0) { t1s = o; t1e = end; }
    o = end;
  }
  skipScVal(b, o); // the value must be well-formed too
  if (n > 0) {
    out.push(termHash2(5 + Math.min(n, MAX_COUNT_TERM), b, t1s, t1e, b, 0, 0));
    if (cs >= 0) out.push(termHash2(11, b, cs, cs + 32, b, t1s, t1e));
  }
  return out;
}

/** The terms one event is indexed under (no duplicates). */
export function eventTerms(e: ParsedEvent, out: number[] = []): number[] {
  out.length = 0;
  out.push(typeTerm(e.type));
  if (e.topics.length > 0) out.push(countTerm(e.topics.length));
  if (e.contractId) out.push(contractTerm(e.contractId));
  const n = Math.min(e.topics.length, 4);
  for (let i = 0; i < n; i++) out.push(topicTerm(i + 1, e.topics[i]));
  if (n > 0) {
    out.push(topic1CountTerm(e.topics[0], e.topics.length));
    if (e.contractId) out.push(contractTopic1Term(e.contractId, e.topics[0]));
  }
  return out;
}

/** Ascending non-negative integers as LEB128 deltas (the first one as is). */
export function encodePositions(positions: readonly number[]): Uint8Array {
  const out = new Uint8Array(positions.length * 3 + 8);
  let o = 0;
  let prev = 0;
  for (let i = 0; i < positions.length; i++) {
    let d = positions[i] - prev;
    prev = positions[i];
    while (d >= 0x80) {
      out[o++] = (d & 0x7f) | 0x80;
      d = Math.floor(d / 128);
    }
    out[o++] = d;
  }
  return out.slice(0, o);
}

export function decodePositions(b: Uint8Array): number[] {
  const out: number[] = [];
  let v = 0;
  let shift = 1;
  let prev = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    v += (c & 0x7f) * shift;
    if (c & 0x80) {
      shift *= 128;
    } else {
      prev += v;
      out.push(prev);
      v = 0;
      shift = 1;
    }
  }
  return out;
}

/** Where a term occurs in some ledgers: ascending ledgers, each with its ascending positions. */
export interface Postings { ledgers: number[]; positions: number[][] }

function pushVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** Postings as LEB128: per ledger, its distance from the previous one (the first from `base`), the count, the position deltas. */
export function encodePostings(p: Postings, base: number): Uint8Array {
  const out: number[] = [];
  let prevLedger = base;
  for (let i = 0; i < p.ledgers.length; i++) {
    pushVarint(out, p.ledgers[i] - prevLedger);
    prevLedger = p.ledgers[i];
    const ps = p.positions[i];
    pushVarint(out, ps.length);
    let prev = 0;
    for (const x of ps) {
      pushVarint(out, x - prev);
      prev = x;
    }
  }
  return Uint8Array.from(out);
}

export function decodePostings(b: Uint8Array, base: number): Postings {
  const ledgers: number[] = [];
  const positions: number[][] = [];
  let o = 0;
  const next = (): number => {
    let v = 0;
    let shift = 1;
    for (;;) {
      const c = b[o++];
      v += (c & 0x7f) * shift;
      if (c < 0x80) return v;
      shift *= 128;
    }
  };
  let ledger = base;
  while (o < b.length) {
    ledger += next();
    const n = next();
    const ps = new Array<number>(n);
    let prev = 0;
    for (let k = 0; k < n; k++) {
      prev += next();
      ps[k] = prev;
    }
    ledgers.push(ledger);
    positions.push(ps);
  }
  return { ledgers, positions };
}

// ---------------------------------------------------------------------------------------------
// Exact matching (go-stellar-sdk protocols/rpc GetEventsRequest.Matches)

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether an event passes one filter: its type is listed (or none is), its contract is listed (or
 * none is), and one topic pattern matches (or there is none). A pattern matches when the event has
 * exactly as many topics as segments, or at least as many when it ends with `**`, and every segment
 * is `*` or equal (ScVal equality = equal canonical XDR).
 */
export function matchesFilter(e: ParsedEvent, f: EventFilterSpec): boolean {
  if (f.types.length > 0 && !f.types.includes(e.type)) return false;
  if (f.contractIds.length > 0) {
    if (!e.contractId) return false;
    if (!f.contractIds.some((c) => bytesEqual(c, e.contractId!))) return false;
  }
  if (f.topics.length === 0) return true;
  return f.topics.some((p) => {
    const n = p.segments.length;
    if (p.flexible ? e.topics.length < n : e.topics.length !== n) return false;
    for (let i = 0; i < n; i++) {
      const s = p.segments[i];
      if (s !== null && !bytesEqual(s, e.topics[i])) return false;
    }
    return true;
  });
}

/** No filter at all matches everything; otherwise any filter may match. */
export const matchesAny = (e: ParsedEvent, filters: readonly EventFilterSpec[]): boolean =>
  filters.length === 0 || filters.some((f) => matchesFilter(e, f));
