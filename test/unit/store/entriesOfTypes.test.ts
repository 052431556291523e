// SqliteStore.entriesOfTypes: one key range per range of LedgerEntryTypes, because a LedgerKey's XDR
// starts with its type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { account, contractData, tmpStore, ttl } from '../archive/helpers.ts';
import { encodeLedgerEntry, encodeLedgerKey, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ledgerKeyType } from '../../../src/xdr/ledgerKeys.ts';

test('entriesOfTypes returns exactly the entries of the types asked for, in key order', async () => {
  const store = tmpStore();
  const entries: LedgerEntry[] = [account(1, 5n, 1), account(2, 6n, 1), contractData(1, 1, 1), contractData(2, 2, 1, 0), ttl(new Uint8Array(32).fill(4), 99, 1)];
  await store.replaceState(1, async (sink) => {
    for (const e of entries) sink.put(encodeLedgerKey(ledgerKeyOf(e.data)), encodeLedgerEntry(e), 1);
  });
  const types = (first: number, last: number) => [...store.entriesOfTypes(first, last)].map((e) => ledgerKeyType(e.key));
  assert.deepEqual(types(0, 0), [0, 0]);
  assert.deepEqual(types(6, 9), [6, 6, 9]);
  assert.deepEqual(types(9, 9), [9]);
  assert.deepEqual(types(7, 8), []);
  const contractKeys = [...store.entriesOfTypes(6, 6)].map((e) => Buffer.from(e.key).toString('hex'));
  assert.deepEqual(contractKeys, [...contractKeys].sort());
  store.close();
});
