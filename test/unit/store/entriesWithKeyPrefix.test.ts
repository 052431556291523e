// SqliteStore.entriesWithKeyPrefix: the entries whose LedgerKey XDR starts with a prefix, as one key
// range (one account's pool-share trustlines, read when revoking authorization redeems them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpStore } from '../archive/helpers.ts';
import { accountEntry, accountId, credit, trustLineEntry } from '../ops/support.ts';
import { encodeLedgerEntry, encodeLedgerKey, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { poolShareTrustLineKeyPrefix } from '../../../src/ledger/liquidityPools.ts';

const shareLine = (owner: ReturnType<typeof accountId>, poolByte: number): LedgerEntry => ({
  lastModifiedLedgerSeq: 1,
  data: { type: 1, trustLine: { accountId: owner, asset: { type: 3, liquidityPoolId: new Uint8Array(32).fill(poolByte) }, balance: 0n, limit: 1n, flags: 0, ext: { v: 0 } } },
  ext: { v: 0 },
});

test('entriesWithKeyPrefix returns exactly the keys with the prefix, in key order', async () => {
  const alice = accountId('alice'), bob = accountId('bob');
  const store = tmpStore();
  const entries = [
    accountEntry(alice, 1n), trustLineEntry(alice, credit('USD', bob), 0n, 1n, 1), shareLine(alice, 0xff), shareLine(alice, 0x00),
    shareLine(alice, 0x7f), shareLine(bob, 0x01), trustLineEntry(bob, credit('USD', alice), 0n, 1n, 1),
  ];
  await store.replaceState(1, async (sink) => {
    for (const e of entries) sink.put(encodeLedgerKey(ledgerKeyOf(e.data)), encodeLedgerEntry(e), 1);
  });
  const poolBytes = (prefix: Uint8Array) => [...store.entriesWithKeyPrefix(prefix)].map((e) => e.key[e.key.length - 1]);
  assert.deepEqual(poolBytes(poolShareTrustLineKeyPrefix(alice)), [0x00, 0x7f, 0xff]);
  assert.deepEqual(poolBytes(poolShareTrustLineKeyPrefix(bob)), [0x01]);
  assert.deepEqual(poolBytes(poolShareTrustLineKeyPrefix(accountId('carol'))), []);
  // a prefix ending in 0xff bytes bounds at the last byte that can be raised; all 0xff runs to the end
  const aliceLine = encodeLedgerKey(ledgerKeyOf(shareLine(alice, 0xff).data));
  assert.equal([...store.entriesWithKeyPrefix(aliceLine)].length, 1);
  assert.equal([...store.entriesWithKeyPrefix(new Uint8Array([0xff]))].length, 0);
  assert.equal([...store.entriesWithKeyPrefix(new Uint8Array(0))].length, entries.length, 'the empty prefix is every entry');
  store.close();
});
