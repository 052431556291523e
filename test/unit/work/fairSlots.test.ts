// FairSlots: the slots go to the owners in turn, one owner holds at most its cap while others wait,
// a waiter that is not ready keeps its place without holding anyone back, and a waiter whose signal
// fires leaves.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FairSlots } from '../../../src/work/fairSlots.ts';

/** Acquires for `owner`, recording `name` in `order` when granted. */
const taking = (s: FairSlots, order: string[], owner: string | undefined, name: string, ready?: () => boolean) =>
  s.acquire(owner, undefined, ready).then((release) => { order.push(name); return release; });

describe('FairSlots', () => {
  it('a freed slot goes to the owners in turn, not to the longest line', async () => {
    const s = new FairSlots(1);
    const order: string[] = [];
    const first = await taking(s, order, 'a', 'a1');
    const waiters = new Map<string, Promise<() => void>>([
      ['a2', taking(s, order, 'a', 'a2')], ['a3', taking(s, order, 'a', 'a3')], ['a4', taking(s, order, 'a', 'a4')], ['b1', taking(s, order, 'b', 'b1')],
    ]);
    assert.equal(s.waiting, 4);
    first();
    // each one granted releases its slot to the next
    for (let i = 0; i < 4; i++) {
      const granted = order[order.length - 1];
      await new Promise((r) => setImmediate(r));
      const next = order[order.length - 1];
      assert.notEqual(next, granted, `a slot was granted after ${granted}`);
      (await waiters.get(next)!)();
    }
    assert.deepEqual(order, ['a1', 'a2', 'b1', 'a3', 'a4']);
    assert.equal(s.running, 0);
  });

  it('while another owner waits, one owner holds at most its cap; alone, it may use every slot', async () => {
    const s = new FairSlots(2, 1);
    const order: string[] = [];
    const a1 = await taking(s, order, 'a', 'a1');
    const a2 = await taking(s, order, 'a', 'a2'); // alone: over its cap rather than a slot left idle
    assert.equal(s.running, 2);
    const a3 = taking(s, order, 'a', 'a3');
    const b1 = taking(s, order, 'b', 'b1');
    a1(); // a still holds one, its cap: the slot goes to b, though a3 came first
    (await b1)();
    assert.deepEqual(order, ['a1', 'a2', 'b1']);
    a2();
    (await a3)();
    assert.deepEqual(order, ['a1', 'a2', 'b1', 'a3']);
    assert.equal(s.running, 0);
  });

  it('calls without an owner share one line with no cap of its own', async () => {
    const s = new FairSlots(3, 1);
    const releases = await Promise.all([s.acquire(), s.acquire(), s.acquire()]);
    assert.equal(s.running, 3);
    for (const r of releases) r();
    assert.equal(s.running, 0);
  });

  it('a waiter that is not ready keeps its place, lets others pass, and is granted once woken ready', async () => {
    const s = new FairSlots(1);
    const order: string[] = [];
    let aReady = false;
    const a = taking(s, order, 'a', 'a', () => aReady);
    const b = taking(s, order, 'b', 'b');
    (await b)();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['b'], 'a is not ready: b went first');
    assert.equal(s.waiting, 1);
    aReady = true;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['b'], 'nothing looks again until woken');
    s.wake();
    (await a)();
    assert.deepEqual(order, ['b', 'a']);
  });

  it('a waiter whose signal fires is rejected with its reason and leaves its line', async () => {
    const s = new FairSlots(1);
    const held = await s.acquire('a');
    const controller = new AbortController();
    const gone = s.acquire('b', controller.signal);
    const order: string[] = [];
    const c = taking(s, order, 'c', 'c');
    controller.abort(new Error('time limit'));
    await assert.rejects(gone, /time limit/);
    assert.equal(s.waiting, 1);
    held();
    (await c)();
    assert.deepEqual(order, ['c']);
    await assert.rejects(s.acquire('d', AbortSignal.abort(new Error('already'))), /already/);
  });
});
