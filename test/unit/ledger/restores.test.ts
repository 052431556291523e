// Restores in operation meta (src/ledger/soroban/restores.ts), case by case as stellar-core writes
// them: from the live state or the hot archive, for RestoreFootprint and for an invocation that
// leaves the restored entry as it is, changes it or deletes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withRestores, type Restore } from '../../../src/ledger/soroban/restores.ts';
import type { LedgerEntry, LedgerEntryChange } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';

const L = 500;
const contract = { type: 1 as const, contractId: new Uint8Array(32).fill(3) };
const data = (value: number, lastModifiedLedgerSeq: number): LedgerEntry => ({
  lastModifiedLedgerSeq,
  data: { type: 6, contractData: { ext: { v: 0 }, contract, key: { type: 3, u32: 1 }, durability: 1, val: { type: 3, u32: value } } },
  ext: { v: 0 },
});
const key = ledgerKeyOf(data(0, 0).data);
const ttl = (liveUntilLedgerSeq: number, lastModifiedLedgerSeq: number): LedgerEntry =>
  ({ lastModifiedLedgerSeq, data: { type: 9, ttl: { keyHash: ttlKeyFor(key).ttl.keyHash, liveUntilLedgerSeq } }, ext: { v: 0 } });
const restore: Restore = { key, entry: data(7, 40), ttl: ttl(L + 99, L) };
const shape = (changes: LedgerEntryChange[]) => changes.map((c) => {
  const e = c.type === 0 ? c.created : c.type === 1 ? c.updated : c.type === 3 ? c.state : c.type === 4 ? c.restored : undefined;
  return [c.type, e?.data.type ?? (c.type === 2 ? c.removed.type : undefined), e?.lastModifiedLedgerSeq, e?.data.type === 6 ? (e.data.contractData.val as { u32: number }).u32 : e?.data.type === 9 ? e.data.ttl.liveUntilLedgerSeq : undefined];
});

test('RestoreFootprint from the live state: the TTL, then the entry unchanged, both RESTORED', () => {
  const changes: LedgerEntryChange[] = [{ type: 3, state: ttl(450, 300) }, { type: 1, updated: ttl(L + 99, L) }];
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 9, L, L + 99], [4, 6, 40, 7]]);
});

test('RestoreFootprint from the hot archive: entry and TTL RESTORED, the entry stamped with the ledger', () => {
  const changes: LedgerEntryChange[] = [
    { type: 0, created: ttl(L + 99, L) }, { type: 3, state: data(7, 40) }, { type: 1, updated: data(7, L) },
  ];
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 9, L, L + 99], [4, 6, L, 7]]);
});

test('an invocation that leaves the restored entry as it is: RESTORED only', () => {
  const changes: LedgerEntryChange[] = [
    { type: 3, state: ttl(450, 300) }, { type: 1, updated: ttl(L + 99, L) }, { type: 3, state: data(7, 40) }, { type: 1, updated: data(7, L) },
  ];
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 9, L, L + 99], [4, 6, L, 7]]);
});

test('an invocation that changes the restored entry: RESTORED (the value restored) then UPDATED', () => {
  const changes: LedgerEntryChange[] = [
    { type: 0, created: ttl(L + 99, L) }, { type: 3, state: data(7, 40) }, { type: 1, updated: data(8, L) },
  ];
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 9, L, L + 99], [4, 6, L, 7], [1, 6, L, 8]]);
});

test('an invocation that deletes the restored entry: RESTORED then REMOVED, for the entry and its TTL', () => {
  const changes: LedgerEntryChange[] = [
    { type: 3, state: data(7, 40) }, { type: 2, removed: key }, { type: 3, state: ttl(450, 300) }, { type: 2, removed: ttlKeyFor(key) },
  ];
  // the TTL's RESTORED is its STATE (the lapsed live-until ledger) stamped with the ledger, as core writes it
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 6, L, 7], [2, 6, undefined, undefined], [4, 9, L, 450], [2, 9, undefined, undefined]]);
});

test('an invocation that extends the TTL of an entry restored from the live state: RESTORED (the lapsed TTL) then UPDATED', () => {
  const changes: LedgerEntryChange[] = [
    { type: 3, state: ttl(450, 300) }, { type: 1, updated: ttl(L + 1000, L) }, { type: 3, state: data(7, 40) }, { type: 1, updated: data(7, L) },
  ];
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 9, L, 450], [1, 9, L, L + 1000], [4, 6, L, 7]]);
});

test('an invocation that extends the TTL of an entry restored from the hot archive: RESTORED (the restored TTL) then UPDATED', () => {
  const changes: LedgerEntryChange[] = [
    { type: 0, created: ttl(L + 1000, L) }, { type: 3, state: data(7, 40) }, { type: 1, updated: data(7, L) },
  ];
  assert.deepEqual(shape(withRestores(changes, [restore], L)), [[4, 9, L, L + 99], [1, 9, L, L + 1000], [4, 6, L, 7]]);
});

test('changes of other keys pass through; no restores, no change', () => {
  const other: LedgerEntryChange[] = [{ type: 3, state: data(7, 40) }, { type: 1, updated: data(9, L) }];
  assert.equal(withRestores(other, [], L), other);
});
