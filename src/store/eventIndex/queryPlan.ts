// The event index's queries, whatever stores its postings: a getEvents filter list becomes an
// expression over index terms (OR of filters; per filter AND of its type list, contract list and
// topic patterns; per pattern AND of its concrete segments and its topic count). It is evaluated
// ledger by ledger as a leapfrog join: every term is a sorted stream of ledgers, an AND seeks each
// operand to the furthest ledger any of them is at, an OR takes the nearest, so only ledgers where
// the whole expression holds are visited. A PostingsSource gives a term's postings one segment of
// SEGMENT_LEDGERS ledgers at a time (the SQLite one: src/store/sqlite/eventStore.ts).
import {
  contractTerm, contractTopic1Term, countTerm, MAX_COUNT_TERM, topic1CountTerm, topicTerm, typeTerm, type Postings,
} from '../../events/indexTerms.ts';
import type { EventFilterSpec, TopicPattern } from '../../events/types.ts';

/** Ledgers per index segment. */
export const SEGMENT_LEDGERS = 128;
/** What a stream's seek answers when it has no ledger left. */
export const END = -1;

export const segmentOf = (ledger: number): number => Math.floor(ledger / SEGMENT_LEDGERS);

/** Where streams read postings: a term's, in one segment; undefined when the term is absent there. */
export interface PostingsSource {
  segmentPostings(segment: number, term: number): Postings | undefined;
}

// ---------------------------------------------------------------------------------------------
// Query plans

/** A plan that restricts nothing: the query is a plain key-range scan. */
export const ALL = 'all' as const;
export type Plan = typeof ALL | { op: 'term'; term: number } | { op: 'and' | 'or'; of: Array<Exclude<Plan, typeof ALL>> };
export type Node = Exclude<Plan, typeof ALL>;

const term = (t: number): Node => ({ op: 'term', term: t });

function and(parts: Plan[]): Plan {
  const of = parts.filter((p): p is Node => p !== ALL);
  if (of.length === 0) return ALL;
  return of.length === 1 ? of[0] : { op: 'and', of };
}

function or(parts: Plan[]): Plan {
  if (parts.length === 0 || parts.includes(ALL)) return ALL;
  const seen = new Set<number>();
  const of: Node[] = [];
  for (const p of parts as Node[]) {
    if (p.op === 'term') {
      if (seen.has(p.term)) continue;
      seen.add(p.term);
    }
    of.push(p);
  }
  return of.length === 1 ? of[0] : { op: 'or', of };
}

/**
 * One topic pattern: its concrete segments, and its length (exact, or at least the prefix with a
 * trailing `**`). With a concrete topic 1 the length goes with it as one (topic 1, count) term;
 * `contract`, when given, is ANDed in as a (contract, topic 1) term in place of topic 1's.
 */
function planPattern(p: TopicPattern, contract?: Uint8Array): Plan {
  const parts: Plan[] = [];
  const n = p.segments.length;
  const first = p.segments[0] ?? null;
  let lastConcrete = 0;
  p.segments.forEach((s, i) => {
    if (s === null) return;
    lastConcrete = i + 1;
    if (i > 0) parts.push(term(topicTerm(i + 1, s)));
  });
  // the counts an event may have: exactly n, or n and more with `**`
  const counts: number[] = [];
  if (!p.flexible) counts.push(n);
  else for (let k = Math.max(n, 1); k <= MAX_COUNT_TERM; k++) counts.push(k);
  if (first !== null) {
    if (contract) parts.push(term(contractTopic1Term(contract, first)));
    // a `**` after a concrete last segment already implies the count; topic 1 alone then suffices
    if (p.flexible && n <= lastConcrete) parts.push(contract ? ALL : term(topicTerm(1, first)));
    else parts.push(or(counts.map((k) => term(topic1CountTerm(first, k)))));
  } else {
    if (contract) parts.push(term(contractTerm(contract)));
    // (a lone `**` restricts nothing: n = 0 = lastConcrete)
    if (!p.flexible || n > lastConcrete) parts.push(or(counts.map((k) => term(countTerm(k)))));
  }
  return and(parts);
}

function planFilter(f: EventFilterSpec): Plan {
  const parts: Plan[] = [];
  if (f.types.length > 0) parts.push(or(f.types.map((t) => term(typeTerm(t)))));
  if (f.contractIds.length > 0 && f.topics.length > 0) {
    // contract x pattern pairs, so that (contract, topic 1) terms can be used
    parts.push(or(f.contractIds.flatMap((c) => f.topics.map((p) => planPattern(p, c)))));
  } else if (f.contractIds.length > 0) {
    parts.push(or(f.contractIds.map((c) => term(contractTerm(c)))));
  } else if (f.topics.length > 0) {
    parts.push(or(f.topics.map((p) => planPattern(p))));
  }
  return and(parts);
}

/** The index expression of a query; ALL when some filter (or no filter at all) admits every event. */
export function planQuery(filters: readonly EventFilterSpec[]): Plan {
  return filters.length === 0 ? ALL : or(filters.map(planFilter));
}

// ---------------------------------------------------------------------------------------------
// Streams of (ledger, positions), ascending or descending by ledger

export interface Stream {
  /** Moves to the first ledger at or past `target` (in the stream's direction) that has positions; END if none. */
  seek(target: number): number;
  /** The sorted positions at the ledger the last seek returned. */
  positions(): ArrayLike<number>;
}

/** The stream of ledgers (with positions) where `plan` holds, between ledgers lo and hi. */
export function planStream(plan: Node, source: PostingsSource, lo: number, hi: number, desc: boolean): Stream {
  switch (plan.op) {
    case 'term': return new TermStream(source, plan.term, lo, hi, desc);
    case 'and': return new AndStream(plan.of.map((p) => planStream(p, source, lo, hi, desc)), desc);
    case 'or': return new OrStream(plan.of.map((p) => planStream(p, source, lo, hi, desc)), desc);
  }
}

const NO_POSTINGS: Postings = { ledgers: [], positionsAt: () => [] };

class TermStream implements Stream {
  private readonly src: PostingsSource;
  private readonly term: number;
  private readonly lo: number;
  private readonly hi: number;
  private readonly desc: boolean;
  private segment = NaN;               // the segment loaded, NaN before the first
  private entries: Postings = NO_POSTINGS;
  private i = 0;

  constructor(src: PostingsSource, term: number, lo: number, hi: number, desc: boolean) {
    this.src = src;
    this.term = term;
    this.lo = lo;
    this.hi = hi;
    this.desc = desc;
  }

  seek(target: number): number {
    if (this.desc ? target < this.lo : target > this.hi) return END;
    const want = segmentOf(target);
    for (;;) {
      if (this.segment === want || (!Number.isNaN(this.segment) && (this.desc ? this.segment < want : this.segment > want))) {
        // scan the loaded segment from the current entry
        const ls = this.entries.ledgers;
        while (this.i >= 0 && this.i < ls.length) {
          const l = ls[this.i];
          if (this.desc ? l <= target : l >= target) {
            if (this.desc ? l < this.lo : l > this.hi) return END;
            return l;
          }
          this.i += this.desc ? -1 : 1;
        }
      }
      // next segment: the target's, or the one after the loaded one
      let next = Number.isNaN(this.segment) ? want : this.segment + (this.desc ? -1 : 1);
      if (this.desc ? next > want : next < want) next = want;
      if (this.desc ? next < segmentOf(this.lo) : next > segmentOf(this.hi)) return END;
      this.segment = next;
      this.entries = this.src.segmentPostings(next, this.term) ?? NO_POSTINGS;
      this.i = this.desc ? this.entries.ledgers.length - 1 : 0;
    }
  }

  positions(): ArrayLike<number> { return this.entries.positionsAt(this.i); }
}

class AndStream implements Stream {
  private readonly of: Stream[];
  private readonly step: number;
  private current: ArrayLike<number> = [];

  constructor(of: Stream[], desc: boolean) {
    this.of = of;
    this.step = desc ? -1 : 1;
  }

  seek(target: number): number {
    let at = target;
    for (;;) {
      let agreed = true;
      for (const s of this.of) {
        const l = s.seek(at);
        if (l === END) return END;
        if (l !== at) {
          at = l;
          agreed = false;
          break;
        }
      }
      if (!agreed) continue;
      let ps = this.of[0].positions();
      for (let k = 1; k < this.of.length && ps.length > 0; k++) ps = intersect(ps, this.of[k].positions());
      if (ps.length > 0) {
        this.current = ps;
        return at;
      }
      at += this.step;
    }
  }

  positions(): ArrayLike<number> { return this.current; }
}

class OrStream implements Stream {
  private readonly of: Stream[];
  private readonly desc: boolean;
  private readonly at: number[];
  private current: ArrayLike<number> = [];

  constructor(of: Stream[], desc: boolean) {
    this.of = of;
    this.desc = desc;
    this.at = of.map(() => END);
  }

  seek(target: number): number {
    let best = END;
    for (let k = 0; k < this.of.length; k++) {
      const l = this.of[k].seek(target);
      this.at[k] = l;
      if (l !== END && (best === END || (this.desc ? l > best : l < best))) best = l;
    }
    if (best === END) return END;
    let ps: ArrayLike<number> | undefined;
    for (let k = 0; k < this.of.length; k++) {
      if (this.at[k] !== best) continue;
      ps = ps === undefined ? this.of[k].positions() : union(ps, this.of[k].positions());
    }
    this.current = ps!;
    return best;
  }

  positions(): ArrayLike<number> { return this.current; }
}

function intersect(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { out.push(a[i]); i++; j++; } else if (a[i] < b[j]) i++; else j++;
  }
  return out;
}

function union(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else if (i >= a.length || b[j] < a[i]) out.push(b[j++]);
    else { out.push(a[i]); i++; j++; }
  }
  return out;
}

