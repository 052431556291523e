// XDR record marking: whole-buffer splitting and streamed reading agree, fragments are joined, and
// truncated or impossible lengths are errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameRecord, readRecords, splitRecords } from '../../../src/io/recordMarked.ts';
import { collect } from './support.ts';
import { InputTooLargeError, joinChunks } from '../../../src/io/inputCaps.ts';

const records = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(1000).fill(7)];
const framed = joinChunks(records.map(frameRecord));

/** One record written as two fragments (the first without the last-fragment bit). */
function twoFragments(a: Uint8Array, b: Uint8Array): Uint8Array {
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, a.length);
  return joinChunks([head, a, frameRecord(b)]);
}

async function* inPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

test('split and streamed reading give the framed records back', async () => {
  assert.deepEqual(splitRecords(framed), records);
  assert.deepEqual(await collect(readRecords(inPieces(framed, 5))), records);
});

test('fragments are joined into one record', async () => {
  const bytes = joinChunks([twoFragments(new Uint8Array([1, 2]), new Uint8Array([3])), frameRecord(new Uint8Array([9]))]);
  assert.deepEqual(splitRecords(bytes), [new Uint8Array([1, 2, 3]), new Uint8Array([9])]);
  assert.deepEqual(await collect(readRecords(inPieces(bytes, 3))), [new Uint8Array([1, 2, 3]), new Uint8Array([9])]);
});

test('a cut record, a dangling fragment and an impossible length are errors', async () => {
  assert.throws(() => splitRecords(framed.subarray(0, framed.length - 1), 'f'), /f: truncated after 2 complete records/);
  assert.throws(() => splitRecords(twoFragments(new Uint8Array([1]), new Uint8Array([2])).subarray(0, 5), 'f'), /truncated after 0/);
  const huge = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
  assert.throws(() => splitRecords(huge, 'f'), /f: record 0 announces 2147483647 bytes \(corrupt, not record-marked, or too large\): refused: it is larger than the 256 MiB input cap \(--max-input-bytes raises it\)/);
  await assert.rejects(collect(readRecords(inPieces(framed.subarray(0, framed.length - 1), 4), 'f')), /f: truncated after 2 complete records/);
});

test('a record is capped as its marks announce it: one fragment, fragments adding up, or empty fragments without end', async () => {
  const cap = { bytes: 1000, flag: 'max-input-bytes' };
  const big = frameRecord(new Uint8Array(1001));
  assert.throws(() => splitRecords(big, 'f', cap), /f: record 0 announces 1001 bytes .*larger than the 1000 bytes input cap/);
  await assert.rejects(collect(readRecords(inPieces(big, 4), 'f', cap)), InputTooLargeError);
  // within the cap: exactly at it, marks included
  assert.equal(splitRecords(frameRecord(new Uint8Array(996)), 'f', cap)[0].length, 996);
  // two fragments of 600: each under the cap, together over it
  const halves = twoFragments(new Uint8Array(600), new Uint8Array(600));
  assert.throws(() => splitRecords(halves, 'f', cap), /f: record 0: refused/);
  await assert.rejects(collect(readRecords(inPieces(halves, 50), 'f', cap)), /f: record 0: refused/);
  // fragments of 100 bytes without end: the stream is cut at the cap, not held
  const fragment = new Uint8Array(104);
  new DataView(fragment.buffer).setUint32(0, 100);
  let handedOut = 0;
  async function* endless(): AsyncGenerator<Uint8Array> { for (;;) { handedOut += fragment.length; yield fragment; } }
  await assert.rejects(collect(readRecords(endless(), 'endless', cap)), /endless: record 0: refused: it is larger than the 1000 bytes input cap/);
  assert.ok(handedOut <= 1104, `read ${handedOut} bytes`);
  // zeros (/dev/zero) are empty fragments not marked last: corrupt at the first mark
  async function* zeros(): AsyncGenerator<Uint8Array> { for (;;) yield new Uint8Array(256); }
  await assert.rejects(collect(readRecords(zeros(), 'zeros', cap)), /^Error: zeros: record 0: an empty fragment not marked last: corrupt, or not record-marked$/);
  assert.throws(() => splitRecords(new Uint8Array(8), 'zeros'), /zeros: record 0: an empty fragment not marked last/);
});

test('a record cut across many pieces comes back whole, gathered once', async () => {
  const record = new Uint8Array(100_000).map((_, i) => i & 0xff);
  const bytes = joinChunks([frameRecord(record), frameRecord(Uint8Array.of(1))]);
  assert.deepEqual(await collect(readRecords(inPieces(bytes, 999))), [record, Uint8Array.of(1)]);
  assert.deepEqual(await collect(readRecords(inPieces(bytes, 1))), [record, Uint8Array.of(1)]);
});
