// Semaphore: slots in arrival order; a waiter whose signal fires leaves the line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Semaphore } from '../../../src/work/semaphore.ts';

describe('Semaphore', () => {
  it('grants slots in arrival order as they are released, each release once', async () => {
    const s = new Semaphore(2);
    const a = await s.acquire();
    const b = await s.acquire();
    const order: string[] = [];
    const c = s.acquire().then((r) => { order.push('c'); return r; });
    const d = s.acquire().then((r) => { order.push('d'); return r; });
    assert.equal(s.waiting, 2);
    a();
    a(); // a second release of the same slot changes nothing
    const rc = await c;
    assert.deepEqual(order, ['c']);
    assert.equal(s.running, 2);
    b();
    const rd = await d;
    assert.deepEqual(order, ['c', 'd']);
    rc(); rd();
    assert.equal(s.running, 0);
  });

  it('a waiter whose signal fires is rejected with its reason and gives its place up', async () => {
    const s = new Semaphore(1);
    const held = await s.acquire();
    const controller = new AbortController();
    const waiting = s.acquire(controller.signal);
    const next = s.acquire();
    controller.abort(new Error('time limit'));
    await assert.rejects(waiting, /time limit/);
    held();
    (await next)();
    assert.equal(s.running, 0);
    assert.equal(s.waiting, 0);
    await assert.rejects(s.acquire(controller.signal), /time limit/, 'an already fired signal is refused at once');
  });
});
