// The standalone network's index of its contract entries (src/ledger/sorobanState.ts): the live
// state size core would report, and which entries are due for eviction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SorobanStateIndex } from '../../../src/ledger/sorobanState.ts';
import { encodeLedgerEntry, encodeLedgerKey, type LedgerEntry, type LedgerKey } from '../../../src/xdr/codec.ts';
import { keyId, ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';

const contract = { type: 1 as const, contractId: new Uint8Array(32).fill(3) };
const dataEntry = (n: number, durability: 0 | 1, bytes = 0): LedgerEntry => ({
  lastModifiedLedgerSeq: 5,
  data: { type: 6, contractData: { ext: { v: 0 }, contract, key: { type: 3, u32: n }, durability, val: { type: 13, bytes: new Uint8Array(bytes) } } },
  ext: { v: 0 },
});
const codeEntry = (): LedgerEntry => ({
  lastModifiedLedgerSeq: 5,
  data: { type: 7, contractCode: { ext: { v: 0 }, hash: new Uint8Array(32).fill(1), code: new Uint8Array(100) } },
  ext: { v: 0 },
});
const ttl = (key: LedgerKey, liveUntilLedgerSeq: number): LedgerEntry =>
  ({ lastModifiedLedgerSeq: 5, data: { type: 9, ttl: { keyHash: ttlKeyFor(key).ttl.keyHash, liveUntilLedgerSeq } }, ext: { v: 0 } });
const put = (e: LedgerEntry) => ({ key: encodeLedgerKey(ledgerKeyOf(e.data)), entry: encodeLedgerEntry(e) });
const del = (k: LedgerKey) => ({ key: encodeLedgerKey(k), entry: null });

/** Code is charged 1000 extra bytes (standing in for the parsed module's memory). */
const index = () => new SorobanStateIndex((bytes, isCode) => bytes.length + (isCode ? 1000 : 0));

test('live size: data and code entries with a TTL, code at its rent size; TTLs and other entries do not count', () => {
  const idx = index();
  const a = dataEntry(1, 1, 50), b = dataEntry(2, 0, 10), code = codeEntry();
  const [ka, kb, kc] = [a, b, code].map((e) => ledgerKeyOf(e.data));
  idx.apply([put(a), put(b), put(code), put(ttl(ka, 100)), put(ttl(kb, 100)), put(ttl(kc, 100)),
    { key: encodeLedgerKey({ type: 0, account: { accountId: { type: 0, ed25519: new Uint8Array(32) } } }), entry: new Uint8Array(80) }]);
  const size = (e: LedgerEntry, extra = 0) => BigInt(encodeLedgerEntry(e).length + extra);
  assert.equal(idx.liveStateSize, size(a) + size(b) + size(code, 1000));

  // an update replaces the size; deleting entry and TTL removes it; an entry whose TTL went (evicted
  // to the hot archive) no longer counts
  const bigger = dataEntry(1, 1, 500);
  idx.apply([put(bigger)]);
  assert.equal(idx.liveStateSize, size(bigger) + size(b) + size(code, 1000));
  idx.apply([del(kb), del(ttlKeyFor(kb))]);
  assert.equal(idx.liveStateSize, size(bigger) + size(code, 1000));
  idx.apply([del(ttlKeyFor(ka))]);
  assert.equal(idx.liveStateSize, size(code, 1000));
  // restored: TTL back
  idx.apply([put(ttl(ka, 300))]);
  assert.equal(idx.liveStateSize, size(bigger) + size(code, 1000));
});

test('eviction candidates: TTL ended before the ledger, earliest first, at most the limit', () => {
  const idx = index();
  const entries = [dataEntry(1, 1), dataEntry(2, 0), dataEntry(3, 1), dataEntry(4, 1)];
  const keys = entries.map((e) => ledgerKeyOf(e.data));
  idx.apply([...entries.map(put), put(ttl(keys[0], 10)), put(ttl(keys[1], 8)), put(ttl(keys[2], 20)), put(ttl(keys[3], 9))]);
  const ids = (ledger: number, limit: number) => idx.evictionCandidates(ledger, limit).map((c) => keyId(c.key));

  assert.deepEqual(ids(8, 10), [], 'an entry is live through its live-until ledger');
  assert.deepEqual(ids(11, 10), [keys[1], keys[3], keys[0]].map(keyId));
  assert.deepEqual(ids(11, 2), [keys[1], keys[3]].map(keyId));
  const [first] = idx.evictionCandidates(11, 1);
  assert.equal(keyId(first.ttlKey), keyId(ttlKeyFor(keys[1])));

  // evicted (TTL deleted) or extended: no longer candidates
  idx.apply([del(ttlKeyFor(keys[1])), del(keys[1]), put(ttl(keys[3], 50))]);
  assert.deepEqual(ids(11, 10), [keyId(keys[0])]);
  assert.deepEqual(ids(21, 10), [keys[0], keys[2]].map(keyId));
});
