// getEvents request semantics: every validation message and code, the window (startLedger,
// exclusive endLedger, the 10,000-ledger scan limit), limits, cursors (incl. the end-of-window
// cursor and the event-index wrap), result fields and JSON types, xdrFormat json, and the extras
// (descending order, txHash).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { getEvents } from '../../../src/rpc/methods/getEvents.ts';
import { formatEventId, maxPositionOf } from '../../../src/events/eventIds.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, assertRpcError, assertShape, call, callError, ledgerBytes,
} from '../methods/support/pubnet.ts';
import {
  comparable, contractEventXdr, emptyStore, eventId, expectedEvents, storeWith, sym, syntheticBatch, txHashOf, u32,
  type EventsStore,
} from './support.ts';

const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;
const TRANSFER = Buffer.from(xdr.ScVal.schema.encode(sym('transfer'))).toString('base64');
const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 1));

describe('on the pubnet fixture ledgers', () => {
  let db: EventsStore;
  before(() => {
    const ls: Uint8Array[] = [];
    for (let s = FIRST_LEDGER; s <= LAST_LEDGER; s++) ls.push(ledgerBytes(s));
    db = storeWith(PUBNET_PASSPHRASE, ls);
  });
  after(() => db.close());

  test('validation: every message, -32602, in the reference\'s order', async () => {
    const seg5 = ['*', '*', '*', '*', '*'];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ startLedger: FIRST_LEDGER, xdrFormat: 'xml', pagination: { limit: 20000 } }, "got 'xml': expected base64, json for optional 'xdrFormat'"],
      [{ startLedger: FIRST_LEDGER, pagination: { cursor: formatEventId({ ledger: FIRST_LEDGER, tx: 1, op: 0, event: 0 }) } }, 'ledger ranges and cursor cannot both be set'],
      [{ endLedger: FIRST_LEDGER, pagination: { cursor: formatEventId({ ledger: FIRST_LEDGER, tx: 1, op: 0, event: 0 }) } }, 'ledger ranges and cursor cannot both be set'],
      [{}, 'startLedger must be positive'],
      [{ startLedger: 0, filters: [] }, 'startLedger must be positive'],
      [{ startLedger: FIRST_LEDGER, pagination: { limit: 10001 } }, 'limit must not exceed 10000'],
      [{ startLedger: FIRST_LEDGER, pagination: { order: 'sideways' } }, "order must be 'asc' or 'desc'"],
      [{ startLedger: FIRST_LEDGER, filters: [{}, {}, {}, {}, {}, {}] }, 'maximum 5 filters per request'],
      [{ startLedger: FIRST_LEDGER, filters: [{ type: 'diagnostic' }] }, "filter 1 invalid: filter type invalid: if set, type must be either 'system' or 'contract'"],
      [{ startLedger: FIRST_LEDGER, filters: [{}, { type: 'contract,' }] }, "filter 2 invalid: filter type invalid: if set, type must be either 'system' or 'contract'"],
      [{ startLedger: FIRST_LEDGER, filters: [{ contractIds: Array(6).fill(CONTRACT) }] }, 'filter 1 invalid: maximum 5 contract IDs per filter'],
      [{ startLedger: FIRST_LEDGER, filters: [{ topics: Array(6).fill(['*']) }] }, 'filter 1 invalid: maximum 5 topics per filter'],
      [{ startLedger: FIRST_LEDGER, filters: [{ contractIds: [CONTRACT, 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7'] }] }, 'filter 1 invalid: contract ID 2 invalid'],
      [{ startLedger: FIRST_LEDGER, filters: [{ topics: [['*'], []] }] }, 'filter 1 invalid: topic 2 invalid: topic must have at least 1 segment'],
      [{ startLedger: FIRST_LEDGER, filters: [{ topics: [seg5] }] }, 'filter 1 invalid: topic 1 invalid: topic cannot have more than 4 segments'],
      [{ startLedger: FIRST_LEDGER, filters: [{ topics: [['*', '**', '*']] }] }, "filter 1 invalid: topic 1 invalid: segment 2 invalid: wildcard '**' is only allowed as the last segment"],
      [{ startLedger: FIRST_LEDGER, filters: [{ topics: [['**', '**']] }] }, "filter 1 invalid: topic 1 invalid: segment 1 invalid: wildcard '**' is only allowed as the last segment"],
      [{ startLedger: FIRST_LEDGER, txHash: 'abc' }, 'invalid txHash: unexpected hash length (3)'],
    ];
    for (const [params, message] of cases) await assertRpcError(getEvents, params, db.ctx, INVALID_PARAMS, message);
    // accepted: 4 segments plus a trailing **, a lone **, both types, an empty type
    for (const topics of [[['*', '*', '*', '*', '**']], [['**']], [[TRANSFER]]]) {
      await call(getEvents, { startLedger: FIRST_LEDGER, filters: [{ type: 'system,contract', topics }, { type: '' }] }, db.ctx);
    }
  });

  test('decoding errors (cursor, segments) come first, as "invalid parameters" with the reason in data', async () => {
    const decodeErr = async (params: Record<string, unknown>, data: string) => {
      const e = await callError(getEvents, params, db.ctx);
      assert.deepEqual({ code: e.code, message: e.message, data: e.data }, { code: INVALID_PARAMS, message: 'invalid parameters', data });
    };
    await decodeErr({ startLedger: FIRST_LEDGER, pagination: { cursor: 'nope' } }, 'invalid event id nope');
    await decodeErr({ filters: Array(6).fill({ topics: [['bad!']] }) }, 'illegal base64 data at input byte 3');
    await decodeErr({ startLedger: 1, filters: [{ topics: [['AAAADwAAAAh0cmFu']] }] }, 'xdr: unexpected end of event XDR');
    await decodeErr({ startLedger: 1, filters: [{ topics: [[TRANSFER + 'AAAAAQ==']] }] }, 'illegal base64 data at input byte 24');
  });

  test('range errors: -32600 against the start ledger, or the cursor\'s when paging', async () => {
    const message = `startLedger must be within the ledger range: ${FIRST_LEDGER} - ${LAST_LEDGER}`;
    await assertRpcError(getEvents, { startLedger: 1 }, db.ctx, INVALID_REQUEST, message);
    await assertRpcError(getEvents, { startLedger: LAST_LEDGER + 1 }, db.ctx, INVALID_REQUEST, message);
    await assertRpcError(getEvents, { pagination: { cursor: formatEventId(maxPositionOf(FIRST_LEDGER - 1)) } }, db.ctx, INVALID_REQUEST, message);
    await assertRpcError(getEvents, { pagination: { cursor: formatEventId({ ledger: LAST_LEDGER + 1, tx: 0, op: 0, event: 0 }) } }, db.ctx, INVALID_REQUEST, message);
  });

  test('result fields, JSON types and order (string close times, number indexes)', async () => {
    const page = await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 5 } }, db.ctx);
    assert.deepEqual(Object.keys(page), ['events', 'cursor', 'latestLedger', 'oldestLedger', 'latestLedgerCloseTime', 'oldestLedgerCloseTime']);
    assertShape(page, { events: 'array', cursor: 'string', latestLedger: 'number', oldestLedger: 'number', latestLedgerCloseTime: 'string', oldestLedgerCloseTime: 'string' });
    assert.equal(page.events.length, 5);
    for (const e of page.events) {
      assert.deepEqual(Object.keys(e), ['type', 'ledger', 'ledgerClosedAt', 'contractId', 'id', 'pagingToken', 'operationIndex', 'transactionIndex', 'txHash', 'topic', 'value']);
      assertShape(e, {
        type: 'string', ledger: 'number', ledgerClosedAt: 'string', contractId: 'string', id: 'string', pagingToken: 'string', operationIndex: 'number',
        transactionIndex: 'number', txHash: 'string', topic: 'array', value: 'string',
      });
      assert.match(e.ledgerClosedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.match(e.txHash, /^[0-9a-f]{64}$/);
      assert.equal(e.pagingToken, e.id, 'pagingToken repeats the id');
    }
    assert.equal(page.cursor, page.events[4].id, 'a full page ends at its last event');
  });

  test('limit: default 100, 0 means the default, the maximum is accepted', async () => {
    assert.equal((await call(getEvents, { startLedger: FIRST_LEDGER }, db.ctx)).events.length, 100);
    assert.equal((await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 0 } }, db.ctx)).events.length, 100);
    assert.equal((await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 10000 } }, db.ctx)).events.length, 6591);
  });

  test('endLedger is exclusive; endLedger <= startLedger gives no events and MaxCursor(endLedger - 1)', async () => {
    const one = await call(getEvents, { startLedger: FIRST_LEDGER + 1, endLedger: FIRST_LEDGER + 2, pagination: { limit: 10000 } }, db.ctx);
    assert.deepEqual(one.events, expectedEvents(ledgerBytes(FIRST_LEDGER + 1)).map(comparable));
    assert.equal(one.cursor, eventId(FIRST_LEDGER + 1, 1048575, 4095, 4294967295));
    const none = await call(getEvents, { startLedger: FIRST_LEDGER + 5, endLedger: FIRST_LEDGER + 3 }, db.ctx);
    assert.deepEqual(none.events, []);
    assert.equal(none.cursor, eventId(FIRST_LEDGER + 2, 1048575, 4095, 4294967295));
  });

  test('a cursor resumes right after its event; a mid-ledger cursor of a non-existent event works too', async () => {
    const all = (await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 10000 } }, db.ctx)).events;
    const k = 1234;
    const page = await call(getEvents, { pagination: { cursor: all[k].id, limit: 3 } }, db.ctx);
    assert.deepEqual(page.events.map((e: any) => e.id), all.slice(k + 1, k + 4).map((e: any) => e.id));
    // a cursor between two ids (op 4094 of some tx never exists): the next id after it
    const e = all.find((x: any) => x.transactionIndex > 1 && x.transactionIndex < 1048575)!;
    const cur = formatEventId({ ledger: e.ledger, tx: e.transactionIndex - 1, op: 4094, event: 0 });
    const next = all.find((x: any) => x.id > cur)!;
    assert.equal((await call(getEvents, { pagination: { cursor: cur, limit: 1 } }, db.ctx)).events[0].id, next.id);
  });

  test('xdrFormat json: topicJson/valueJson instead of topic/value', async () => {
    const b64 = await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 20 } }, db.ctx);
    const json = await call(getEvents, { startLedger: FIRST_LEDGER, xdrFormat: 'json', pagination: { limit: 20 } }, db.ctx);
    json.events.forEach((e: any, i: number) => {
      const x = b64.events[i];
      assert.deepEqual(Object.keys(e), ['type', 'ledger', 'ledgerClosedAt', 'contractId', 'id', 'pagingToken', 'operationIndex', 'transactionIndex', 'txHash', 'topicJson', 'valueJson']);
      assert.deepEqual(e.topicJson, x.topic.map((t: string) => xdr.ScVal.fromXdr(Buffer.from(t, 'base64')).toJson()));
      assert.deepEqual(e.valueJson, xdr.ScVal.fromXdr(Buffer.from(x.value, 'base64')).toJson());
    });
    assert.deepEqual(json.events[0].topicJson[0], { symbol: 'fee' });
  });

  test('desc: newest first from the latest ledger, paging back with cursors', async () => {
    const all = (await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 10000 } }, db.ctx)).events.map((e: any) => e.id);
    const first = await call(getEvents, { startLedger: FIRST_LEDGER, pagination: { limit: 3, order: 'desc' } }, db.ctx);
    assert.deepEqual(first.events.map((e: any) => e.id), all.slice(-3).reverse());
    assert.equal(first.cursor, first.events[2].id);
    const next = await call(getEvents, { pagination: { cursor: first.cursor, limit: 2, order: 'desc' } }, db.ctx);
    assert.deepEqual(next.events.map((e: any) => e.id), all.slice(-5, -3).reverse());
    // top-level `order` is accepted as well; endLedger bounds the window from above
    const bounded = await call(getEvents, { startLedger: FIRST_LEDGER, endLedger: FIRST_LEDGER + 1, order: 'desc', pagination: { limit: 10000 } }, db.ctx);
    assert.deepEqual(bounded.events.map((e: any) => e.id), expectedEvents(ledgerBytes(FIRST_LEDGER)).map((e) => e.id).reverse());
    assert.equal(bounded.cursor, formatEventId({ ledger: FIRST_LEDGER, tx: 0, op: 0, event: 0 }), 'a short page ends at the window start');
    // from an ascending end-of-window cursor: everything before it
    const fromEnd = await call(getEvents, { pagination: { cursor: formatEventId(maxPositionOf(LAST_LEDGER)), limit: 1, order: 'desc' } }, db.ctx);
    assert.equal(fromEnd.events[0].id, all[all.length - 1]);
  });

  test('txHash: the transaction\'s events only (its fee event included); startLedger optional', async () => {
    const expected = expectedEvents(ledgerBytes(FIRST_LEDGER + 3));
    const hash = expected.find((e) => e.transactionIndex > 0 && e.transactionIndex < 1048575)!.txHash;
    const mine = expected.filter((e) => e.txHash === hash).map(comparable);
    assert.ok(mine.some((e) => e.transactionIndex === 0), 'its fee event');
    const page = await call(getEvents, { txHash: hash, pagination: { limit: 100 } }, db.ctx);
    assert.deepEqual(page.events, mine);
    const withStart = await call(getEvents, { startLedger: FIRST_LEDGER, txHash: hash.toUpperCase(), filters: [{ topics: [[TRANSFER, '**']] }] }, db.ctx);
    assert.deepEqual(withStart.events, mine.filter((e) => (e.topic as string[])[0] === TRANSFER));
    await assertRpcError(getEvents, { txHash: 'ab'.repeat(32) }, db.ctx, INVALID_REQUEST,
      `transaction ${'ab'.repeat(32)} not found in ledgers ${FIRST_LEDGER} - ${LAST_LEDGER}`);
  });
});

test('an empty store: -32603 "DB is empty" (after validation)', async () => {
  const db = emptyStore();
  try {
    await assertRpcError(getEvents, { startLedger: 1 }, db.ctx, -32603, 'DB is empty');
    await assertRpcError(getEvents, {}, db.ctx, INVALID_PARAMS, 'startLedger must be positive');
  } finally {
    db.close();
  }
});

describe('the 10,000-ledger scan window (synthetic ledgers)', () => {
  let db: EventsStore;
  const contract = new Uint8Array(32).fill(9);
  const ev = (n: number) => contractEventXdr(contract, [sym('tick'), u32(n)], u32(n));
  before(() => {
    db = emptyStore();
    // 10,205 ledgers (2..10206); events only in ledgers 2, 100, 10001, 10002 and 10206
    for (let seq = 2; seq <= 10206; seq++) {
      const txs = seq === 2 || seq === 100 || seq === 10001 || seq === 10002 || seq === 10206 ? [{ ops: [[ev(seq)]] }] : [];
      db.store.ingest(syntheticBatch(seq, txs), 120960);
    }
  });
  after(() => db.close());

  test('a request scans at most 10,000 ledgers; the cursor carries on from the window\'s end', async () => {
    const first = await call(getEvents, { startLedger: 2, pagination: { limit: 10 } }, db.ctx);
    assert.deepEqual(first.events.map((e: any) => e.ledger), [2, 100, 10001], 'ledgers 2..10001');
    assert.equal(first.cursor, formatEventId(maxPositionOf(10001)));
    const second = await call(getEvents, { pagination: { cursor: first.cursor, limit: 10 } }, db.ctx);
    assert.deepEqual(second.events.map((e: any) => e.ledger), [10002, 10206]);
    assert.equal(second.cursor, formatEventId(maxPositionOf(10206)), 'capped at the latest ledger');
    // an empty window still moves the cursor on (clients must keep paging)
    const sparse = await call(getEvents, { startLedger: 3, filters: [{ contractIds: [StrKey.encodeContract(Buffer.from(contract))] }] }, db.ctx);
    assert.deepEqual(sparse.events.map((e: any) => e.ledger), [100, 10001, 10002]);
    const empty = await call(getEvents, { startLedger: 10003, endLedger: 10100 }, db.ctx);
    assert.deepEqual(empty.events, []);
    assert.equal(empty.cursor, formatEventId(maxPositionOf(10099)));
    assert.equal(first.events[0].txHash, txHashOf(2, 1));
  });

  test('desc: the window is the 10,000 ledgers below the end', async () => {
    const page = await call(getEvents, { startLedger: 2, pagination: { limit: 10, order: 'desc' } }, db.ctx);
    assert.deepEqual(page.events.map((e: any) => e.ledger), [10206, 10002, 10001], 'ledgers 10206 down to 207');
    assert.equal(page.cursor, formatEventId({ ledger: 207, tx: 0, op: 0, event: 0 }));
    const next = await call(getEvents, { pagination: { cursor: page.cursor, limit: 10, order: 'desc' } }, db.ctx);
    assert.deepEqual(next.events.map((e: any) => e.ledger), [100, 2]);
    assert.equal(next.cursor, formatEventId({ ledger: 2, tx: 0, op: 0, event: 0 }), 'stops at the oldest ledger');
    const end = await call(getEvents, { pagination: { cursor: next.cursor, order: 'desc' } }, db.ctx);
    assert.deepEqual(end.events, []);
    assert.equal(end.cursor, next.cursor);
  });
});
