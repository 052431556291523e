// SlicedWork: long step-wise work gives the event loop turns, and stops when cancelled.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SLICE_MS, SlicedWork } from '../../../src/work/slicedWork.ts';

/** Keeps the thread busy for `ms` (a step of real synchronous work). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* busy */ }
}

function* steps(n: number, stepMs: number, done: number[]): Generator<void, string, void> {
  for (let i = 0; i < n; i++) {
    spin(stepMs);
    done.push(i);
    yield;
  }
  return 'finished';
}

describe('SlicedWork', () => {
  it('lets other callbacks run between slices of a long piece of work, and returns its result', async () => {
    const done: number[] = [];
    const seenAt: number[] = [];
    // a callback queued before the work starts can only run if the work gives the event loop a turn
    const ticker = setInterval(() => seenAt.push(done.length), 0);
    const work = new SlicedWork(() => false);
    const result = await work.run(steps(8, SLICE_MS / 2, done));
    clearInterval(ticker);
    assert.equal(result, 'finished');
    assert.equal(done.length, 8);
    assert.ok(seenAt.some((n) => n > 0 && n < 8), `callbacks ran only outside the work: ${seenAt.join(',')}`);
    assert.ok(work.busyMs >= 8 * (SLICE_MS / 2), 'busy time counts every step');
  });

  it('gives up when cancelled, without running the remaining steps', async () => {
    const done: number[] = [];
    let cancelled = false;
    setImmediate(() => { cancelled = true; });
    const result = await new SlicedWork(() => cancelled).run(steps(20, SLICE_MS, done));
    assert.equal(result, undefined);
    assert.ok(done.length < 20, `ran ${done.length} of 20 steps`);
  });

  it('runs short work to the end in one go', async () => {
    const done: number[] = [];
    let turns = 0;
    const immediate = setImmediate(() => { turns++; });
    assert.equal(await new SlicedWork(() => false).run(steps(3, 0, done)), 'finished');
    clearImmediate(immediate);
    assert.deepEqual(done, [0, 1, 2]);
    assert.equal(turns, 0, 'no turn was given for work shorter than a slice');
  });

  it('checkpoint: a turn only once the slice is used up; false once cancelled', async () => {
    let cancelled = false;
    const work = new SlicedWork(() => cancelled);
    let turns = 0;
    const count = () => setImmediate(() => { turns++; });
    count();
    assert.equal(await work.checkpoint(), true);
    assert.equal(turns, 0, 'within the slice: no turn');
    spin(SLICE_MS + 1);
    assert.equal(await work.checkpoint(), true);
    assert.equal(turns, 1, 'slice used up: the pending callback ran');
    cancelled = true;
    assert.equal(await work.checkpoint(), false);
  });
});
