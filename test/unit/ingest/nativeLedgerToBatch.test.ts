// The native ingest path (native/src/ingest.rs through src/ingest/nativeLedgerToBatch.ts) against
// ledgerToBatch on every real ledger fixture we have: pubnet p26 (LCM V2 / TransactionMeta V4, with
// fee bumps), SEP-54 datastore batches (pubnet and testnet, protocols 20 to 25) and the synthetic
// load-test ledgers. The batches must be equal, except that entry writes may come in another order.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { xdr } from '../../../src/xdr/xdr.ts';
import { nativeAvailable } from '../../../src/host/native.ts';
import { envelopesOf, fastLedgerToBatch, ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { nativeLedgerToBatch } from '../../../src/ingest/nativeLedgerToBatch.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { networkIdOf, sha256, type TransactionEnvelope } from '../../../src/xdr/codec.ts';

const FIXTURES = new URL('../../../test/fixtures/', import.meta.url);
const PUBNET = networkIdOf('Public Global Stellar Network ; September 2015');
const TESTNET = networkIdOf('Test SDF Network ; September 2015');
const STANDALONE = networkIdOf('Standalone Network ; February 2017');
// stellar/go's horizon load-test generator (generate_ledgers_test.go) signs with this passphrase.
const LOAD_TEST = networkIdOf('load test network');
const SYNTHETIC_LEDGERS = 5; // at most: each stream holds 3

const fixture = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, FIXTURES)));
const files = (dir: string, pattern: RegExp): string[] =>
  readdirSync(new URL(dir, FIXTURES)).filter((f) => pattern.test(f)).sort().map((f) => dir + f);

/** The LedgerCloseMetas of a SEP-54 LedgerCloseMetaBatch file (zstd-compressed or not). */
function batchLedgers(path: string): Uint8Array[] {
  let bytes = fixture(path);
  if (/\.zstd?$/.test(path)) bytes = new Uint8Array(zstdDecompressSync(bytes));
  const batch = xdr.LedgerCloseMetaBatch.schema.decode(bytes);
  // A one-ledger batch is 12 bytes of header (start, end, count) then the LCM itself.
  if (batch.ledgerCloseMetas.length === 1) return [bytes.subarray(12)];
  return batch.ledgerCloseMetas.map((m) => xdr.LedgerCloseMeta.schema.encode(m));
}

/** The first records of a zstd-compressed record-marked LCM stream (RFC 5531 framing, one fragment each). */
function streamLedgers(path: string, count: number): Uint8Array[] {
  const bytes = new Uint8Array(zstdDecompressSync(fixture(path)));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  for (let o = 0; o < bytes.length && out.length < count;) {
    const word = view.getUint32(o);
    assert.ok(word & 0x80000000, 'one fragment per record');
    const len = word & 0x7fffffff;
    out.push(bytes.subarray(o + 4, o + 4 + len));
    o += 4 + len;
  }
  return out;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/**
 * Entry writes in key order (the two paths may list them differently), without the replaced
 * versions only the native path reads from the meta (checked against the store below).
 */
function normalized(batch: IngestBatch): IngestBatch {
  const writes = [...batch.entryWrites].sort((a, b) => (hex(a.key) < hex(b.key) ? -1 : 1)).map(({ before: _, ...w }) => w);
  return { ...batch, entryWrites: writes };
}

function assertSameBatch(bytes: Uint8Array, networkId: Uint8Array): void {
  const expected = ledgerToBatch({ bytes }, networkId);
  const actual = nativeLedgerToBatch(bytes, networkId);
  assert.equal(new Set(actual.entryWrites.map((w) => hex(w.key))).size, actual.entryWrites.length, 'one write per key');
  assert.deepStrictEqual(normalized(actual), normalized(expected));
}

/** A V1 envelope as the V0 envelope it could have been (same hash), when it fits that form. */
function asV0Envelope(env: TransactionEnvelope): TransactionEnvelope {
  if (env.type !== 2) return env;
  const { tx, signatures } = env.v1;
  if (tx.sourceAccount.type !== 0 || tx.cond.type === 2 || tx.ext.v !== 0) return env;
  const timeBounds = tx.cond.type === 1 ? tx.cond.timeBounds : null;
  return {
    type: 0,
    v0: {
      tx: { sourceAccountEd25519: tx.sourceAccount.ed25519, fee: tx.fee, seqNum: tx.seqNum, timeBounds, memo: tx.memo, operations: tx.operations, ext: { v: 0 } },
      signatures,
    },
  };
}

/** A classic TransactionMeta V3 in an older layout, by turn V0, V1 and V2 (the changes stay the same). */
function olderMeta(m: xdr.TransactionMetaWire, i: number): xdr.TransactionMetaWire {
  if (m.v !== 3 || m.v3.sorobanMeta) return m;
  const { txChangesBefore, operations, txChangesAfter } = m.v3;
  switch (i % 3) {
    case 0: return { v: 0, operations };
    case 1: return { v: 1, v1: { txChanges: txChangesBefore, operations } };
    default: return { v: 2, v2: { txChangesBefore, operations, txChangesAfter } };
  }
}

/**
 * No fixture has a LedgerCloseMeta V0, TransactionMeta V0..V2 or V0 envelopes (pre-Soroban
 * layouts): this turns a V1 ledger into one that has all of them.
 */
function asOldLayouts(lcm: Uint8Array): Uint8Array {
  const meta = xdr.LedgerCloseMeta.schema.decode(lcm);
  if (meta.v !== 1) throw new Error('expected a V1 LedgerCloseMeta');
  const v1 = meta.v1;
  return xdr.LedgerCloseMeta.schema.encode({
    v: 0,
    v0: {
      ledgerHeader: v1.ledgerHeader,
      txSet: { previousLedgerHash: v1.txSet.v1TxSet.previousLedgerHash, txs: envelopesOf(meta).map(asV0Envelope) },
      txProcessing: v1.txProcessing.map((p, i) => ({ ...p, txApplyProcessing: olderMeta(p.txApplyProcessing, i) })),
      upgradesProcessing: v1.upgradesProcessing,
      scpInfo: v1.scpInfo,
    },
  });
}

const noAddon = !nativeAvailable() && 'the native addon is not built';

describe('nativeLedgerToBatch equals ledgerToBatch', { skip: noAddon }, () => {
  for (const path of files('pubnet/ledgers/', /\.xdr\.gz$/)) {
    test(path, () => assertSameBatch(new Uint8Array(gunzipSync(fixture(path))), PUBNET));
  }
  for (const path of ['pubnet/datastore/FC62697B--60659332.xdr', 'pubnet/datastore/FCD285FF--53312000.xdr.zstd']) {
    test(path, () => { for (const lcm of batchLedgers(path)) assertSameBatch(lcm, PUBNET); });
  }
  for (const path of [...files('testnet/datastore-p25/', /\.zst$/), ...files('testnet/datastore-p20/', /\.zst$/)]) {
    test(path, () => { for (const lcm of batchLedgers(path)) assertSameBatch(lcm, TESTNET); });
  }
  test('LedgerCloseMeta V0, TransactionMeta V0..V2, V0 envelopes (derived from FCD285FF--53312000)', () => {
    const [lcm] = batchLedgers('pubnet/datastore/FCD285FF--53312000.xdr.zstd');
    const old = asOldLayouts(lcm);
    const metas = xdr.LedgerCloseMeta.schema.decode(old);
    if (metas.v !== 0) throw new Error('expected V0');
    const kinds = new Set([...metas.v0.txProcessing.map((p) => `meta ${p.txApplyProcessing.v}`), ...metas.v0.txSet.txs.map((e) => `envelope ${e.type}`)]);
    for (const k of ['meta 0', 'meta 1', 'meta 2', 'envelope 0']) assert.ok(kinds.has(k), k);
    assertSameBatch(old, PUBNET);
  });
  test('evictions (added to pubnet 63092982): temporary entries and TTLs deleted, persistent entries kept as archived', () => {
    const [path] = files('pubnet/ledgers/', /\.xdr\.gz$/);
    const meta = xdr.LedgerCloseMeta.schema.decode(new Uint8Array(gunzipSync(fixture(path))));
    if (meta.v !== 2) throw new Error('expected V2');
    const dataKey = (durability: 0 | 1, n: number): xdr.LedgerKeyWire => ({
      type: 6,
      contractData: { contract: { type: 1, contractId: new Uint8Array(32).fill(7) }, key: { type: 3, u32: n }, durability },
    });
    const ttlOf = (k: xdr.LedgerKeyWire): xdr.LedgerKeyWire => ({ type: 9, ttl: { keyHash: sha256(xdr.LedgerKey.schema.encode(k)) } });
    const temporary = dataKey(0, 1), persistent = dataKey(1, 2);
    const code: xdr.LedgerKeyWire = { type: 7, contractCode: { hash: new Uint8Array(32).fill(9) } };
    // core's order: the deleted keys (a temporary entry and its TTL, a persistent entry's TTL), then the archived entries
    const evicted = [temporary, ttlOf(temporary), ttlOf(persistent), ttlOf(code), persistent, code];
    const bytes = xdr.LedgerCloseMeta.schema.encode({ v: 2, v2: { ...meta.v2, evictedKeys: evicted, totalByteSizeOfLiveSorobanState: 123_456_789n } });
    assertSameBatch(bytes, PUBNET);
    const batch = ledgerToBatch({ bytes }, PUBNET);
    const writeOf = (k: xdr.LedgerKeyWire) => batch.entryWrites.find((w) => hex(w.key) === hex(xdr.LedgerKey.schema.encode(k)));
    for (const k of [temporary, ttlOf(temporary), ttlOf(persistent), ttlOf(code)]) assert.equal(writeOf(k)?.entry, null);
    for (const k of [persistent, code]) assert.equal(writeOf(k), undefined, 'an archived entry stays as it is');
    assert.equal(batch.liveSorobanStateSize, 123_456_789n);
  });
  const streams: Array<[string, Uint8Array]> = [
    ['synthetic/load-test-ledgers-v24.xdr.zstd', LOAD_TEST],
    ['synthetic/load-test-ledgers-v23-standalone.xdr.zstd', STANDALONE],
  ];
  for (const [path, networkId] of streams) {
    test(path, () => {
      const ledgers = streamLedgers(path, SYNTHETIC_LEDGERS);
      assert.ok(ledgers.length >= 3);
      for (const lcm of ledgers) assertSameBatch(lcm, networkId);
    });
  }
});

test('fastLedgerToBatch gives ledgerToBatch\'s batch (natively when the addon is built)', () => {
  const lcm = new Uint8Array(gunzipSync(fixture('pubnet/ledgers/ledger-63092987.xdr.gz')));
  assert.deepStrictEqual(normalized(fastLedgerToBatch(lcm, PUBNET)), normalized(ledgerToBatch({ bytes: lcm }, PUBNET)));
});

describe('nativeLedgerToBatch on bad input', { skip: noAddon }, () => {
  test('garbage bytes throw an Error', () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) & 0xff);
    assert.throws(() => nativeLedgerToBatch(garbage, PUBNET), Error);
    assert.throws(() => nativeLedgerToBatch(new Uint8Array(0), PUBNET), Error);
  });

  test('a truncated LedgerCloseMeta throws an Error', () => {
    const lcm = new Uint8Array(gunzipSync(fixture('pubnet/ledgers/ledger-63092982.xdr.gz')));
    for (const cut of [1, 100, lcm.length >> 1, lcm.length - 1]) {
      assert.throws(() => nativeLedgerToBatch(lcm.subarray(0, cut), PUBNET), Error);
    }
  });

  test('a result whose envelope is missing throws as ledgerToBatch does', () => {
    const lcm = new Uint8Array(gunzipSync(fixture('pubnet/ledgers/ledger-63092982.xdr.gz')));
    const message = { message: /^ledger 63092982: no envelope in the tx set for result [0-9a-f]{64}$/ };
    assert.throws(() => ledgerToBatch({ bytes: lcm }, TESTNET), message);
    assert.throws(() => nativeLedgerToBatch(lcm, TESTNET), message);
  });

  test('a network id of the wrong size is refused', () => {
    const lcm = new Uint8Array(gunzipSync(fixture('pubnet/ledgers/ledger-63092982.xdr.gz')));
    assert.throws(() => nativeLedgerToBatch(lcm, new Uint8Array(31)), /networkId must be 32 bytes/);
  });
});

test('the versions a ledger replaced, as the native path reads them from the meta, are the store\'s rows before it', { skip: noAddon }, () => {
  // ten consecutive pubnet ledgers into an empty store: from the second on, a key one of them wrote
  // is in the store, and the meta's STATE of it must be that row; a key the meta says it creates
  // must be absent there
  const store = new SqliteStore(':memory:');
  let compared = 0;
  let created = 0;
  for (const path of files('pubnet/ledgers/', /\.xdr\.gz$/)) {
    const batch = nativeLedgerToBatch(new Uint8Array(gunzipSync(fixture(path))), PUBNET);
    for (const w of batch.entryWrites) {
      assert.notEqual(w.before, undefined, 'the pubnet metas say what every write replaced');
      const row = store.entry(w.key);
      if (w.before === null) {
        assert.equal(row, undefined, `${path}: a created key is not in the store`);
        created++;
      } else if (row) {
        assert.deepEqual([hex(w.before!.entry), w.before!.lastModified], [hex(row.entry), row.lastModified], path);
        compared++;
      }
    }
    store.ingest(batch, 1000);
  }
  store.close();
  assert.ok(compared > 1000 && created > 100, `compared ${compared} replaced versions, ${created} creations`);
});
