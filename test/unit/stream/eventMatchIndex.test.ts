// EventMatchIndex against a brute-force model: random filters (contract ids, topic patterns with
// wildcards and `**`, types, and combinations) over random events; the index must give exactly the
// subscribers whose filters match, as a scan of every subscriber with the getEvents rules (written
// again here, independently) does. Also: removal, re-adding, and that candidates are narrowed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ParsedEvent } from '../../../src/events/eventBytes.ts';
import type { EventFilterSpec, TopicPattern } from '../../../src/events/types.ts';
import { EventMatchIndex } from '../../../src/stream/eventMatchIndex.ts';

/** A small deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONTRACTS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i));
const VALUES = [10, 11, 12].map((i) => new Uint8Array([0, 0, 0, i]));

function model(e: ParsedEvent, filters: readonly EventFilterSpec[]): boolean {
  if (filters.length === 0) return true;
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
  return filters.some((f) => {
    if (f.types.length && !f.types.includes(e.type)) return false;
    if (f.contractIds.length && !(e.contractId && f.contractIds.some((c) => same(c, e.contractId!)))) return false;
    if (!f.topics.length) return true;
    return f.topics.some((p) => {
      if (p.flexible ? e.topics.length < p.segments.length : e.topics.length !== p.segments.length) return false;
      return p.segments.every((s, i) => s === null || same(s, e.topics[i]));
    });
  });
}

function randomFilters(r: () => number): EventFilterSpec[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const n = Math.floor(r() * 3); // 0..2 filters (0: everything)
  return Array.from({ length: n }, () => {
    const types = r() < 0.3 ? [pick([0, 1])] : [];
    const contractIds = r() < 0.5 ? Array.from({ length: 1 + Math.floor(r() * 2) }, () => pick(CONTRACTS)) : [];
    const topics: TopicPattern[] = r() < 0.6 ? Array.from({ length: 1 + Math.floor(r() * 2) }, () => ({
      segments: Array.from({ length: Math.floor(r() * 3) }, () => (r() < 0.3 ? null : pick(VALUES))),
      flexible: r() < 0.4,
    })) : [];
    return { types, contractIds, topics };
  });
}

function randomEvent(r: () => number): ParsedEvent {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  return {
    contractId: r() < 0.85 ? pick(CONTRACTS) : null,
    type: pick([0, 1, 1]),
    topics: Array.from({ length: Math.floor(r() * 4) }, () => pick(VALUES)),
    value: new Uint8Array([1]),
  };
}

describe('EventMatchIndex', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`matches exactly what a scan of every subscriber does (seed ${seed})`, () => {
      const r = rng(seed);
      const index = new EventMatchIndex<number>();
      const subs = new Map<number, EventFilterSpec[]>();
      for (let i = 0; i < 300; i++) {
        const f = randomFilters(r);
        subs.set(i, f);
        index.add(i, f);
      }
      // some leave, some change their filters
      for (let i = 0; i < 300; i += 7) { index.remove(i); subs.delete(i); }
      for (let i = 1; i < 300; i += 11) {
        if (!subs.has(i)) continue;
        const f = randomFilters(r);
        subs.set(i, f);
        index.add(i, f);
      }
      assert.equal(index.size, subs.size);
      let matched = 0;
      for (let k = 0; k < 2000; k++) {
        const e = randomEvent(r);
        const expected = [...subs].filter(([, f]) => model(e, f)).map(([i]) => i).sort((a, b) => a - b);
        const got = index.match(e).sort((a, b) => a - b);
        assert.deepEqual(got, expected, `event ${k}`);
        matched += got.length;
      }
      assert.ok(matched > 0, 'the random cases do match something');
    });
  }

  it('empties when every subscriber left', () => {
    const index = new EventMatchIndex<string>();
    index.add('a', []);
    index.add('b', [{ types: [], contractIds: [CONTRACTS[0]], topics: [] }]);
    index.remove('a');
    index.remove('b');
    index.remove('b');
    assert.equal(index.size, 0);
    assert.deepEqual(index.match({ contractId: CONTRACTS[0], type: 1, topics: [], value: new Uint8Array() }), []);
  });

  it('checks only the subscribers filed under the event\'s contract, topic or type', () => {
    const index = new EventMatchIndex<number>();
    let checks = 0;
    // a filter whose matching is observed: every exact check reads its `types` once
    const counted = (contract: Uint8Array): EventFilterSpec => {
      const f = { contractIds: [contract], topics: [] } as unknown as EventFilterSpec;
      Object.defineProperty(f, 'types', { get() { checks++; return []; } });
      return f;
    };
    for (let i = 0; i < 1000; i++) index.add(i, [counted(i === 0 ? CONTRACTS[0] : CONTRACTS[1 + (i % 3)])]);
    const got = index.match({ contractId: CONTRACTS[0], type: 1, topics: [], value: new Uint8Array() });
    assert.deepEqual(got, [0]);
    assert.equal(checks, 1);
  });
});
