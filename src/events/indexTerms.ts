// The integer terms storage indexes events under, and the postings lists that hold them.
//
// Every event is indexed under a few integer terms: its contract id, each of its first four topics
// at its position, its type, its topic count (5 standing for "5 or more"), and two pairs that
// common filters combine: (topic 1, topic count) and (contract id, topic 1). The pairs answer
// e.g. "3-topic transfers" or "transfers of contract X" directly where the single terms are both
// frequent but rarely together. A term is a 47-bit hash of (kind, value XDR) for contract ids and
// topics, a small constant for types and counts. A hash collision only adds candidates; every
// candidate is matched exactly before it is returned.
import { EventXdrError, need, parseContractEvent, readInt32, readUint32, skipScVal, type ParsedEvent } from './eventBytes.ts';

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
export interface Postings {
  readonly ledgers: ArrayLike<number>;
  /** The positions at ledgers[i], ascending. */
  positionsAt(i: number): ArrayLike<number>;
}

/** Postings read back from a stored segment. */
export class ListPostings implements Postings {
  readonly ledgers: number[];
  readonly positions: number[][];
  constructor(ledgers: number[], positions: number[][]) { this.ledgers = ledgers; this.positions = positions; }
  positionsAt(i: number): number[] { return this.positions[i]; }
}

/**
 * A term's postings in the segment being written: every ledger's positions in one array, with where
 * each ledger's end. An open segment of 6,000-transaction ledgers holds tens of thousands of terms
 * over up to 128 ledgers: as an array per term and ledger that was millions of small objects (2.6 MB
 * of heap a ledger), which the garbage collector traced again and again; now it is three arrays a
 * term.
 */
export class GrowingPostings implements Postings {
  /** Ascending; one number per ledger. */
  readonly ledgers: number[] = [];
  /** Where each ledger's positions end in `flat`. */
  private readonly ends: number[] = [];
  private readonly flat: number[] = [];

  /** Ledgers held. */
  get count(): number { return this.ledgers.length; }
  /** A copy (queries read one or two ledgers' positions a term; the flush reads allPositions). */
  positionsAt(i: number): number[] { return this.flat.slice(this.startOf(i), this.ends[i]); }
  /** Every ledger's positions, one after another: ledger i's from startOf(i) to endOf(i). */
  get allPositions(): readonly number[] { return this.flat; }
  startOf(i: number): number { return i === 0 ? 0 : this.ends[i - 1]; }
  endOf(i: number): number { return this.ends[i]; }
  get lastLedger(): number { return this.ledgers.length === 0 ? -1 : this.ledgers[this.ledgers.length - 1]; }
  get lastPosition(): number { return this.flat.length === 0 ? -1 : this.flat[this.flat.length - 1]; }

  /** A position in a ledger after the last one held. */
  addLedger(ledger: number, position: number): void {
    this.ledgers.push(ledger);
    this.flat.push(position);
    this.ends.push(this.flat.length);
  }

  /** A position after the last one, in the last ledger. */
  addPosition(position: number): void {
    this.flat.push(position);
    this.ends[this.ends.length - 1] = this.flat.length;
  }

  /** Keeps the first `count` ledgers (a rolled-back write). */
  truncate(count: number): void {
    this.ledgers.length = count;
    this.ends.length = count;
    this.flat.length = count === 0 ? 0 : this.ends[count - 1];
  }
}


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
  const ledgers = p.ledgers;
  // an open segment's positions are read from its one array, with no view made per ledger
  const growing = p instanceof GrowingPostings ? p : undefined;
  for (let i = 0; i < ledgers.length; i++) {
    pushVarint(out, ledgers[i] - prevLedger);
    prevLedger = ledgers[i];
    const ps = growing ? growing.allPositions : p.positionsAt(i);
    const from = growing ? growing.startOf(i) : 0;
    const to = growing ? growing.endOf(i) : ps.length;
    pushVarint(out, to - from);
    let prev = 0;
    for (let k = from; k < to; k++) {
      pushVarint(out, ps[k] - prev);
      prev = ps[k];
    }
  }
  return Uint8Array.from(out);
}

export function decodePostings(b: Uint8Array, base: number): ListPostings {
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
  return new ListPostings(ledgers, positions);
}
