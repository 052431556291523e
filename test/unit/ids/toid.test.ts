import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toidDecode, toidEncode, transactionCursor } from '../../../src/ids/toid.ts';

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
