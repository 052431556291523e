// XDR record marking: whole-buffer splitting and streamed reading agree, fragments are joined, and
// truncated or impossible lengths are errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concat, frameRecord, readRecords, splitRecords } from '../../../src/io/recordMarked.ts';
import { collect } from './support.ts';

const records = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(1000).fill(7)];
const framed = concat(records.map(frameRecord));

/** One record written as two fragments (the first without the last-fragment bit). */
function twoFragments(a: Uint8Array, b: Uint8Array): Uint8Array {
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, a.length);
  return concat([head, a, frameRecord(b)]);
}

async function* inPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

test('split and streamed reading give the framed records back', async () => {
  assert.deepEqual(splitRecords(framed), records);
  assert.deepEqual(await collect(readRecords(inPieces(framed, 5))), records);
});

test('fragments are joined into one record', async () => {
  const bytes = concat([twoFragments(new Uint8Array([1, 2]), new Uint8Array([3])), frameRecord(new Uint8Array([9]))]);
  assert.deepEqual(splitRecords(bytes), [new Uint8Array([1, 2, 3]), new Uint8Array([9])]);
  assert.deepEqual(await collect(readRecords(inPieces(bytes, 3))), [new Uint8Array([1, 2, 3]), new Uint8Array([9])]);
});

test('a cut record, a dangling fragment and an impossible length are errors', async () => {
  assert.throws(() => splitRecords(framed.subarray(0, framed.length - 1), 'f'), /f: truncated after 2 complete records/);
  assert.throws(() => splitRecords(twoFragments(new Uint8Array([1]), new Uint8Array([2])).subarray(0, 5), 'f'), /truncated after 0/);
  const huge = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
  assert.throws(() => splitRecords(huge, 'f'), /announces .* bytes: corrupt/);
  await assert.rejects(collect(readRecords(inPieces(framed.subarray(0, framed.length - 1), 4), 'f')), /f: truncated after 2 complete records/);
});
