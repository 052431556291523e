import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toid, toidDecode, toidEncode, transactionCursor } from '../../../src/ids/toid.ts';

test('getTransactions cursor: ledger 100, tx 3 -> (100<<32)|(3<<12)|1', () => {
  assert.equal(transactionCursor(100, 3), '429496741889');
  assert.equal(429496741889n, (100n << 32n) + 3n * 4096n + 1n);
});

test('toid encode/decode round-trips and masks fields', () => {
  const id = toidEncode({ ledger: 63092982, transaction: 305, operation: 1 });
  assert.equal(id, (63092982n << 32n) | (305n << 12n) | 1n);
  assert.deepEqual(toidDecode(id), { ledger: 63092982, transaction: 305, operation: 1 });
  // fields wider than their masks are truncated like go-stellar-sdk's toid
  assert.deepEqual(toidDecode(toidEncode({ ledger: 5, transaction: 0x100001, operation: 0x1002 })),
    { ledger: 5, transaction: 1, operation: 2 });
  assert.deepEqual(toidDecode(toidEncode({ ledger: 7, transaction: 0xfffff, operation: 0xfff })),
    { ledger: 7, transaction: 0xfffff, operation: 0xfff });
});

test('negative and high-bit ids decode to an int32 ledger like Go', () => {
  assert.deepEqual(toidDecode(-5n), { ledger: -1, transaction: 0xfffff, operation: 0xffb });
  const high = toidEncode({ ledger: 0x80000000, transaction: 0, operation: 0 });
  assert.ok(high < 0n, 'ledger >= 2^31 makes the int64 negative');
  assert.equal(toidDecode(high).ledger, -2147483648);
});

test('toid(ledger, transaction, operation) is toidEncode of the same fields, masks and sign included', () => {
  for (const [ledger, transaction, operation] of [[63092982, 305, 1], [5, 0x100001, 0x1002], [0x80000000, 0xfffff, 0xfff], [-1, 0, 0], [7, 0, 4095]]) {
    assert.equal(toid(ledger, transaction, operation), toidEncode({ ledger, transaction, operation }));
    assert.equal(toid(ledger, transaction, operation),
      BigInt.asIntN(64, ((BigInt(ledger) & 0xffffffffn) << 32n) | ((BigInt(transaction) & 0xfffffn) << 12n) | (BigInt(operation) & 0xfffn)));
  }
});
