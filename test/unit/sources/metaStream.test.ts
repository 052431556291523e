import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { MetaStreamSource } from '../../../src/sources/metaStream/metaStreamSource.ts';
import { frameRecord } from '../../../src/io/recordMarked.ts';
import type { RawLedger } from '../../../src/sources/ledgerSource.ts';
import { FIXTURES, collect, headerOf, never, p20Ledger } from './support.ts';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-metastream-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const stream = (ledgers: RawLedger[]) => Buffer.concat(ledgers.map((l) => frameRecord(l.bytes)));

/** Counts the records of a record-marked stream by walking its marks (single-fragment records). */
function countRecords(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let n = 0;
  for (let at = 0; at < bytes.length; n++) at += 4 + (view.getUint32(at) & 0x7fffffff);
  return n;
}

// The load-test bundles are not contiguous: three ledgers each, the third two sequences after the
// second (84, 85, 88 and 62, 63, 66); the reference's load test rewrites sequences as it replays.
// As a ledger source they are read up to the gap, which is an error.
for (const [name, first, afterGap] of [['load-test-ledgers-v23-standalone', 84, 88], ['load-test-ledgers-v24', 62, 66]] as const) {
  test(`synthetic zstd stream ${name}: its ledgers up to the gap, then an error naming the gap`, async () => {
    const path = join(FIXTURES, 'synthetic', `${name}.xdr.zstd`);
    const raw = new Uint8Array(zstdDecompressSync(readFileSync(path)));
    assert.equal(countRecords(raw), 3);
    const firstLength = new DataView(raw.buffer, raw.byteOffset).getUint32(0) & 0x7fffffff;
    assert.deepEqual(headerOf(raw.subarray(4, 4 + firstLength)).header.ledgerSeq, first);

    const seen: RawLedger[] = [];
    await assert.rejects(async () => {
      for await (const l of new MetaStreamSource({ path }).ledgers(first, { signal: never() })) seen.push(l);
    }, new RegExp(`ledger ${afterGap} follows ledger ${first + 1}, expected ledger ${first + 2}`));
    assert.deepEqual(seen.map((l) => l.sequence), [first, first + 1]);
    for (const l of seen) assert.equal(headerOf(l.bytes).header.ledgerSeq, l.sequence);
    assert.deepEqual(seen[0].bytes, raw.subarray(4, 4 + firstLength), 'records are handed out byte for byte');

    // `to` before the gap ends cleanly; `from` after it starts there.
    assert.equal((await collect(new MetaStreamSource({ path }).ledgers(first, { signal: never(), to: first + 1 }))).length, 2);
    assert.deepEqual((await collect(new MetaStreamSource({ path }).ledgers(afterGap, { signal: never() }))).map((l) => l.sequence), [afterGap]);
  });
}

test('an uncompressed stream file: byte-exact records; `from` before the stream is refused', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'meta.xdr');
  const ledgers = [997, 998, 999].map(p20Ledger);
  writeFileSync(path, stream(ledgers));
  assert.deepEqual(await collect(new MetaStreamSource({ path }).ledgers(997, { signal: never() })), ledgers);
  assert.deepEqual(await collect(new MetaStreamSource({ path }).ledgers(999, { signal: never() })), [ledgers[2]]);
  await assert.rejects(collect(new MetaStreamSource({ path }).ledgers(900, { signal: never() })), /meta\.xdr: starts at ledger 997, after the requested ledger 900/);
  assert.equal(await new MetaStreamSource({ path }).latest(), undefined);
  assert.equal(await new MetaStreamSource({ path }).earliest(), undefined);
});

test('a gap in the stream is an error naming both ledgers', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'gap.xdr');
  writeFileSync(path, stream([p20Ledger(997), p20Ledger(999)]));
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const l of new MetaStreamSource({ path }).ledgers(997, { signal: never() })) seen.push(l.sequence);
  }, /gap\.xdr: ledger 999 follows ledger 997, expected ledger 998/);
  assert.deepEqual(seen, [997]);
  // going back after `from` is as wrong as skipping ahead
  writeFileSync(path, stream([p20Ledger(997), p20Ledger(998), p20Ledger(997)]));
  await assert.rejects(collect(new MetaStreamSource({ path }).ledgers(998, { signal: never() })), /ledger 997 follows ledger 998, expected ledger 999/);
});

test('a stream cut inside a record, plain or zstd, is an error after the whole ledgers before it', async (t) => {
  const dir = tempDir(t);
  const whole = stream([997, 998, 999].map(p20Ledger));
  const cut = whole.subarray(0, whole.length - 100);
  for (const [name, bytes] of [['cut.xdr', cut], ['cut.xdr.zstd', zstdCompressSync(cut)]] as const) {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const seen: number[] = [];
    await assert.rejects(async () => {
      for await (const l of new MetaStreamSource({ path }).ledgers(997, { signal: never() })) seen.push(l.sequence);
    }, new RegExp(`${name.replace(/\./g, '\\.')}: truncated after 2 complete records`));
    assert.deepEqual(seen, [997, 998], name);
  }
  // a compressed file cut inside its zstd frame
  const path = join(dir, 'cutframe.xdr.zstd');
  const z = zstdCompressSync(whole);
  writeFileSync(path, z.subarray(0, z.length - 10));
  await assert.rejects(collect(new MetaStreamSource({ path }).ledgers(997, { signal: never() })), /cutframe\.xdr\.zstd: truncated zstd data/);
  // garbage
  writeFileSync(path, Buffer.alloc(64, 0xee));
  await assert.rejects(collect(new MetaStreamSource({ path }).ledgers(997, { signal: never() })), /cutframe\.xdr\.zstd: record 0 announces \d+ bytes/);
});

test('follow: a file core is still writing is read as it grows', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'growing.xdr');
  const [a, b, c] = [997, 998, 999].map(p20Ledger);
  writeFileSync(path, frameRecord(a.bytes));
  const abort = new AbortController();
  const got: number[] = [];
  const reading = (async () => {
    for await (const l of new MetaStreamSource({ path, follow: true, pollIntervalMs: 10 }).ledgers(997, { signal: abort.signal })) got.push(l.sequence);
  })();
  await waitFor(() => got.length === 1);
  const framed = frameRecord(b.bytes);
  appendFileSync(path, framed.subarray(0, 50)); // half a record: nothing yet
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(got, [997]);
  appendFileSync(path, framed.subarray(50));
  appendFileSync(path, frameRecord(c.bytes));
  await waitFor(() => got.length === 3);
  abort.abort();
  await reading;
  assert.deepEqual(got, [997, 998, 999]);
  // `to` ends a followed file without waiting
  assert.equal((await collect(new MetaStreamSource({ path, follow: true }).ledgers(997, { signal: never(), to: 998 }))).length, 2);
});

test('a named pipe: read until the writer closes it; abort ends a wait for a writer', async (t) => {
  const dir = tempDir(t);
  const fifo = join(dir, 'core.pipe');
  execFileSync('mkfifo', [fifo]);
  const ledgers = [997, 998, 999].map(p20Ledger);
  const reading = collect(new MetaStreamSource({ path: fifo }).ledgers(997, { signal: never() }));
  const writer = await open(fifo, 'w');
  for (const l of ledgers) await writer.write(frameRecord(l.bytes));
  await writer.close();
  assert.deepEqual(await reading, ledgers);

  const abort = new AbortController();
  const waiting = collect(new MetaStreamSource({ path: fifo }).ledgers(997, { signal: abort.signal }));
  await new Promise((r) => setTimeout(r, 30));
  abort.abort();
  assert.deepEqual(await waiting, []);
});

test('"-" reads standard input', async (t) => {
  const dir = tempDir(t);
  const script = join(dir, 'readStdin.ts');
  const module = fileURLToPath(new URL('../../../src/sources/metaStream/metaStreamSource.ts', import.meta.url));
  writeFileSync(script, `import { MetaStreamSource } from ${JSON.stringify(module)};
const seqs = [];
for await (const l of new MetaStreamSource({ path: '-' }).ledgers(997, { signal: new AbortController().signal })) seqs.push(l.sequence);
console.log(JSON.stringify(seqs));
`);
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(zstdCompressSync(stream([997, 998, 999].map(p20Ledger))));
  let out = '';
  child.stdout.on('data', (b) => { out += b; });
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(out), [997, 998, 999]);
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('a meta stream record past the cap is refused as it is read: /dev/zero, a zstd bomb, one ledger too big', async (t) => {
  const cap = { bytes: 2 * 1024 * 1024, flag: 'max-input-bytes' };
  // /dev/zero reads as empty fragments not marked last: corrupt at once
  await assert.rejects(collect(new MetaStreamSource({ path: '/dev/zero', cap }).ledgers(0, { signal: never() })),
    /meta stream \/dev\/zero: record 0: an empty fragment not marked last: corrupt, or not record-marked/);
  // a compressed stream whose first record announces 100 MiB of zeros
  const dir = tempDir(t);
  const bomb = join(dir, 'bomb.xdr.zst');
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, 0x8000_0000 | (100 * 1024 * 1024));
  writeFileSync(bomb, zstdCompressSync(Buffer.concat([head, Buffer.alloc(100 * 1024 * 1024)])));
  await assert.rejects(collect(new MetaStreamSource({ path: bomb, cap }).ledgers(0, { signal: never() })),
    /bomb\.xdr\.zst: record 0 announces 104857600 bytes \(corrupt, not record-marked, or too large\): refused/);
  // a real ledger over a cap set below its size; under the default it goes through
  const file = join(dir, 'ledgers.xdr');
  writeFileSync(file, stream([p20Ledger(997)]));
  const small = { bytes: 1000, flag: 'max-input-bytes' };
  await assert.rejects(collect(new MetaStreamSource({ path: file, cap: small }).ledgers(997, { signal: never() })), /record 0 announces \d+ bytes/);
  assert.equal((await collect(new MetaStreamSource({ path: file }).ledgers(997, { signal: never() }))).length, 1);
});
