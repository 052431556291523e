// The hub's shared clock: loops go on within a slice, give the event loop one shared turn once it
// is spent, and work that starts after the loop turned (an idle node) gets a whole slice.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Slices } from '../../../src/stream/slices.ts';

const busy = (ms: number): void => { const end = performance.now() + ms; while (performance.now() < end) { /* work */ } };

it('goes on within a slice, then every loop waits for the same turn of the event loop', async () => {
  const slices = new Slices(20);
  assert.equal(slices.checkpoint(), undefined);
  busy(5);
  assert.equal(slices.checkpoint(), undefined, 'within the slice');
  let served = false;
  setImmediate(() => { served = true; }); // someone else's work, waiting for the event loop
  busy(20);
  const a = slices.checkpoint();
  const b = slices.checkpoint();
  assert.ok(a instanceof Promise);
  assert.equal(a, b, 'one turn for all');
  assert.equal(served, false);
  await a;
  assert.equal(served, true, 'the event loop ran what was waiting');
  assert.equal(slices.checkpoint(), undefined, 'a new slice after the turn');
});

it('work that starts after the event loop turned by itself gets a whole slice', async () => {
  const slices = new Slices(20);
  assert.equal(slices.checkpoint(), undefined);
  await new Promise((r) => setTimeout(r, 40)); // idle: longer than a slice
  assert.equal(slices.checkpoint(), undefined);
  busy(25);
  assert.ok(slices.checkpoint() instanceof Promise);
});
