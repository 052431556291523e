// Filter semantics: the reference's matching rules case by case, and a randomized comparison of the
// indexed query path against a brute-force model (every event, matched by rules written here from
// go-stellar-sdk's GetEventsRequest.Matches, windows and cursors computed as get_events.go does).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { getEvents } from '../../../src/rpc/methods/getEvents.ts';
import { matchesFilter } from '../../../src/events/eventFilter.ts';
import { parseContractEvent } from '../../../src/events/eventBytes.ts';
import type { EventFilterSpec } from '../../../src/events/types.ts';
import { FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, call, ledgerBytes } from '../methods/support/pubnet.ts';
import {
  contractEventXdr, emptyStore, eventId, expectedEvents, storeWith, sym, syntheticBatch, u32, type EventsStore, type ExpectedEvent,
} from './support.ts';

const enc = (v: xdr.ScValWire) => xdr.ScVal.schema.encode(v);

describe('matching rules (GetEventsRequest.Matches)', () => {
  const c1 = new Uint8Array(32).fill(1);
  const c2 = new Uint8Array(32).fill(2);
  const e = parseContractEvent(contractEventXdr(c1, [sym('transfer'), u32(1), u32(2)], u32(0)));
  const sys = parseContractEvent(contractEventXdr(null, [sym('core')], u32(0), 0));
  const f = (x: Partial<EventFilterSpec>): EventFilterSpec => ({ types: [], contractIds: [], topics: [], ...x });
  const t = (segs: Array<xdr.ScValWire | null>, flexible = false) => ({ segments: segs.map((s) => (s ? enc(s) : null)), flexible });

  test('empty dimensions match anything', () => {
    assert.ok(matchesFilter(e, f({})));
    assert.ok(matchesFilter(sys, f({})));
  });
  test('type list', () => {
    assert.ok(matchesFilter(e, f({ types: [1] })));
    assert.ok(!matchesFilter(e, f({ types: [0] })));
    assert.ok(matchesFilter(sys, f({ types: [0, 1] })));
  });
  test('contract ids: any listed; an event without a contract never matches a list', () => {
    assert.ok(matchesFilter(e, f({ contractIds: [c2, c1] })));
    assert.ok(!matchesFilter(e, f({ contractIds: [c2] })));
    assert.ok(!matchesFilter(sys, f({ contractIds: [c1] })));
  });
  test('topic patterns: exact length without **, at least the prefix with it, * matches one', () => {
    const yes = [
      t([sym('transfer'), null, null]), t([null, u32(1), u32(2)]), t([sym('transfer')], true), t([], true),
      t([sym('transfer'), u32(1), u32(2)], true), t([null, null, null], true),
    ];
    const no = [
      t([sym('transfer')]), t([sym('transfer'), null]), t([sym('transfer'), null, null, null]), t([null, null, null, null], true),
      t([sym('mint'), null, null]), t([sym('transfer'), u32(2), null]),
    ];
    for (const p of yes) assert.ok(matchesFilter(e, f({ topics: [p] })), JSON.stringify(p));
    for (const p of no) assert.ok(!matchesFilter(e, f({ topics: [p] })), JSON.stringify(p));
    assert.ok(matchesFilter(e, f({ topics: [no[0], yes[0]] })), 'any pattern');
  });
  test('all dimensions of one filter must hold', () => {
    assert.ok(!matchesFilter(e, f({ contractIds: [c1], topics: [t([sym('mint'), null, null])] })));
    assert.ok(matchesFilter(e, f({ types: [1], contractIds: [c1], topics: [t([sym('transfer'), null, null])] })));
  });
});

// ---------------------------------------------------------------------------------------------

/** A seeded PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

interface RawFilter { type?: string; contractIds?: string[]; topics?: string[][] }

/** The reference's matching over the test's own event records (base64 topics, strkey contracts). */
function modelMatches(e: ExpectedEvent, filters: RawFilter[]): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) => {
    if (f.type && !f.type.split(',').includes(e.type)) return false;
    if (f.contractIds?.length && !f.contractIds.includes(e.contractId)) return false;
    if (!f.topics?.length) return true;
    return f.topics.some((segs) => {
      const flexible = segs[segs.length - 1] === '**';
      const fixed = flexible ? segs.slice(0, -1) : segs;
      if (flexible ? e.topic.length < fixed.length : e.topic.length !== fixed.length) return false;
      return fixed.every((s, i) => s === '*' || s === e.topic[i]);
    });
  });
}

const MAX_CURSOR_TAIL = (ledger: number) => eventId(ledger, 1048575, 4095, 4294967295);

/**
 * `count` random getEvents requests (filters drawn from the events themselves, windows, cursors,
 * limits, both orders) against a model computed over `all` (every stored event, id order).
 */
async function randomized(ctx: EventsStore['ctx'], all: ExpectedEvent[], first: number, last: number, seed: number, count: number): Promise<number> {
  const r = rng(seed);
  const contracts = [...new Set(all.map((e) => e.contractId).filter((c) => c !== ''))];
  const randomFilter = (): RawFilter => {
    const f: RawFilter = {};
    if (r.next() < 0.2) f.type = r.pick(['contract', 'system', 'contract,system']);
    if (r.next() < 0.4) {
      f.contractIds = Array.from({ length: 1 + r.int(3) }, () => (r.next() < 0.9 ? r.pick(contracts) : StrKey.encodeContract(Buffer.alloc(32, r.int(256)))));
    }
    if (r.next() < 0.7) {
      f.topics = Array.from({ length: 1 + r.int(3) }, () => {
        const model = r.pick(all).topic;
        if (r.next() < 0.05) return ['**'];
        const n = Math.max(1, Math.min(4, model.length - (r.next() < 0.3 ? r.int(2) : 0)));
        const segs = Array.from({ length: n }, (_, i) => {
          const x = r.next();
          if (x < 0.35) return '*';
          if (x < 0.45) return r.pick(all).topic[i] ?? '*';
          return model[i] ?? '*';
        });
        if (r.next() < 0.3) segs.push('**');
        return segs;
      });
    }
    return f;
  };
  let nonEmpty = 0;
  const ledgers = last - first + 1;
  for (let q = 0; q < count; q++) {
    const filters = Array.from({ length: r.int(4) }, randomFilter);
    const desc = r.next() < 0.3;
    const limit = 1 + r.int(r.next() < 0.5 ? 10 : 300);
    const useCursor = r.next() < 0.4;
    const params: Record<string, unknown> = { filters, pagination: { limit, ...(desc ? { order: 'desc' } : {}) } };
    let startId: string;             // asc: inclusive lower bound; desc: exclusive upper bound
    let endLedger = last + 1;
    let lowLedger = first;
    if (useCursor) {
      const c = r.next() < 0.8 ? r.pick(all).id : MAX_CURSOR_TAIL(first + r.int(ledgers));
      (params.pagination as Record<string, unknown>).cursor = c;
      startId = c;
    } else {
      const start = first + r.int(ledgers);
      params.startLedger = start;
      if (r.next() < 0.4) endLedger = Math.min(endLedger, params.endLedger = start + r.int(Math.max(6, ledgers >> 2)) as number);
      startId = eventId(start, 0, 0, 0);
      lowLedger = start;
    }
    const matched = all.filter((e) => modelMatches(e, filters));
    let window: ExpectedEvent[];
    if (!desc) {
      // after the cursor (its event index + 1) or from the start ledger, before endLedger
      window = matched.filter((e) => (useCursor ? e.id > startId : e.id >= startId) && e.ledger < endLedger);
    } else {
      const upper = useCursor ? startId : eventId(endLedger, 0, 0, 0);
      window = matched.filter((e) => e.id < upper && e.ledger >= lowLedger).reverse();
    }
    const expectIds = window.slice(0, limit).map((e) => e.id);
    const page = await call(getEvents, params, ctx);
    const label = `request ${q}: ${JSON.stringify(params)}`;
    assert.deepEqual(page.events.map((e: any) => e.id), expectIds, label);
    let expectCursor: string;
    if (expectIds.length === limit) expectCursor = expectIds[limit - 1];
    else if (!desc) expectCursor = MAX_CURSOR_TAIL(endLedger - 1); // the window ends at endLedger or latest + 1
    else expectCursor = eventId(lowLedger, 0, 0, 0);
    assert.equal(page.cursor, expectCursor, label);
    if (expectIds.length > 0) nonEmpty++;
  }
  return nonEmpty;
}

describe('indexed queries equal a brute-force model (random filters, windows, cursors, orders)', () => {
  test('pubnet fixture ledgers: 600 random requests', async () => {
    const ls: Uint8Array[] = [];
    for (let s = FIRST_LEDGER; s <= LAST_LEDGER; s++) ls.push(ledgerBytes(s));
    const db = storeWith(PUBNET_PASSPHRASE, ls);
    try {
      const nonEmpty = await randomized(db.ctx, ls.flatMap(expectedEvents), FIRST_LEDGER, LAST_LEDGER, 20261121, 600);
      assert.ok(nonEmpty > 250, `${nonEmpty} requests found events`);
    } finally {
      db.close();
    }
  });

  test('synthetic ledgers over several index segments (the last one open): 600 random requests', async () => {
    // a small vocabulary, so that random filters often match: 6 contracts, 5 symbols, 12 accounts,
    // 0..6 topics (events with more than 4 topics too), system events without contract
    const r = rng(99);
    const contracts = Array.from({ length: 6 }, (_, i) => new Uint8Array(32).fill(i + 1));
    const symbols = ['transfer', 'mint', 'burn', 'fee', 'swap'].map(sym);
    const accounts = Array.from({ length: 12 }, (_, i) => u32(1000 + i));
    const db = emptyStore();
    const all: ExpectedEvent[] = [];
    try {
      const first = 2;
      const last = 2 + 5 * 128 + 40;
      for (let seq = first; seq <= last; seq++) {
        const txs = Array.from({ length: r.int(4) }, () => ({
          fee: r.next() < 0.5 ? contractEventXdr(contracts[0], [symbols[3], r.pick(accounts)], u32(1)) : undefined,
          ops: Array.from({ length: 1 + r.int(2) }, () => Array.from({ length: r.int(3) }, () => {
            const n = r.int(7);
            const topics = Array.from({ length: n }, (_, i) => (i === 0 ? r.pick(symbols) : r.pick(accounts)));
            return r.next() < 0.1 ? contractEventXdr(null, topics, u32(2), 0) : contractEventXdr(r.pick(contracts), topics, u32(3));
          })),
        }));
        const batch = syntheticBatch(seq, txs);
        db.store.ingest(batch, 120960);
        for (const e of batch.events!) {
          const x = xdr.ContractEvent.schema.decode(e.event);
          all.push({
            id: eventId(seq, e.tx, e.op, e.index), ledger: seq, type: x.type === 0 ? 'system' : 'contract',
            contractId: x.contractId ? StrKey.encodeContract(Buffer.from(x.contractId)) : '',
            operationIndex: e.op, transactionIndex: e.tx, txHash: '', inSuccessfulContractCall: true,
            topic: x.body.v0.topics.map((t) => Buffer.from(enc(t)).toString('base64')), value: '', closeTime: 0,
          });
        }
      }
      all.sort((a, b) => (a.id < b.id ? -1 : 1));
      assert.ok(all.length > 1500, `${all.length} events`);
      const nonEmpty = await randomized(db.ctx, all, first, last, 7, 600);
      assert.ok(nonEmpty > 250, `${nonEmpty} requests found events`);
    } finally {
      db.close();
    }
  });
});
