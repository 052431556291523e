// queryEvents' request and cursor: every invalid_params rejection (message and error.data), the
// normalisations the specification asks for, and the cursor's round trip and strict decoding
// (bytes edited and re-checksummed here, so each structural check is reached, not only the checksum).
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { describe, test } from 'node:test';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { RpcError } from '../../../src/rpc/errors.ts';
import { readQueryEventsRequest, type EventsQuery, type QueryFilter } from '../../../src/rpc/methods/shared/queryEventsRequest.ts';
import { decodeCursor, encodeCursor, type CursorState } from '../../../src/rpc/methods/shared/queryEventsCursor.ts';

const CONTRACT = StrKey.encodeContract(Buffer.alloc(32, 1));
const CONTRACT_BYTES = new Uint8Array(32).fill(1);
const scVal = (v: xdr.ScValWire): Uint8Array => xdr.ScVal.schema.encode(v);
const symbol = (s: string): Uint8Array => scVal({ type: 15, sym: new xdr.XdrString(s) } as xdr.ScValWire);
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const TRANSFER = symbol('transfer');

function rejection(params: Record<string, unknown>): RpcError {
  try {
    readQueryEventsRequest(params);
  } catch (e) {
    assert.ok(e instanceof RpcError, String(e));
    return e;
  }
  assert.fail(`accepted ${JSON.stringify(params)}`);
}

describe('request validation', () => {
  test('each rejection is -32602 invalid_params with its message', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ minLedger: 5, startLedger: 5 }, "unknown parameter 'startLedger'"],
      [{ minLedger: 5, xdrInputFormat: 'base64' }, "unknown parameter 'xdrInputFormat'"],
      [{ minLedger: 5, xdrFormat: 'xml' }, "got 'xml': expected base64, json for optional 'xdrFormat'"],
      [{ minLedger: 5, limit: 0 }, 'limit must be between 1 and 1000'],
      [{ minLedger: 5, limit: 1001 }, 'limit must be between 1 and 1000'],
      [{ cursor: 'qe1_x', minLedger: 5 }, 'cursor cannot be combined with minLedger, maxLedger, order or filters: the cursor carries them'],
      [{ cursor: 'qe1_x', maxLedger: 5 }, 'cursor cannot be combined with minLedger, maxLedger, order or filters: the cursor carries them'],
      [{ cursor: 'qe1_x', order: 'desc' }, 'cursor cannot be combined with minLedger, maxLedger, order or filters: the cursor carries them'],
      [{ cursor: 'qe1_x', filters: [] }, 'cursor cannot be combined with minLedger, maxLedger, order or filters: the cursor carries them'],
      [{ minLedger: 5, order: 'sideways' }, "order must be 'asc' or 'desc'"],
      [{}, 'minLedger is required in ascending order'],
      [{ order: 'asc', maxLedger: 9 }, 'minLedger is required in ascending order'],
      [{ minLedger: 9, maxLedger: 5 }, 'minLedger must not be above maxLedger'],
      [{ minLedger: 9, maxLedger: 5, order: 'desc' }, 'minLedger must not be above maxLedger'],
      [{ minLedger: 5, filters: [] }, 'filters must hold 1 to 256 filters (omit it to match every event)'],
      [{ minLedger: 5, filters: Array(257).fill({ type: 'contract' }) }, 'filters must hold 1 to 256 filters (omit it to match every event)'],
      [{ minLedger: 5, filters: [{}] }, 'filters[0]: a filter needs type, contractId or a topic'],
      [{ minLedger: 5, filters: [{ type: 'contract' }, { type: '', contractId: '' }] }, 'filters[1]: a filter needs type, contractId or a topic'],
      [{ minLedger: 5, filters: [{ type: 'diagnostic' }] }, "filters[0]: type must be 'contract' or 'system'"],
      [{ minLedger: 5, filters: [{ type: 'contract,system' }] }, "filters[0]: type must be 'contract' or 'system'"],
      [{ minLedger: 5, filters: [{ contractIds: [CONTRACT] }] }, "filters[0]: unknown field 'contractIds'"],
      [{ minLedger: 5, filters: [{ type: 'contract', topic4: b64(TRANSFER) }] }, "filters[0]: unknown field 'topic4'"],
      [{ minLedger: 5, filters: [{ contractId: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7' }] }, 'filters[0]: contractId is not a contract address (C...)'],
      [{ minLedger: 5, filters: [{ topic0: '*' }] }, 'filters[0].topic0 is not a base64 ScVal XDR: illegal base64 data at input byte 0'],
      [{ minLedger: 5, filters: [{ topic2: b64(TRANSFER) + 'AAAAAQ==' }] }, 'filters[0].topic2 is not a base64 ScVal XDR: illegal base64 data at input byte 24'],
      [{ minLedger: 5, filters: [{ topic3: 'AAAADwAAAAh0cmFu' }] }, 'filters[0].topic3 is not a base64 ScVal XDR: xdr: unexpected end of event XDR'],
    ];
    for (const [params, message] of cases) {
      const e = rejection(params);
      assert.deepEqual({ code: e.code, message: e.message, data: e.data }, { code: -32602, message, data: { reason: 'invalid_params' } }, JSON.stringify(params).slice(0, 80));
    }
  });

  test('the term budget: 15 distinct (field, value) pairs, however many filters repeat them', () => {
    const topics = Array.from({ length: 14 }, (_, i) => ({ topic1: b64(symbol(`t${i}`)) }));
    // 14 topic1 values + one contract id repeated in every filter = 15 terms
    const ok = readQueryEventsRequest({ minLedger: 5, filters: topics.map((t) => ({ ...t, contractId: CONTRACT })) });
    assert.ok('query' in ok && ok.query.filters.length === 14);
    // the same value at another position is another term
    const e = rejection({ minLedger: 5, filters: [...topics.map((t) => ({ ...t, contractId: CONTRACT })), { topic2: b64(symbol('t0')) }] });
    assert.deepEqual(e.data, { reason: 'invalid_params', termsUsed: 16, termBudget: 15 });
    assert.equal(e.message, 'the filters use 16 distinct terms, over the budget of 15: split the query');
    // 256 identical filters are one term
    readQueryEventsRequest({ minLedger: 5, filters: Array(256).fill({ type: 'system' }) });
  });

  test('accepted shapes: 0 and "" mean absent, minLedger 1 is 2, desc needs no bounds', () => {
    const one = readQueryEventsRequest({ minLedger: 1, maxLedger: 0, order: '', xdrFormat: 'json', limit: 1000 });
    assert.deepEqual(one, { query: { descending: false, minLedger: 2, maxLedger: undefined, filters: [] }, limit: 1000, format: 'json' });
    const desc = readQueryEventsRequest({ order: 'desc', minLedger: 0 });
    assert.deepEqual(desc, { query: { descending: true, minLedger: undefined, maxLedger: undefined, filters: [] }, limit: 100, format: 'base64' });
    const cont = readQueryEventsRequest({ cursor: 'qe1_x', limit: 7, minLedger: 0, order: '' });
    assert.deepEqual(cont, { cursor: 'qe1_x', limit: 7, format: 'base64' });
    const f = readQueryEventsRequest({ minLedger: 3, filters: [{ type: 'system', contractId: CONTRACT, topic1: b64(TRANSFER), topic3: b64(TRANSFER) }] });
    assert.ok('query' in f);
    assert.deepEqual(f.query.filters, [{ type: 0, contractId: CONTRACT_BYTES, topics: [undefined, TRANSFER, undefined, TRANSFER] }]);
  });
});

// ---------------------------------------------------------------------------------------------

const filter = (over: Partial<QueryFilter>): QueryFilter => ({ type: undefined, contractId: undefined, topics: [undefined, undefined, undefined, undefined], ...over });

const STATES: CursorState[] = [
  { query: { descending: false, minLedger: 2, maxLedger: undefined, filters: [] }, position: { ledger: 2, tx: 0, op: 0, event: 0 } },
  { query: { descending: false, minLedger: 10, maxLedger: 4_000_000_000, filters: [filter({ type: 1 })] }, position: { ledger: 77, tx: 1048575, op: 4095, event: 4_000_000_000 } },
  {
    query: {
      descending: true, minLedger: 5, maxLedger: 900, filters: [
        filter({ contractId: CONTRACT_BYTES, topics: [TRANSFER, undefined, undefined, symbol('x')] }),
        filter({ type: 0, contractId: CONTRACT_BYTES, topics: [undefined, TRANSFER, TRANSFER, undefined] }),
      ],
    },
    position: { ledger: 900, tx: 1048575, op: 4095, event: 4294967295 },
  },
];

/** A cursor's bytes without its checksum, and a cursor from edited bytes with a correct checksum. */
const bodyOf = (cursor: string): Buffer => { const raw = Buffer.from(cursor.slice(4), 'base64url'); return raw.subarray(0, raw.length - 4); };
function signed(body: Buffer): string {
  const check = Buffer.alloc(4);
  check.writeUInt32BE(crc32(body));
  return 'qe1_' + Buffer.concat([body, check]).toString('base64url');
}

describe('the cursor', () => {
  test('round trip: order, bounds, position and filters come back as they went in', () => {
    for (const s of STATES) {
      const text = encodeCursor(s);
      assert.match(text, /^qe1_[A-Za-z0-9_-]+$/);
      assert.deepEqual(decodeCursor(text), s);
    }
  });

  test('duplicate filters and repeated terms are stored once', () => {
    const f = filter({ contractId: CONTRACT_BYTES, topics: [TRANSFER, undefined, undefined, undefined] });
    const query: EventsQuery = { descending: false, minLedger: 2, maxLedger: undefined, filters: [f, f, f] };
    const position = { ledger: 3, tx: 0, op: 0, event: 0 };
    const once = encodeCursor({ query: { ...query, filters: [f] }, position });
    assert.equal(encodeCursor({ query, position }), once);
    const many = Array.from({ length: 200 }, (_, i) => filter({ contractId: CONTRACT_BYTES, type: i % 2 }));
    assert.ok(encodeCursor({ query: { ...query, filters: many }, position }).length < 200, 'two distinct filters');
  });

  test('anything but an encoder\'s output is malformed, with the reason', () => {
    const good = encodeCursor(STATES[2]);
    const body = bodyOf(good);
    assert.equal(decodeCursor(''), 'not a queryEvents cursor');
    assert.equal(decodeCursor('0000000012884905984-0000000000'), 'not a queryEvents cursor', 'a getEvents cursor');
    assert.equal(decodeCursor('qe1_'), 'not base64url');
    assert.equal(decodeCursor(good + '='), 'not base64url');
    assert.equal(decodeCursor(good.slice(0, 10) + '*' + good.slice(11)), 'not base64url');
    const flipped = good.slice(0, 20) + (good[20] === 'A' ? 'B' : 'A') + good.slice(21);
    assert.equal(decodeCursor(flipped), 'checksum mismatch');
    assert.equal(decodeCursor('qe1_' + Buffer.from(good.slice(4), 'base64url').subarray(0, -3).toString('base64url')), 'checksum mismatch', 'cut short');
    assert.equal(decodeCursor(good.slice(0, -4)), 'not base64url', 'cut inside a byte: its last character is not canonical');
    const edit = (at: number, write: (b: Buffer) => void): string => { const b = Buffer.from(body); write(b.subarray(at)); return signed(b); };
    assert.equal(decodeCursor(signed(body.subarray(0, 30))), 'truncated');
    assert.equal(decodeCursor(signed(Buffer.concat([body, Buffer.of(0)]))), 'trailing bytes');
    assert.equal(decodeCursor(edit(0, (b) => b.writeUInt8(1 | 2 | 4))), 'unknown flags');
    assert.equal(decodeCursor(edit(0, (b) => b.writeUInt8(1))), 'bad ledger bounds', 'descending without maxLedger');
    assert.equal(decodeCursor(edit(1, (b) => b.writeUInt32BE(1))), 'minLedger below 2');
    assert.equal(decodeCursor(edit(5, (b) => b.writeUInt32BE(4))), 'bad ledger bounds', 'maxLedger below minLedger');
    assert.equal(decodeCursor(edit(13, (b) => b.writeUInt32BE(1048576))), 'bad position');
    assert.equal(decodeCursor(edit(17, (b) => b.writeUInt16BE(4096))), 'bad position');
    assert.equal(decodeCursor(edit(9, (b) => b.writeUInt32BE(4))), 'position below minLedger');
    assert.equal(decodeCursor(edit(9, (b) => b.writeUInt32BE(901))), 'position above maxLedger');
    // the terms: [contract (33 bytes), topic0 transfer, topic3 x, type 0, topic1 transfer, topic2 transfer]
    assert.equal(body[24], 1, 'first term: the contract id');
    assert.equal(decodeCursor(edit(24, (b) => b.writeUInt8(9))), 'unknown filter field');
    assert.equal(body[24 + 33], 2, 'second term: topic 0');
    assert.equal(decodeCursor(edit(24 + 33 + 5, (b) => b.writeUInt32BE(0xff))), 'bad topic value', 'an ScVal of an unknown type');
    const typeAt = 24 + 33 + (5 + TRANSFER.length) + (5 + symbol('x').length);
    assert.deepEqual([...body.subarray(typeAt, typeAt + 2)], [0, 0], 'fourth term: type system');
    assert.equal(decodeCursor(edit(typeAt + 1, (b) => b.writeUInt8(2))), 'bad event type');
    // the filters, at the end: count, then [3, 0, 1, 2] and [4, 3, 0, 4, 5]
    const filtersAt = body.length - 11;
    assert.deepEqual([...body.subarray(filtersAt)], [0, 2, 3, 0, 1, 2, 4, 3, 0, 4, 5]);
    assert.equal(decodeCursor(edit(filtersAt + 2, (b) => b.writeUInt8(0))), 'empty filter');
    assert.equal(decodeCursor(edit(filtersAt + 3, (b) => b.writeUInt8(6))), 'bad filter', 'no such term');
    assert.equal(decodeCursor(edit(filtersAt + 4, (b) => b.writeUInt8(0))), 'bad filter', 'two contract ids in one filter');
  });
});
