// The outbox's and the delivery scheduler's queue: first in, first out, across the cuts of its array.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Fifo } from '../../../src/stream/fifo.ts';

it('gives items back in the order they came, however pushes and shifts interleave', () => {
  const q = new Fifo<number>();
  assert.equal(q.shift(), undefined);
  const taken: number[] = [];
  let next = 0;
  // bursts of pushes, each followed by fewer shifts: the front passes 1024 many times over
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 300; i++) q.push(next++);
    for (let i = 0; i < 250; i++) taken.push(q.shift()!);
    assert.equal(q.length, next - taken.length);
    assert.equal(q.peek(), taken.at(-1)! + 1);
  }
  while (q.length > 0) taken.push(q.shift()!);
  assert.deepEqual(taken, Array.from({ length: next }, (_, i) => i));
  assert.equal(q.peek(), undefined);
  q.push(7);
  q.clear();
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
});
