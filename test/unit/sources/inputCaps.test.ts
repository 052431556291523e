// The input caps (src/io/inputCaps.ts): files, decompression and HTTP bodies are refused while they
// are read, the moment they pass the cap, with an error naming the input, the cap and its flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createZstdCompress, gzipSync, zstdCompressSync } from 'node:zlib';
import {
  InputTooLargeError, gunzipCapped, gunzipCappedSync, readBodyCapped, readFileCapped, readFileCappedSync, type ByteCap,
} from '../../../src/io/inputCaps.ts';
import { decompressZstd, decompressZstdSync } from '../../../src/io/zstdFrames.ts';

const cap = (bytes: number): ByteCap => ({ bytes, flag: 'max-input-bytes' });
const MiB = 1024 * 1024;

test('a file is read whole up to the cap, and refused past it: a regular file before reading, a device while reading', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-caps-'));
  const file = join(dir, 'f');
  writeFileSync(file, new Uint8Array(1000).fill(5));
  assert.deepEqual(await readFileCapped(file, cap(1000)), new Uint8Array(1000).fill(5));
  assert.deepEqual(readFileCappedSync(file, cap(1000)), new Uint8Array(1000).fill(5));
  await assert.rejects(readFileCapped(file, cap(999)), new RegExp(`^InputTooLargeError: ${file}: refused: it is larger than the 999 bytes input cap \\(--max-input-bytes raises it\\)$`));
  assert.throws(() => readFileCappedSync(file, cap(999)), InputTooLargeError);
  writeFileSync(file, new Uint8Array(0));
  assert.equal((await readFileCapped(file, cap(10))).length, 0);
  // /dev/zero never ends: it stops at the cap
  await assert.rejects(readFileCapped('/dev/zero', cap(3 * MiB)), /\/dev\/zero: refused: it is larger than the 3 MiB input cap/);
  assert.throws(() => readFileCappedSync('/dev/zero', cap(3 * MiB)), /\/dev\/zero: refused/);
});

test('zstd and gzip are decompressed up to the cap and refused past it, frame after frame', async () => {
  const data = new Uint8Array(4 * MiB).fill(1);
  const zst = zstdCompressSync(data);
  assert.equal((await decompressZstd(zst, 'z', cap(4 * MiB))).length, 4 * MiB);
  await assert.rejects(decompressZstd(zst, 'z', cap(4 * MiB - 1)), /^InputTooLargeError: z: refused: decompressed, it is larger than the 4.0 MiB input cap/);
  assert.throws(() => decompressZstdSync(zst, 'z', cap(MiB)), /z: refused: decompressed, it is larger than the 1 MiB input cap/);
  // two frames, each under the cap, together over it
  const twice = Buffer.concat([zstdCompressSync(data.subarray(0, 3 * MiB)), zstdCompressSync(data.subarray(0, 3 * MiB))]);
  assert.equal((await decompressZstd(twice, 'z', cap(6 * MiB))).length, 6 * MiB);
  await assert.rejects(decompressZstd(twice, 'z', cap(5 * MiB)), InputTooLargeError);
  assert.throws(() => decompressZstdSync(twice, 'z', cap(5 * MiB)), InputTooLargeError);
  const gz = gzipSync(data);
  assert.equal((await gunzipCapped(gz, cap(4 * MiB), 'g')).length, 4 * MiB);
  await assert.rejects(gunzipCapped(gz, cap(MiB), 'g'), /g: refused: decompressed/);
  assert.throws(() => gunzipCappedSync(gz, cap(MiB), 'g'), /g: refused: decompressed/);
  await assert.rejects(gunzipCapped(gz.subarray(0, 100), cap(MiB), 'g'), /^Error: g: corrupt gzip data/);
});

test('a zstd frame is decompressed into one buffer of the size its header declares; a header that lies is corrupt data', async () => {
  const data = (n: number) => Buffer.from(new Uint8Array(n).map((_, i) => (i * 31) & 0xff));
  // the size field zstdCompressSync writes: 2 bytes up to 65 791, 4 beyond
  for (const n of [65_791, 65_792, 5_000_000]) {
    const zst = zstdCompressSync(data(n));
    for (const out of [await decompressZstd(zst, 'z', cap(8 * MiB)), decompressZstdSync(zst, 'z', cap(8 * MiB))]) {
      assert.ok(data(n).equals(out), `${n} bytes: the data`);
      assert.equal(out.buffer.byteLength, n + 1, `${n} bytes: one buffer of the declared size and a byte, no chunks joined`);
    }
  }
  // a frame declaring a size other than its content's
  const lying = Buffer.from(zstdCompressSync(data(100_000)));
  lying.writeUInt32LE(50_000, 5); // single-segment frame: the 4-byte size follows the descriptor
  await assert.rejects(decompressZstd(lying, 'lie', cap(MiB)), /^Error: lie: corrupt zstd data in the frame at byte 0/);
  lying.writeUInt32LE(0xffff_ffff, 5);
  assert.throws(() => decompressZstdSync(lying, 'lie', cap(MiB)), /^Error: lie: corrupt zstd data in the frame at byte 0/);
  // declaring more than its content, within what is allocated at the declared size: zstd checks the
  // size at the frame's end, so no small output comes back holding a buffer of the declared size
  lying.writeUInt32LE(60 * MiB, 5);
  await assert.rejects(decompressZstd(lying, 'lie', cap(64 * MiB)), /^Error: lie: corrupt zstd data in the frame at byte 0/);
  assert.throws(() => decompressZstdSync(lying, 'lie', cap(64 * MiB)), /^Error: lie: corrupt zstd data in the frame at byte 0/);
  // a streamed frame declares no size
  const streamed = await new Promise<Buffer>((resolve) => {
    const parts: Buffer[] = [];
    const z = createZstdCompress().on('data', (p: Buffer) => parts.push(p)).on('end', () => resolve(Buffer.concat(parts)));
    for (let i = 0; i < 5; i++) z.write(data(300_000));
    z.end();
  });
  assert.ok(Buffer.concat(Array.from({ length: 5 }, () => data(300_000))).equals(await decompressZstd(streamed, 'streamed', cap(8 * MiB))));
});

test('an HTTP body is refused by its Content-Length, or while it streams, and the transfer stops there', async () => {
  let sent = 0;
  let closed = false;
  const server = createServer((req, res) => {
    if (req.url === '/declared') { res.setHeader('content-length', String(10 * MiB)); res.end(); return; }
    if (req.url === '/small') { res.end('{"ok":true}'); return; }
    // an endless body, written as fast as it is read
    res.on('close', () => { closed = true; });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const write = () => { while (!res.destroyed && res.write(chunk)) sent += chunk.length; if (!res.destroyed) sent += chunk.length; };
    res.on('drain', write);
    write();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    assert.equal(Buffer.from(await readBodyCapped(await fetch(`${url}/small`), cap(100), 'small')).toString(), '{"ok":true}');
    await assert.rejects(readBodyCapped(await fetch(`${url}/declared`), cap(MiB), 'declared'), /declared: refused: it is larger than the 1 MiB input cap/);
    await assert.rejects(readBodyCapped(await fetch(`${url}/endless`), cap(2 * MiB), 'endless'), /endless: refused: it is larger than the 2 MiB input cap/);
    for (let i = 0; i < 200 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(closed, 'the connection was closed');
    assert.ok(sent < 64 * MiB, `the server sent ${sent} bytes before the reader hung up`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
