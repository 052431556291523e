// Event ids and cursors: the reference's `%019d-%010d` over a TOID, its sentinels, MaxCursor, the
// cursor parser's Go error texts, and the order of ids within a ledger.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparePositions, formatEventId, maxPositionOf, positionToid } from '../../../src/events/eventIds.ts';
import { ledgerEventRows } from '../../../src/events/eventRows.ts';
import { RpcError } from '../../../src/rpc/errors.ts';
import { afterCursor, parseEventCursor } from '../../../src/rpc/methods/shared/eventsRequest.ts';
import { xdr } from '@stellar/stellar-sdk';

test('ids: zero-padded toid and event index', () => {
  // reference-node.md section 4: ledger 1000, tx 1, op 0, event 0
  assert.equal(formatEventId({ ledger: 1000, tx: 1, op: 0, event: 0 }), '0000004294967300096-0000000000');
  // the rs-stellar-rpc-client p23 capture: fee (tx 0), operation event (tx 1), refund (tx 1048575)
  assert.equal(formatEventId({ ledger: 2081, tx: 0, op: 0, event: 0 }), '0000008937826942976-0000000000');
  assert.equal(formatEventId({ ledger: 2081, tx: 1, op: 0, event: 1 }), '0000008937826947072-0000000001');
  assert.equal(formatEventId({ ledger: 2081, tx: 1048575, op: 0, event: 0 }), '0000008942121906176-0000000000');
  assert.equal(formatEventId({ ledger: 2081, tx: 3, op: 4095, event: 7 }), `${((2081n << 32n) | (3n << 12n) | 4095n).toString().padStart(19, '0')}-0000000007`);
  assert.equal(positionToid({ ledger: 63092982, tx: 5, op: 2 }), (63092982n << 32n) | (5n << 12n) | 2n);
});

test('end-of-window cursor: MaxCursor with the ledger replaced', () => {
  assert.equal(formatEventId(maxPositionOf(1000)), '0000004299262263295-4294967295');
  assert.equal(formatEventId(maxPositionOf(2091)), '0000008985071583231-4294967295'); // the p23 capture's cursor
  assert.equal(formatEventId(maxPositionOf(0)), '0000000004294967295-4294967295');
});

test('cursor parsing round-trips and wraps the event index like Go\'s uint32', () => {
  for (const p of [{ ledger: 1000, tx: 1, op: 0, event: 0 }, maxPositionOf(63092991), { ledger: 2, tx: 0, op: 0, event: 12 }]) {
    assert.deepEqual(parseEventCursor(formatEventId(p)), p);
  }
  assert.deepEqual(afterCursor(maxPositionOf(7)), { ledger: 7, tx: 1048575, op: 4095, event: 0 });
  assert.deepEqual(afterCursor({ ledger: 7, tx: 1, op: 0, event: 3 }), { ledger: 7, tx: 1, op: 0, event: 4 });
  // unpadded and signed forms parse as Go's strconv does
  assert.deepEqual(parseEventCursor('4294967300096-0'), { ledger: 1000, tx: 1, op: 0, event: 0 });
  assert.deepEqual(parseEventCursor('+4294967300096-1'), { ledger: 1000, tx: 1, op: 0, event: 1 });
});

test('cursor parse errors: -32602 "invalid parameters" with Go\'s text as data', () => {
  const cases: Array<[string, string]> = [
    ['abc', 'invalid event id abc'],
    ['', 'invalid event id '],
    ['x-1', 'invalid event id x-1: strconv.ParseInt: parsing "x": invalid syntax'],
    ['-1-0', 'invalid event id -1-0: strconv.ParseInt: parsing "": invalid syntax'],
    ['1-x', 'invalid event id 1-x: strconv.ParseUint: parsing "x": invalid syntax'],
    ['1-4294967296', 'invalid event id 1-4294967296: strconv.ParseUint: parsing "4294967296": value out of range'],
    ['99999999999999999999-0', 'invalid event id 99999999999999999999-0: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['1-2-3', 'invalid event id 1-2-3: strconv.ParseUint: parsing "2-3": invalid syntax'],
  ];
  for (const [input, data] of cases) {
    assert.throws(() => parseEventCursor(input), (e: unknown) => {
      assert.ok(e instanceof RpcError);
      assert.deepEqual({ code: e.code, message: e.message, data: e.data }, { code: -32602, message: 'invalid parameters', data });
      return true;
    }, input);
  }
});

const ev = (n: number): string => {
  const e: xdr.ContractEventWire = { ext: { v: 0 }, contractId: null, type: 1, body: { v: 0, v0: { topics: [], data: { type: 3, u32: n } } } };
  return Buffer.from(xdr.ContractEvent.schema.encode(e)).toString('base64');
};
const txEv = (stage: number, n: number): string => {
  const e = xdr.ContractEvent.schema.decode(Buffer.from(ev(n), 'base64'));
  return Buffer.from(xdr.TransactionEvent.schema.encode({ stage, event: e })).toString('base64');
};

test('extraction: stages get their sentinels and counters, ids sort before/ops/after-tx/after-all', () => {
  const rows = ledgerEventRows([
    { applicationOrder: 1, events: { transactionEventsXdr: [txEv(0, 1), txEv(2, 2), txEv(1, 3)], contractEventsXdr: [[ev(4), ev(5)], [], [ev(6)]], diagnosticEventsXdr: [] } },
    { applicationOrder: 2, events: { transactionEventsXdr: [txEv(0, 7), txEv(1, 8), txEv(1, 9), txEv(2, 10)], contractEventsXdr: [[ev(11)]], diagnosticEventsXdr: [] } },
    { applicationOrder: 3, events: { transactionEventsXdr: [], contractEventsXdr: [], diagnosticEventsXdr: ['ignored'] } },
  ]);
  const summary = rows.map((r) => [r.tx, r.op, r.index, r.applicationOrder, xdr.ContractEvent.schema.decode(r.event).body.v0.data]);
  assert.deepEqual(summary.map((s) => [s[0], s[1], s[2], s[3], (s[4] as { u32: number }).u32]), [
    [0, 0, 0, 1, 1],          // BEFORE_ALL_TXS, counted over the ledger
    [0, 0, 1, 2, 7],
    [1, 0, 0, 1, 4],          // operation events: tx = application order, op 0-based
    [1, 0, 1, 1, 5],
    [1, 2, 0, 1, 6],
    [1, 4095, 0, 1, 3],       // AFTER_TX: op 4095, counted per transaction
    [2, 0, 0, 2, 11],
    [2, 4095, 0, 2, 8],
    [2, 4095, 1, 2, 9],
    [1048575, 0, 0, 1, 2],    // AFTER_ALL_TXS: tx 1048575, counted over the ledger
    [1048575, 0, 1, 2, 10],
  ]);
  const ids = rows.map((r) => formatEventId({ ledger: 5, tx: r.tx, op: r.op, event: r.index }));
  assert.deepEqual(ids, [...ids].sort(), 'id strings sort in the same order');
  for (let i = 1; i < rows.length; i++) {
    const a = { ledger: 5, tx: rows[i - 1].tx, op: rows[i - 1].op, event: rows[i - 1].index };
    const b = { ledger: 5, tx: rows[i].tx, op: rows[i].op, event: rows[i].index };
    assert.ok(comparePositions(a, b) < 0);
  }
});
