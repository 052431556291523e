// Reading the replay's input: every format told by its bytes, and a clear error for anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, zstdCompressSync } from 'node:zlib';
import { decodeLedger, readLedgerFile, ReplayInputError } from '../../../src/replay/ledgerFiles.ts';
import { frameRecord } from '../../../src/io/recordMarked.ts';
import { joinChunks } from '../../../src/io/inputCaps.ts';
import { encodeBatch } from '../../../src/sources/datastore/batchCodec.ts';
import { xdr } from '@stellar/stellar-sdk';

const FIXTURES = new URL('../../../test/fixtures/', import.meta.url).pathname;
const gz = (seq: number) => join(FIXTURES, `pubnet/ledgers/ledger-${seq}.xdr.gz`);
const rawMeta = (seq: number) => new Uint8Array(gunzipSync(readFileSync(gz(seq))));

function withTemp(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'replay-files-'));
  try { run(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
}

test('a gzipped meta, the same meta raw and zstd-compressed, give the same ledger', () => withTemp((dir) => {
  const raw = rawMeta(63092982);
  writeFileSync(join(dir, 'raw.xdr'), raw);
  writeFileSync(join(dir, 'meta.zst'), zstdCompressSync(raw));
  for (const path of [gz(63092982), join(dir, 'raw.xdr'), join(dir, 'meta.zst')]) {
    const ledgers = readLedgerFile(path);
    assert.deepEqual(ledgers.map((l) => l.sequence), [63092982], path);
    assert.deepEqual(Buffer.from(ledgers[0].bytes), Buffer.from(raw), path);
  }
}));

test('SEP-54 batches, plain and zstd', () => {
  assert.deepEqual(readLedgerFile(join(FIXTURES, 'pubnet/datastore/FC62697B--60659332.xdr')).map((l) => l.sequence), [60659332]);
  assert.deepEqual(readLedgerFile(join(FIXTURES, 'pubnet/datastore/FCD285FF--53312000.xdr.zstd')).map((l) => l.sequence), [53312000]);
});

test('a record-marked meta stream (what stellar-core writes) gives each of its ledgers', () => withTemp((dir) => {
  const path = join(dir, 'stream.xdr');
  writeFileSync(path, joinChunks([frameRecord(rawMeta(63092983)), frameRecord(rawMeta(63092984))]));
  assert.deepEqual(readLedgerFile(path).map((l) => l.sequence), [63092983, 63092984]);
}));

test('bad input is a ReplayInputError naming the file, never anything else', () => withTemp((dir) => {
  const expectInputError = (path: string, pattern: RegExp, read: (p: string) => unknown = readLedgerFile) => {
    assert.throws(() => read(path), (e: unknown) => e instanceof ReplayInputError && pattern.test(e.message) && e.message.includes(path),
      `${path} should fail with ${pattern}`);
  };
  expectInputError(join(dir, 'missing.xdr'), /cannot read \(ENOENT\)/);
  writeFileSync(join(dir, 'notes.txt'), 'these are not ledgers\n');
  expectInputError(join(dir, 'notes.txt'), /not a LedgerCloseMeta/);
  writeFileSync(join(dir, 'tiny'), new Uint8Array([0, 0]));
  expectInputError(join(dir, 'tiny'), /2 bytes/);
  const gzBytes = readFileSync(gz(63092985));
  writeFileSync(join(dir, 'cut.xdr.gz'), gzBytes.subarray(0, gzBytes.length >> 1));
  expectInputError(join(dir, 'cut.xdr.gz'), /corrupt gzip/);
  // a raw meta cut short: its header reads, the whole does not decode
  writeFileSync(join(dir, 'cut.xdr'), rawMeta(63092985).subarray(0, 5000));
  expectInputError(join(dir, 'cut.xdr'), /truncated or corrupt LedgerCloseMeta for ledger 63092985/,
    (p) => readLedgerFile(p).map((l) => decodeLedger(l, p)));
}));

test('a batch of a standalone network\'s ledger 1 or 2 (its start opens like a raw meta\'s version) is read as a batch', () => withTemp((dir) => {
  // a pubnet meta relabelled as ledger 1 and 2: the batch's own checks only read sequences
  const relabelled = (seq: number): Uint8Array => {
    const meta = xdr.LedgerCloseMeta.schema.decode(rawMeta(63092982));
    if (meta.v !== 2) throw new Error('fixture is not a V2 meta');
    meta.v2.ledgerHeader.header.ledgerSeq = seq;
    return xdr.LedgerCloseMeta.schema.encode(meta);
  };
  for (const start of [1, 2]) {
    const path = join(dir, `batch-${start}.xdr`);
    const metas = [relabelled(start), relabelled(start + 1)];
    writeFileSync(path, encodeBatch(metas.map((bytes, i) => ({ sequence: start + i, bytes })), false));
    const ledgers = readLedgerFile(path);
    assert.deepEqual(ledgers.map((l) => l.sequence), [start, start + 1], path);
    assert.deepEqual(Buffer.from(ledgers[1].bytes), Buffer.from(metas[1]));
    // the same meta alone, raw, is still one ledger
    writeFileSync(join(dir, 'raw.xdr'), metas[0]);
    assert.deepEqual(readLedgerFile(join(dir, 'raw.xdr')).map((l) => l.sequence), [start]);
  }
}));
