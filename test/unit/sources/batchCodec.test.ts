import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { decodeBatch, encodeBatch } from '../../../src/sources/datastore/batchCodec.ts';
import { decompressZstd, decompressZstdStream } from '../../../src/io/zstdFrames.ts';
import { inputCap } from '../../../src/io/inputCaps.ts';
import { LedgerChain, sacTransfersTemplate } from '../../support/sacLedgers.ts';
import { FIXTURES, collect, headerOf, ledgerNumbered, p20Ledger } from './support.ts';

const fixture = (path: string) => new Uint8Array(readFileSync(join(FIXTURES, path)));

test('every fixture datastore file decodes to its ledger, bytes exactly as stored', async () => {
  const files: Array<[string, number]> = [
    ['testnet/datastore-p20/FFFFFC1A--997.xdr.zst', 997],
    ['testnet/datastore-p20/FFFFFC19--998.xdr.zst', 998],
    ['testnet/datastore-p20/FFFFFC18--999.xdr.zst', 999],
    ['testnet/datastore-p25/FFF1035B--982180.xdr.zst', 982180],
    ['pubnet/datastore/FC62697B--60659332.xdr', 60659332],
    ['pubnet/datastore/FCD285FF--53312000.xdr.zstd', 53312000],
  ];
  for (const [path, sequence] of files) {
    const file = fixture(path);
    const [ledger, ...rest] = await decodeBatch(file, path);
    assert.equal(rest.length, 0, path);
    assert.equal(ledger.sequence, sequence, path);
    assert.equal(headerOf(ledger.bytes).header.ledgerSeq, sequence, path);
    const plain = path.endsWith('.xdr') ? file : new Uint8Array(zstdDecompressSync(file));
    assert.deepEqual(ledger.bytes, plain.subarray(12), `${path}: the LCM bytes are the file's, after the prefix`);
  }
});

test('compression is told by the magic bytes, not the name; full verification gives the same ledgers', async () => {
  const zst = fixture('testnet/datastore-p20/FFFFFC18--999.xdr.zst');
  const plain = new Uint8Array(zstdDecompressSync(zst));
  assert.deepEqual(await decodeBatch(plain, 'named.zst'), await decodeBatch(zst, 'named.xdr'));
  assert.deepEqual(await decodeBatch(zst, 'x', { verify: 'full' }), await decodeBatch(zst, 'x', { verify: 'header' }));
});

test('encodeBatch round-trips several ledgers byte for byte, compressed or not', async () => {
  const ledgers = [ledgerNumbered(500), ledgerNumbered(501), ledgerNumbered(502)];
  for (const compress of [true, false]) {
    const file = encodeBatch(ledgers, compress);
    assert.equal(file[0] === 0x28 && file[1] === 0xb5, compress);
    assert.deepEqual(await decodeBatch(file, 'x'), ledgers);
  }
  assert.throws(() => encodeBatch([ledgerNumbered(5), ledgerNumbered(7)], true), /ledger 7 follows 5, expected 6/);
  assert.throws(() => encodeBatch([], true), /no ledgers/);
});

test('a truncated zstd file is an error naming the file', async () => {
  const zst = fixture('testnet/datastore-p20/FFFFFC18--999.xdr.zst');
  await assert.rejects(() => decodeBatch(zst.subarray(0, zst.length - 20), 'store/FFFFFC18--999.xdr.zst'), /^Error: store\/FFFFFC18--999\.xdr\.zst: truncated zstd data/);
  await assert.rejects(() => decodeBatch(zst.subarray(0, 6), 'cut.zst'), /cut\.zst: truncated zstd data/);
});

test('a truncated plain file is an error naming the file', async () => {
  const plain = fixture('pubnet/datastore/FC62697B--60659332.xdr');
  await assert.rejects(() => decodeBatch(plain.subarray(0, plain.length - 1000), 'FC62697B--60659332.xdr'), /FC62697B--60659332\.xdr: truncated or corrupt LedgerCloseMeta for ledger 60659332/);
  await assert.rejects(() => decodeBatch(plain.subarray(0, 8), 'tiny.xdr'), /tiny\.xdr: truncated LedgerCloseMetaBatch \(8 bytes/);
  const extra = new Uint8Array(plain.length + 4);
  extra.set(plain);
  await assert.rejects(() => decodeBatch(extra, 'long.xdr'), /long\.xdr: 4 stray bytes after the 1 ledgers/);
});

test('garbage is an error naming the file', async () => {
  const garbage = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) & 0xff);
  await assert.rejects(() => decodeBatch(garbage, 'garbage.xdr'), /garbage\.xdr: /);
  // garbage that happens to carry a well-formed prefix
  const prefixed = garbage.slice();
  new DataView(prefixed.buffer).setUint32(0, 10);
  new DataView(prefixed.buffer).setUint32(4, 10);
  new DataView(prefixed.buffer).setUint32(8, 1);
  await assert.rejects(() => decodeBatch(prefixed, 'garbage.xdr'), /garbage\.xdr: truncated or corrupt LedgerCloseMeta for ledger 10/);
  await assert.rejects(() => decodeBatch(zstdCompressSync(prefixed), 'garbage.zst'), /garbage\.zst: ledger 10: not a LedgerCloseMeta/);
});

test('a batch whose ledgers are not the ones it claims is refused', async () => {
  const wrongSeq = encodeBatch([ledgerNumbered(1000)], false);
  new DataView(wrongSeq.buffer).setUint32(0, 999);
  new DataView(wrongSeq.buffer).setUint32(4, 999);
  await assert.rejects(() => decodeBatch(wrongSeq, 'w.xdr'), /w\.xdr: holds ledger 1000 where the batch says 999/);
  await assert.rejects(() => decodeBatch(zstdCompressSync(wrongSeq), 'w.zst'), /w\.zst: holds ledger 1000 where the batch says 999/);
  const wrongCount = encodeBatch([ledgerNumbered(7), ledgerNumbered(8)], false);
  new DataView(wrongCount.buffer).setUint32(8, 3);
  await assert.rejects(() => decodeBatch(wrongCount, 'c.xdr'), /c\.xdr: LedgerCloseMetaBatch 7-8 holds 3 ledgers, expected 2/);
});

test('zstd files of several frames are decompressed whole (Node alone stops after the first)', async () => {
  const a = ledgerNumbered(40);
  const b = ledgerNumbered(41);
  const plain = encodeBatch([a, b], false);
  const cut = 100;
  const skippable = Uint8Array.of(0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9);
  const twoFrames = Buffer.concat([zstdCompressSync(plain.subarray(0, cut)), skippable, zstdCompressSync(plain.subarray(cut))]);
  assert.notDeepEqual(new Uint8Array(zstdDecompressSync(twoFrames)), plain, 'the premise: Node drops the second frame');
  assert.deepEqual(await decompressZstd(twoFrames, 'x', inputCap()), plain);
  assert.deepEqual(await decodeBatch(twoFrames, 'x'), [a, b]);
  // the streaming decoder, fed in awkward pieces
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < twoFrames.length; i += 7) pieces.push(twoFrames.subarray(i, i + 7));
  const out = Buffer.concat(await collect(decompressZstdStream((async function* () { yield* pieces; })(), 'x')));
  assert.deepEqual(new Uint8Array(out), plain);
  await assert.rejects(collect(decompressZstdStream((async function* () { yield twoFrames.subarray(0, twoFrames.length - 3); })(), 'cut stream')), /cut stream: truncated zstd data/);
});

test('the LCM slices handed out for one-ledger batches are the stored bytes (p20 helper agrees)', async () => {
  assert.deepEqual((await decodeBatch(fixture('testnet/datastore-p20/FFFFFC19--998.xdr.zst'), 'x'))[0], p20Ledger(998));
});

test('a big plain batch is walked on the walker thread: the event loop turns meanwhile, and the ledgers are the same', async () => {
  const chain = new LedgerChain(2);
  const ledgers = [chain.make(sacTransfersTemplate(1000)), chain.make(sacTransfersTemplate(1000))].map((l) => ({ sequence: l.sequence, bytes: l.bytes }));
  const plain = encodeBatch(ledgers, false);
  assert.ok(plain.length > 4 * 1024 * 1024);
  let turns = 0;
  let walked = false;
  const walking = decodeBatch(plain, 'big.xdr').finally(() => { walked = true; });
  // the whole walk (hundreds of milliseconds) is elsewhere: the loop keeps turning until it ends
  while (!walked && turns < 50) { await new Promise((r) => setImmediate(r)); turns++; }
  assert.equal(turns, 50, 'the loop turned 50 times while the batch was walked');
  assert.deepEqual((await walking).map((l) => [l.sequence, Buffer.from(l.bytes).equals(Buffer.from(ledgers[l.sequence - 2].bytes))]), [[2, true], [3, true]]);
  assert.equal(plain.length, 12 + ledgers[0].bytes.length + ledgers[1].bytes.length, 'the caller\'s file is left whole');
  // a file that is a Buffer inside a bigger one (a Buffer's slice() is a view): its bytes alone go, the caller's Buffer stays
  const holder = Buffer.concat([Buffer.alloc(100, 7), plain]);
  assert.deepEqual((await decodeBatch(holder.subarray(100), 'big.xdr')).map((l) => [l.sequence, l.bytes.length]), ledgers.map((l) => [l.sequence, l.bytes.length]));
  assert.equal(holder.length, 100 + plain.length, 'the caller\'s Buffer is left whole');
  // and compressed (its decompressed bytes move to the thread and back)
  assert.deepEqual((await decodeBatch(encodeBatch(ledgers, true), 'big.zst')).map((l) => l.bytes.length), ledgers.map((l) => l.bytes.length));
  // an error on the thread comes back as the walk's own, naming the file
  const cut = plain.subarray(0, plain.length - 100);
  await assert.rejects(decodeBatch(cut, 'cut.xdr'), /^Error: cut\.xdr: truncated or corrupt LedgerCloseMeta for ledger 3/);
});
