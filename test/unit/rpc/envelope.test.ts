// JSON-RPC envelope rules over real HTTP (reference: jrpc2 v1.3.3 behind jhttp, as stellar-rpc uses it).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertAlive, rpc, startServer, type TestServer } from './support.ts';

let t: TestServer;
before(async () => { t = await startServer(); });
after(async () => { await t.close(); });
afterEach(async () => { await assertAlive(t.port); });

const err = (id: unknown, code: number, message: string, data?: string): unknown => ({
  jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data },
});

describe('envelope validation', () => {
  it('rejects a wrong version marker, echoing the id', async () => {
    const r = await rpc(t.port, { jsonrpc: '1.0', id: 7, method: 'echo' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, err(7, -32600, 'invalid version marker'));
  });

  it('rejects a missing version marker', async () => {
    const r = await rpc(t.port, { id: 'x', method: 'echo' });
    assert.deepEqual(r.json, err('x', -32600, 'invalid version marker'));
  });

  it('rejects a non-string version as a parse error', async () => {
    const r = await rpc(t.port, { jsonrpc: 2.0, id: 1, method: 'echo' });
    assert.deepEqual(r.json, err(1, -32700, 'invalid version key'));
  });

  it('rejects extra top-level fields with a string data naming them', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'echo', foo: 1 });
    assert.deepEqual(r.json, err(1, -32600, 'extra fields in request', 'foo'));
    const r2 = await rpc(t.port, { jsonrpc: '2.0', id: 2, method: 'echo', foo: 1, bar: null });
    assert.deepEqual(r2.json, err(2, -32600, 'extra fields in request', 'foo, bar'));
    assert.equal(typeof (r2.json as { error: { data: unknown } }).error.data, 'string');
  });

  for (const params of ['x', 5, true]) {
    it(`rejects params ${JSON.stringify(params)}`, async () => {
      const r = await rpc(t.port, { jsonrpc: '2.0', id: 3, method: 'echo', params });
      assert.deepEqual(r.json, err(3, -32600, 'parameters must be array or object'));
    });
  }

  it('rejects positional params with -32602 and a string data', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 4, method: 'echo', params: [1, 2] });
    const e = (r.json as { error: { code: number; message: string; data: unknown } }).error;
    assert.equal(e.code, -32602);
    assert.equal(e.message, 'invalid parameters');
    assert.equal(typeof e.data, 'string');
  });

  for (const id of [true, { a: 1 }, [1]]) {
    it(`rejects id ${JSON.stringify(id)} and answers with id null`, async () => {
      const r = await rpc(t.port, { jsonrpc: '2.0', id, method: 'echo' });
      assert.deepEqual(r.json, err(null, -32600, 'invalid request ID'));
    });
  }

  it('rejects a non-string method as a parse error', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 5, method: 12 });
    assert.deepEqual(r.json, err(5, -32700, 'invalid method name'));
  });

  it('rejects a missing method', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 6 });
    assert.deepEqual(r.json, err(6, -32600, 'empty method name'));
  });

  it('rejects reply fields next to a method', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 6, method: 'echo', result: 1 });
    assert.deepEqual(r.json, err(6, -32600, 'mixed request and reply fields'));
  });

  it('answers an unknown method with -32601 and the name as data', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 8, method: 'getLedgerEntry', params: {} });
    assert.deepEqual(r.json, err(8, -32601, 'method not found', 'getLedgerEntry'));
    const r2 = await rpc(t.port, { jsonrpc: '2.0', id: 9, method: 'rpc.serverInfo' });
    assert.deepEqual(r2.json, err(9, -32601, 'method not found', 'rpc.serverInfo'));
  });

  it('answers a top-level non-object with a single parse error', async () => {
    const r = await rpc(t.port, '42');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, err(null, -32700, 'request is not a JSON object'));
    const r2 = await rpc(t.port, '"hello"');
    assert.deepEqual(r2.json, err(null, -32700, 'request is not a JSON object'));
  });

  it('treats a top-level null as an empty object', async () => {
    const r = await rpc(t.port, 'null');
    assert.deepEqual(r.json, err(null, -32600, 'invalid version marker'));
  });

  it('answers an invalid message without id (id null), unlike a valid notification', async () => {
    const r = await rpc(t.port, { jsonrpc: '1.0', method: 'noop' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, err(null, -32600, 'invalid version marker'));
  });
});

describe('ids and notifications', () => {
  for (const id of [7, 0, -3, 1.5, 'abc', '1', 'ecb18f82ec12484190673502d0486b98']) {
    it(`echoes id ${JSON.stringify(id)} with its JSON type`, async () => {
      const r = await rpc(t.port, { jsonrpc: '2.0', id, method: 'echo', params: {} });
      assert.equal(r.text, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`);
    });
  }

  it('runs a notification without answering (204)', async () => {
    const before = t.probe.calls.noop ?? 0;
    const r = await rpc(t.port, { jsonrpc: '2.0', method: 'noop' });
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    assert.equal(t.probe.calls.noop, before + 1);
  });

  it('treats id null as a notification', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: null, method: 'noop' });
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
  });

  it('does not answer a notification to an unknown method or a failing one', async () => {
    assert.equal((await rpc(t.port, { jsonrpc: '2.0', method: 'nope' })).status, 204);
    assert.equal((await rpc(t.port, { jsonrpc: '2.0', method: 'throwPlain' })).status, 204);
    assert.equal((await rpc(t.port, { jsonrpc: '2.0', method: 'echo', params: { a: 'x' } })).status, 204);
  });
});

describe('params', () => {
  it('accepts params null, absent and {}', async () => {
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'echo', params: null },
      { jsonrpc: '2.0', id: 1, method: 'echo' },
      { jsonrpc: '2.0', id: 1, method: 'echo', params: {} },
    ]) {
      const r = await rpc(t.port, body);
      assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":{}}');
    }
  });

  it('drops null members recursively before validation; keeps null array elements', async () => {
    const r = await rpc(t.port, {
      jsonrpc: '2.0', id: 1, method: 'echo',
      params: { a: null, b: 'x', nested: { x: null, y: 2 }, list: [null, { z: null, w: 1 }], extra: null },
    });
    assert.deepEqual(r.json, { jsonrpc: '2.0', id: 1, result: { b: 'x', nested: { y: 2 }, list: [null, { w: 1 }] } });
  });

  it('ignores unknown params', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'needs', params: { startLedger: 3, useUpgradedAuth: true, limit: 5 } });
    assert.deepEqual(r.json, { jsonrpc: '2.0', id: 1, result: { got: 3 } });
  });

  it('drops unknown params where a schema closes its properties, instead of rejecting', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'closed', params: { keep: 1, unknown: 'x', other: null } });
    assert.deepEqual(r.json, { jsonrpc: '2.0', id: 1, result: { keep: 1 } });
  });

  it('a strictParams method (our own, lumen_*) refuses params its schema does not name, listing those it takes', async () => {
    const ok = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'strict', params: { count: 2, step: null } });
    assert.deepEqual(ok.json, { jsonrpc: '2.0', id: 1, result: { count: 2 } });
    const typo = await rpc(t.port, { jsonrpc: '2.0', id: 2, method: 'strict', params: { count: 2, stpe: 1 } });
    assert.deepEqual(typo.json, err(2, -32602, 'invalid parameters', 'unknown param stpe; strict takes count, step'));
    const two = await rpc(t.port, { jsonrpc: '2.0', id: 3, method: 'strict', params: { a: 1, b: 2 } });
    assert.deepEqual(two.json, err(3, -32602, 'invalid parameters', 'unknown params a, b; strict takes count, step'));
  });

  it('reports a schema failure as -32602 "invalid parameters" with a string data', async () => {
    const cases: Array<[unknown, string]> = [
      [{ startLedger: 'ten' }, 'params.startLedger must be integer'],
      [{ startLedger: 0 }, 'params.startLedger must be >= 1'],
      [{}, "params must have required property 'startLedger'"],
      [{ startLedger: null }, "params must have required property 'startLedger'"],
      [{ startLedger: 2, xdrFormat: 'xml' }, 'params.xdrFormat must be equal to one of the allowed values: "base64", "json"'],
    ];
    for (const [params, data] of cases) {
      const r = await rpc(t.port, { jsonrpc: '2.0', id: 'p', method: 'needs', params });
      assert.deepEqual(r.json, err('p', -32602, 'invalid parameters', data), JSON.stringify(params));
    }
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 'p', method: 'needs' });
    assert.deepEqual(r.json, err('p', -32602, 'invalid parameters', "params must have required property 'startLedger'"));
  });

  it('validates nested members', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'echo', params: { nested: { x: 1.5 } } });
    assert.deepEqual(r.json, err(1, -32602, 'invalid parameters', 'params.nested.x must be integer'));
  });
});

describe('results and errors', () => {
  it('sends a success without an error key', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 5 } });
    assert.deepEqual(Object.keys(r.json as object), ['jsonrpc', 'id', 'result']);
    assert.ok(!r.text.includes('"error"'));
  });

  it('sends a null result as result: null', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'noop' });
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it('passes an RpcError through (code, message, data)', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'throwRpc' });
    assert.deepEqual(r.json, err(1, -32602, 'start ledger must be between the oldest ledger: 10 and the latest ledger: 20 for this rpc instance', 'detail text'));
  });

  it('turns any other error into -32603 with its message, and logs it', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'throwPlain' });
    assert.deepEqual(r.json, err(1, -32603, 'kaboom'));
    const r2 = await rpc(t.port, { jsonrpc: '2.0', id: 2, method: 'rejectPlain' });
    assert.deepEqual(r2.json, err(2, -32603, 'async kaboom'));
    assert.ok(t.probe.logs.some((l) => l.includes('level=error') && l.includes('kaboom')));
  });

  it('inserts a RawJson result verbatim', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'raw' });
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":{"cached":true,"n":[1,2,3]}}');
  });

  it('keeps a result-level error (simulation failure) a success', async () => {
    const r = await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'simulateLike' });
    assert.deepEqual(r.json, { jsonrpc: '2.0', id: 1, result: { error: 'HostError: Error(Contract, #1)', latestLedger: 5 } });
  });
});

describe('batches', () => {
  it('keeps request order although elements finish out of order', async () => {
    const r = await rpc(t.port, [
      { jsonrpc: '2.0', id: 1, method: 'asyncEcho', params: { ms: 60, v: 'slow' } },
      { jsonrpc: '2.0', id: 2, method: 'asyncEcho', params: { ms: 0, v: 'fast' } },
      { jsonrpc: '2.0', id: 3, method: 'echo', params: { a: 3 } },
    ]);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, [
      { jsonrpc: '2.0', id: 1, result: 'slow' },
      { jsonrpc: '2.0', id: 2, result: 'fast' },
      { jsonrpc: '2.0', id: 3, result: { a: 3 } },
    ]);
  });

  it('runs elements concurrently', async () => {
    // each element waits until all five have started: run one after another, they would time out
    const r = await rpc(t.port, Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'meet', params: { n: 5, v: i } })));
    assert.deepEqual(r.json, Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i, result: i })));
  });

  it('mixes ids, notifications, invalid elements and errors', async () => {
    const r = await rpc(t.port, [
      { jsonrpc: '2.0', id: 'a', method: 'echo', params: { b: 'x' } },
      { jsonrpc: '2.0', method: 'noop' },
      5,
      { jsonrpc: '2.0', id: 10, method: 'nope' },
      { jsonrpc: '1.0', id: 11, method: 'echo' },
      [],
      null,
      { jsonrpc: '2.0', id: 12, method: 'echo', params: { a: 'bad' } },
    ]);
    assert.deepEqual(r.json, [
      { jsonrpc: '2.0', id: 'a', result: { b: 'x' } },
      err(null, -32700, 'request is not a JSON object'),
      err(10, -32601, 'method not found', 'nope'),
      err(11, -32600, 'invalid version marker'),
      err(null, -32700, 'request is not a JSON object'),
      err(null, -32600, 'invalid version marker'),
      err(12, -32602, 'invalid parameters', 'params.a must be integer'),
    ]);
  });

  it('answers a one-element batch with an array', async () => {
    const r = await rpc(t.port, [{ jsonrpc: '2.0', id: 1, method: 'noop' }]);
    assert.equal(r.text, '[{"jsonrpc":"2.0","id":1,"result":null}]');
  });

  it('gives each duplicate id its own answer', async () => {
    const r = await rpc(t.port, [
      { jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } },
      { jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 2 } },
      { jsonrpc: '2.0', id: 1, method: 'asyncEcho', params: { v: 3 } },
    ]);
    assert.deepEqual(r.json, [
      { jsonrpc: '2.0', id: 1, result: { a: 1 } },
      { jsonrpc: '2.0', id: 1, result: { a: 2 } },
      { jsonrpc: '2.0', id: 1, result: 3 },
    ]);
  });

  it('answers an empty batch and a notifications-only batch with 204', async () => {
    const r = await rpc(t.port, []);
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    const r2 = await rpc(t.port, [{ jsonrpc: '2.0', method: 'noop' }, { jsonrpc: '2.0', method: 'asyncEcho', params: { ms: 5 } }]);
    assert.equal(r2.status, 204);
    assert.equal(r2.text, '');
  });

  it('accepts 1000 elements', async () => {
    const body = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: i % 2 ? 'echo' : 'asyncEcho', params: i % 2 ? { a: i } : { v: i } }));
    const r = await rpc(t.port, body);
    const out = r.json as Array<{ id: number; result: unknown }>;
    assert.equal(out.length, 1000);
    out.forEach((o, i) => {
      assert.equal(o.id, i);
      assert.deepEqual(o.result, i % 2 ? { a: i } : i);
    });
  });

  it('refuses 1001 elements with one -32600 error', async () => {
    const body = Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'noop' }));
    const before = t.probe.calls.noop ?? 0;
    const r = await rpc(t.port, body);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, err(null, -32600, 'batch too large', 'batch of 1001 requests exceeds the limit of 1000'));
    assert.equal(t.probe.calls.noop ?? 0, before, 'nothing ran');
  });
});
