// queryEvents on synthetic ledgers written through the store's ingestion writer: random queries
// (both orders, bounds, filters, limits) paged to their end against a model computed here from the
// events as written; every scanStatus, scannedLedger, the 10,000-ledger page window, cursors reused
// after new ledgers and after the window moved, the answer budget, each error reason and its data,
// and the result's fields and JSON types.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { Dispatcher } from '../../../src/rpc/jsonrpc.ts';
import { resultText } from '../../../src/rpc/rawJson.ts';
import { queryEvents } from '../../../src/rpc/methods/queryEvents.ts';
import { assertShape, call, callError, testCall } from './support/pubnet.ts';
import { contractEventXdr, emptyStore, eventId, sym, syntheticBatch, txHashOf, u32, type EventsStore, type SyntheticTx } from '../events/support.ts';

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const scB64 = (v: xdr.ScValWire): string => b64(xdr.ScVal.schema.encode(v));

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelEvent { id: string; ledger: number; type: string; contractId: string; topics: string[]; txHash: string }
interface Filter { type?: string; contractId?: string; topic0?: string; topic1?: string; topic2?: string; topic3?: string }

const CONTRACTS = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));
const TOPIC_VALUES: xdr.ScValWire[] = [sym('transfer'), sym('mint'), u32(1), u32(2)];

/** Random ledgers: 0-3 transactions, each with up to 2 operations of up to 3 events (0-5 topics), some with a fee event. */
function world(first: number, last: number, seed: number): { batches: ReturnType<typeof syntheticBatch>[]; events: ModelEvent[] } {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const event = (): Uint8Array => {
    const topics = Array.from({ length: Math.floor(r() * 6) }, () => pick(TOPIC_VALUES));
    const system = r() < 0.15;
    return contractEventXdr(r() < 0.1 ? null : pick(CONTRACTS), topics, u32(Math.floor(r() * 100)), system ? 0 : 1);
  };
  const batches = [];
  const events: ModelEvent[] = [];
  for (let seq = first; seq <= last; seq++) {
    const txs: SyntheticTx[] = Array.from({ length: Math.floor(r() * 4) }, () => ({
      ops: Array.from({ length: 1 + Math.floor(r() * 2) }, () => Array.from({ length: Math.floor(r() * 4) }, event)),
      fee: r() < 0.5 ? event() : undefined,
    }));
    const batch = syntheticBatch(seq, txs);
    batches.push(batch);
    for (const e of batch.events!) {
      const x = xdr.ContractEvent.schema.decode(e.event);
      events.push({
        id: eventId(seq, e.tx, e.op, e.index), ledger: seq, type: x.type === 0 ? 'system' : 'contract',
        contractId: x.contractId ? StrKey.encodeContract(Buffer.from(x.contractId)) : '',
        topics: x.body.v0.topics.map((t) => scB64(t)), txHash: txHashOf(seq, e.applicationOrder),
      });
    }
  }
  events.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { batches, events };
}

/** The specification's matching, written independently of ours. */
function matches(e: ModelEvent, filters: Filter[] | undefined): boolean {
  if (!filters) return true;
  return filters.some((f) => (f.type === undefined || f.type === e.type)
    && (f.contractId === undefined || f.contractId === e.contractId)
    && [f.topic0, f.topic1, f.topic2, f.topic3].every((t, p) => t === undefined || e.topics[p] === t));
}

function randomFilters(r: () => number): Filter[] | undefined {
  if (r() < 0.25) return undefined;
  return Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    const f: Filter = {};
    if (r() < 0.3) f.type = r() < 0.3 ? 'system' : 'contract';
    if (r() < 0.4) f.contractId = StrKey.encodeContract(Buffer.from(CONTRACTS[Math.floor(r() * 3)]));
    for (const p of [0, 1, 2, 3] as const) if (r() < 0.3) f[`topic${p}`] = scB64(TOPIC_VALUES[Math.floor(r() * TOPIC_VALUES.length)]);
    if (Object.keys(f).length === 0) f.topic0 = scB64(TOPIC_VALUES[0]);
    return f;
  });
}

interface Walk { ids: string[]; pages: any[] }

/** Pages a query with cursors until it stops (COMPLETE, WAITING_FOR_LEDGERS, OLDEST_REACHED), checking every page on the way. */
async function walk(db: EventsStore, params: Record<string, unknown>, limit: number, budgetBytes = 0): Promise<Walk> {
  const ids: string[] = [];
  const pages: any[] = [];
  let p: Record<string, unknown> = { ...params, limit };
  for (let i = 0; i < 10_000; i++) {
    const page = JSON.parse(resultText(await queryEvents.handler(p, db.ctx, testCall(undefined, budgetBytes))));
    pages.push(page);
    assert.ok(page.events.length <= limit);
    for (const e of page.events) ids.push(e.id);
    if (page.scanStatus === 'COMPLETE') {
      assert.equal(page.cursor, undefined, 'no cursor once complete');
      return { ids, pages };
    }
    assert.equal(typeof page.cursor, 'string');
    if (page.scanStatus !== 'HAS_MORE') return { ids, pages };
    p = { cursor: page.cursor, limit };
  }
  assert.fail('no end');
}

describe('random queries against the model (ledgers 2..400)', () => {
  let db: EventsStore;
  let model: ModelEvent[];
  before(() => {
    db = emptyStore();
    const w = world(2, 400, 1);
    for (const b of w.batches) db.store.ingest(b, 120960);
    model = w.events;
  });
  after(() => db.close());

  test('150 queries: both orders, with and without bounds, paged with random limits', async () => {
    const r = prng(99);
    let nonEmpty = 0;
    for (let q = 0; q < 150; q++) {
      const descending = r() < 0.5;
      const a = 2 + Math.floor(r() * 420);
      const b = 2 + Math.floor(r() * 420);
      const min = Math.min(a, b);
      const max = r() < 0.5 ? Math.max(a, b) : undefined;
      const filters = randomFilters(r);
      const params: Record<string, unknown> = { minLedger: descending && r() < 0.3 ? undefined : min, maxLedger: max, filters };
      if (descending) params.order = 'desc';
      for (const k of Object.keys(params)) if (params[k] === undefined) delete params[k];
      const lo = (params.minLedger as number | undefined) ?? 2;
      const hi = Math.min(max ?? 400, 400);
      if (descending && max === undefined && lo > 400) {
        const e = await callError(queryEvents, params, db.ctx);
        assert.deepEqual(e.data, { reason: 'ledger_out_of_range', missingLedger: lo, oldestLedger: 2, latestLedger: 400 });
        continue;
      }
      // a descending scan starts only once its top edge has closed
      const topOpen = descending && max !== undefined && max > 400;
      let expected = topOpen ? [] : model.filter((e) => e.ledger >= lo && e.ledger <= hi && matches(e, filters));
      if (descending) expected = expected.reverse();
      const limit = 1 + Math.floor(r() * 15);
      const { ids, pages } = await walk(db, params, limit);
      assert.deepEqual(ids, expected.map((e) => e.id), JSON.stringify(params));
      if (ids.length > 0) nonEmpty++;
      // the end: COMPLETE when the range is closed and stored; else the scan waits for ledgers
      const last = pages.at(-1);
      const waits = topOpen || (!descending && (max === undefined || max > 400));
      assert.equal(last.scanStatus, waits ? 'WAITING_FOR_LEDGERS' : 'COMPLETE', JSON.stringify(params));
      // scannedLedger: no later page holds an event at or beyond it
      for (let i = 0; i < pages.length; i++) {
        const s = pages[i].scannedLedger;
        for (const later of pages.slice(i + 1)) {
          for (const e of later.events) assert.ok(descending ? e.ledger < s : e.ledger > s, `event of ${e.ledger} after scannedLedger ${s}`);
        }
      }
      assert.equal(last.scannedLedger, topOpen ? max! + 1 : descending ? lo : waits ? 400 : hi);
    }
    assert.ok(nonEmpty > 100, `${nonEmpty} of 150 queries found events`);
  });

  test('every event field, pagingToken = id, events without inSuccessfulContractCall; json format', async () => {
    const page = await call(queryEvents, { minLedger: 2, maxLedger: 50, limit: 30 }, db.ctx);
    assert.deepEqual(Object.keys(page), ['events', 'cursor', 'scanStatus', 'scannedLedger', 'oldestLedger', 'latestLedger']);
    assertShape(page, { events: 'array', cursor: 'string', scanStatus: 'string', scannedLedger: 'number', oldestLedger: 'number', latestLedger: 'number' });
    assert.equal(page.events.length, 30);
    const byId = new Map(model.map((e) => [e.id, e]));
    for (const e of page.events) {
      assert.deepEqual(Object.keys(e), ['type', 'ledger', 'ledgerClosedAt', 'contractId', 'id', 'pagingToken', 'operationIndex', 'transactionIndex', 'txHash', 'topic', 'value']);
      const m = byId.get(e.id)!;
      assert.deepEqual({ type: e.type, ledger: e.ledger, contractId: e.contractId, topic: e.topic, txHash: e.txHash, pagingToken: e.pagingToken },
        { type: m.type, ledger: m.ledger, contractId: m.contractId, topic: m.topics, txHash: m.txHash, pagingToken: m.id });
      assert.equal(e.ledgerClosedAt, new Date((1_700_000_000 + e.ledger * 5) * 1000).toISOString().replace('.000Z', 'Z'));
    }
    const json = await call(queryEvents, { minLedger: 2, maxLedger: 50, limit: 30, xdrFormat: 'json' }, db.ctx);
    json.events.forEach((e: any, i: number) => {
      assert.deepEqual(Object.keys(e), ['type', 'ledger', 'ledgerClosedAt', 'contractId', 'id', 'pagingToken', 'operationIndex', 'transactionIndex', 'txHash', 'topicJson', 'valueJson']);
      assert.deepEqual(e.topicJson, page.events[i].topic.map((t: string) => xdr.ScVal.fromXdr(Buffer.from(t, 'base64')).toJson()));
      assert.deepEqual(e.valueJson, xdr.ScVal.fromXdr(Buffer.from(page.events[i].value, 'base64')).toJson());
    });
    // limit and xdrFormat are not in the cursor: each request sends its own
    const next = await call(queryEvents, { cursor: page.cursor, limit: 2, xdrFormat: 'json' }, db.ctx);
    assert.equal(next.events.length, 2);
    assert.ok('topicJson' in next.events[0]);
  });

  test('pages cut by the answer budget continue where they stopped', async () => {
    const params = { minLedger: 2, maxLedger: 400, order: 'desc' };
    const whole = await walk(db, params, 1000);
    const cut = await walk(db, params, 1000, 4000);
    assert.ok(cut.pages.length > whole.pages.length * 3, `${cut.pages.length} pages`);
    assert.deepEqual(cut.ids, whole.ids);
    assert.equal(cut.pages.at(-1).scanStatus, 'COMPLETE');
  });

  test('errors: each reason and its data', async () => {
    const err = async (params: Record<string, unknown>) => { const e = await callError(queryEvents, params, db.ctx); return { code: e.code, data: e.data }; };
    assert.deepEqual(await err({ order: 'desc', minLedger: 401 }), { code: -32602, data: { reason: 'ledger_out_of_range', missingLedger: 401, oldestLedger: 2, latestLedger: 400 } });
    assert.deepEqual(await err({ cursor: 'qe1_AAAA' }), { code: -32602, data: { reason: 'cursor_malformed', oldestLedger: 2, latestLedger: 400 } });
    assert.deepEqual(await err({ minLedger: 2, limit: 5000 }), { code: -32602, data: { reason: 'invalid_params' } });
    // what the dispatcher refuses before the handler (positional params, types) carries the reason too
    const d = new Dispatcher({ methods: [queryEvents], ctx: db.ctx });
    const refused = async (params: unknown) => ((await d.handleToValue({ jsonrpc: '2.0', id: 1, method: 'queryEvents', params })) as any).error;
    assert.deepEqual(await refused([2]), { code: -32602, message: 'invalid parameters: params must be an object; positional (array) params are not supported', data: { reason: 'invalid_params' } });
    assert.deepEqual(await refused({ minLedger: '2' }), { code: -32602, message: 'invalid parameters: params.minLedger must be integer', data: { reason: 'invalid_params' } });
    assert.deepEqual(await refused({ minLedger: 2, filters: [{ topic0: 5 }] }), { code: -32602, message: 'invalid parameters: params.filters[0].topic0 must be string', data: { reason: 'invalid_params' } });
    // null members are dropped first, as for every method: the same as absent
    assert.equal(((await d.handleToValue({ jsonrpc: '2.0', id: 1, method: 'queryEvents', params: { minLedger: 390, filters: null, cursor: null } })) as any).result.scanStatus, 'WAITING_FOR_LEDGERS');
  });
});

describe('the stored window moving, new ledgers, and the 10,000-ledger page window', () => {
  let db: EventsStore;
  const contract = new Uint8Array(32).fill(9);
  const ev = (n: number) => contractEventXdr(contract, [sym('tick'), u32(n)], u32(n));
  const ledgerOf = (id: string): number => Number(BigInt(id.split('-')[0]) >> 32n);
  // events only in ledgers 2, 100, 10001, 10002 and the last
  const busy = (seq: number, last: number) => (seq === 2 || seq === 100 || seq === 10001 || seq === 10002 || seq === last ? [{ ops: [[ev(seq)]] }] : []);
  before(() => {
    db = emptyStore();
    for (let seq = 2; seq <= 10206; seq++) db.store.ingest(syntheticBatch(seq, busy(seq, 10206)), 120960);
  });
  after(() => db.close());

  test('a page scans at most 10,000 ledgers, ascending and descending, and says how far it got', async () => {
    const up = await call(queryEvents, { minLedger: 2 }, db.ctx);
    assert.deepEqual(up.events.map((e: any) => e.ledger), [2, 100, 10001]);
    assert.deepEqual([up.scanStatus, up.scannedLedger], ['HAS_MORE', 10001]);
    const up2 = await call(queryEvents, { cursor: up.cursor }, db.ctx);
    assert.deepEqual(up2.events.map((e: any) => e.ledger), [10002, 10206]);
    assert.deepEqual([up2.scanStatus, up2.scannedLedger], ['WAITING_FOR_LEDGERS', 10206]);
    const down = await call(queryEvents, { order: 'desc' }, db.ctx);
    assert.deepEqual(down.events.map((e: any) => e.ledger), [10206, 10002, 10001]);
    assert.deepEqual([down.scanStatus, down.scannedLedger], ['HAS_MORE', 207]);
    const down2 = await call(queryEvents, { cursor: down.cursor }, db.ctx);
    assert.deepEqual(down2.events.map((e: any) => e.ledger), [100, 2]);
    assert.deepEqual([down2.scanStatus, down2.scannedLedger, down2.cursor], ['COMPLETE', 2, undefined]);
    // an empty page still moves on
    const sparse = await call(queryEvents, { minLedger: 10003, maxLedger: 10205 }, db.ctx);
    assert.deepEqual([sparse.events, sparse.scanStatus, sparse.scannedLedger], [[], 'COMPLETE', 10205]);
    // a full page inside a ledger: scannedLedger is the ledger before
    const one = await call(queryEvents, { minLedger: 100, limit: 1 }, db.ctx);
    assert.deepEqual([one.events[0].ledger, one.scanStatus, one.scannedLedger], [100, 'HAS_MORE', 99]);
  });

  test('before ledgers close: waiting pages, then the same cursors return what arrived', async () => {
    // descending with its top edge not closed yet; ascending from a future ledger; ascending without end
    const top = await call(queryEvents, { order: 'desc', minLedger: 10100, maxLedger: 10210 }, db.ctx);
    assert.deepEqual([top.events, top.scanStatus, top.scannedLedger], [[], 'WAITING_FOR_LEDGERS', 10211]);
    const future = await call(queryEvents, { minLedger: 10209 }, db.ctx);
    assert.deepEqual([future.events, future.scanStatus, future.scannedLedger], [[], 'WAITING_FOR_LEDGERS', 10208]);
    const open = await call(queryEvents, { minLedger: 10150, filters: [{ contractId: StrKey.encodeContract(Buffer.from(contract)) }] }, db.ctx);
    assert.deepEqual([open.events.map((e: any) => e.ledger), open.scanStatus], [[10206], 'WAITING_FOR_LEDGERS']);
    // the same cursor again, nothing new: the same answer
    assert.deepEqual(await call(queryEvents, { cursor: open.cursor }, db.ctx), { ...open, events: [] });
    for (let seq = 10207; seq <= 10212; seq++) db.store.ingest(syntheticBatch(seq, [{ ops: [[ev(seq)]] }]), 120960);
    const more = await call(queryEvents, { cursor: open.cursor }, db.ctx);
    assert.deepEqual([more.events.map((e: any) => e.ledger), more.scanStatus, more.latestLedger], [[10207, 10208, 10209, 10210, 10211, 10212], 'WAITING_FOR_LEDGERS', 10212]);
    const topNow = await call(queryEvents, { cursor: top.cursor }, db.ctx);
    assert.deepEqual([topNow.events.map((e: any) => e.ledger), topNow.scanStatus], [[10210, 10209, 10208, 10207, 10206], 'COMPLETE']);
    const futureNow = await call(queryEvents, { cursor: future.cursor }, db.ctx);
    assert.deepEqual(futureNow.events.map((e: any) => e.ledger), [10209, 10210, 10211, 10212]);
  });

  test('the window moves on: OLDEST_REACHED below it, ledger_out_of_range for ascending positions under it', async () => {
    const down = await call(queryEvents, { order: 'desc', maxLedger: 10003, limit: 1 }, db.ctx);
    assert.deepEqual(down.events.map((e: any) => e.ledger), [10002]);
    const up = await call(queryEvents, { minLedger: 2, limit: 1 }, db.ctx);
    assert.equal(up.scanStatus, 'HAS_MORE');
    // retention 10,100: ledger 10213 trims everything below 114
    db.store.ingest(syntheticBatch(10213, []), 10100);
    const oldest = (await call(queryEvents, { minLedger: 10213 }, db.ctx)).oldestLedger;
    assert.equal(oldest, 114);
    const rest = await walk(db, { cursor: down.cursor }, 10);
    assert.deepEqual(rest.ids.map(ledgerOf), [10001]);
    const end = rest.pages.at(-1);
    assert.deepEqual([end.scanStatus, end.scannedLedger], ['OLDEST_REACHED', 114]);
    const again = await call(queryEvents, { cursor: end.cursor }, db.ctx);
    assert.deepEqual([again.events, again.scanStatus, again.cursor], [[], 'OLDEST_REACHED', end.cursor], 'resent: the same status');
    // a descending query whose minLedger is stored ends COMPLETE instead
    const stored = await walk(db, { order: 'desc', minLedger: 114, maxLedger: 10003 }, 10);
    assert.equal(stored.pages.at(-1).scanStatus, 'COMPLETE');
    const e = await callError(queryEvents, { cursor: up.cursor }, db.ctx);
    assert.deepEqual(e.data, { reason: 'ledger_out_of_range', missingLedger: 2, oldestLedger: 114, latestLedger: 10213 });
    const e2 = await callError(queryEvents, { minLedger: 113, maxLedger: 200 }, db.ctx);
    assert.deepEqual(e2.data, { reason: 'ledger_out_of_range', missingLedger: 113, oldestLedger: 114, latestLedger: 10213 });
  });
});

test('an empty store: -32603 "DB is empty" after the params are checked', async () => {
  const db = emptyStore();
  try {
    const e = await callError(queryEvents, { minLedger: 2 }, db.ctx);
    assert.deepEqual([e.code, e.message], [-32603, 'DB is empty']);
    assert.deepEqual((await callError(queryEvents, {}, db.ctx)).data, { reason: 'invalid_params' });
  } finally {
    db.close();
  }
});
