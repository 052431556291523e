// Per-method queue/time limits and global HTTP limits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MethodGate, GlobalGate } from '../../../src/rpc/limits.ts';
import { assertAlive, request, rpc, startServer } from './support.ts';

const until = async (cond: () => boolean, ms = 2000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('per-method time limit', () => {
  it('answers -32001 with the bracketed message and aborts the handler', async () => {
    const t = await startServer();
    try {
      // the handler would run 3 s; its abort (below) shows the limit, not the handler, ended it
      const r = await rpc(t.port, { jsonrpc: '2.0', id: 'slow', method: 'slow', params: { ms: 3000 } });
      assert.equal(r.status, 200);
      assert.equal(r.text, '{"jsonrpc":"2.0","id":"slow","error":{"code":-32001,"message":"[-32001] request exceeded processing limit threshold"}}');
      await until(() => t.probe.aborted.length === 1);
      assert.deepEqual(t.probe.aborted, ['[-32001] request exceeded processing limit threshold']);
      // a fast call of the same method is fine
      const ok = await rpc(t.port, { jsonrpc: '2.0', id: 2, method: 'slow', params: { ms: 10 } });
      assert.equal(ok.text, '{"jsonrpc":"2.0","id":2,"result":"finished"}');
      await assertAlive(t.port);
    } finally {
      await t.close();
    }
  });

  it('times out one batch element and keeps the others', async () => {
    const t = await startServer();
    try {
      const r = await rpc(t.port, [
        { jsonrpc: '2.0', id: 1, method: 'slow', params: { ms: 3000 } },
        { jsonrpc: '2.0', id: 2, method: 'slow', params: { ms: 10 } },
      ]);
      assert.deepEqual(r.json, [
        { jsonrpc: '2.0', id: 1, error: { code: -32001, message: '[-32001] request exceeded processing limit threshold' } },
        { jsonrpc: '2.0', id: 2, result: 'finished' },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('per-method queue limit', () => {
  it('refuses the call beyond the limit with -32098 until a slot frees', async () => {
    const t = await startServer(); // block: limit 2
    try {
      const first = rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'block' });
      const second = rpc(t.port, { jsonrpc: '2.0', id: 2, method: 'block' });
      await until(() => t.probe.blocked.length === 2);
      const third = await rpc(t.port, { jsonrpc: '2.0', id: 3, method: 'block' });
      assert.equal(third.status, 200);
      assert.equal(third.text, '{"jsonrpc":"2.0","id":3,"error":{"code":-32098,"message":"rpc queue for block surpassed queue limit of 2 requests"}}');
      // other methods are not affected
      await assertAlive(t.port);
      for (const release of t.probe.blocked.splice(0)) release('done');
      assert.equal((await first).text, '{"jsonrpc":"2.0","id":1,"result":"done"}');
      assert.equal((await second).text, '{"jsonrpc":"2.0","id":2,"result":"done"}');
      const again = rpc(t.port, { jsonrpc: '2.0', id: 4, method: 'block' });
      await until(() => t.probe.blocked.length === 1);
      t.probe.blocked.splice(0)[0]('again');
      assert.equal((await again).text, '{"jsonrpc":"2.0","id":4,"result":"again"}');
    } finally {
      await t.close();
    }
  });

  it('holds the slot of a timed-out call until its handler returns', () => {
    const gate = new MethodGate('m', 1, 100);
    assert.equal(gate.enter(), undefined);
    const e = gate.enter();
    assert.equal(e?.code, -32098);
    assert.equal(e?.message, 'rpc queue for m surpassed queue limit of 1 requests');
    gate.exit();
    assert.equal(gate.enter(), undefined);
  });

  it('reads limits from config with a default, and treats 0 as no limit', () => {
    const cfg = { methodQueueLimits: { default: 10, getFeeStats: 3 }, methodMaxDurations: { default: 5, getEvents: 10 } };
    const a = MethodGate.fromConfig('getFeeStats', cfg);
    assert.equal(a.queueLimit, 3);
    assert.equal(a.maxDurationMs, 5000);
    const b = MethodGate.fromConfig('getEvents', cfg);
    assert.equal(b.queueLimit, 10);
    assert.equal(b.maxDurationMs, 10000);
    assert.equal(b.warnMs, 10000 / 3);
    assert.equal(new MethodGate('x', 0, 0).queueLimit, Infinity);
    assert.equal(new GlobalGate(0, 0).maxDurationMs, Infinity);
  });
});

describe('global limits', () => {
  it('answers 503 with an empty body beyond the concurrent request limit', async () => {
    const t = await startServer({ requestBacklogGlobalQueueLimit: 1 });
    try {
      const pending = rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'block' });
      await until(() => t.probe.blocked.length === 1);
      const r = await request(t.port, { body: { jsonrpc: '2.0', id: 2, method: 'echo' } });
      assert.equal(r.status, 503);
      assert.equal(r.text, '');
      t.probe.blocked.splice(0)[0]('ok');
      assert.equal((await pending).status, 200);
      await assertAlive(t.port);
    } finally {
      await t.close();
    }
  });

  it('answers 504 with an empty body past the request duration limit', async () => {
    const t = await startServer({ maxRequestExecutionDuration: 0.3, methodMaxDurations: { default: 5 } });
    try {
      // `block` never finishes by itself: any answer is the limit's
      const r = await request(t.port, { body: { jsonrpc: '2.0', id: 1, method: 'block' } });
      assert.equal(r.status, 504);
      assert.equal(r.text, '');
      for (const release of t.probe.blocked.splice(0)) release('late');
      await assertAlive(t.port);
    } finally {
      await t.close();
    }
  });
});
