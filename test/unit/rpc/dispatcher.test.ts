// The envelope without HTTP: Dispatcher, stripNulls, error texts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../../src/config/config.ts';
import { Dispatcher, errorResponseText, stripNulls } from '../../../src/rpc/jsonrpc.ts';
import { Abandonment } from '../../../src/rpc/callScope.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import { testMethods, type Probe } from './support.ts';

const probe: Probe = { calls: {}, aborted: [], blocked: [], logs: [] };
const d = new Dispatcher({ methods: testMethods(probe), ctx: { config: defaultConfig } as unknown as MethodContext, maxBatchSize: 3 });

describe('Dispatcher', () => {
  it('answers synchronously when the handlers are synchronous', async () => {
    const a = d.handle({ jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } });
    assert.equal(a, '{"jsonrpc":"2.0","id":1,"result":{"a":1}}');
    // a batch goes on in a later turn once its elements have taken a slice of time, which a loaded
    // machine can spend anywhere: with no slice, it is answered at once
    const unsliced = new Dispatcher({ methods: testMethods(probe), ctx: { config: defaultConfig } as unknown as MethodContext, batchSliceMs: Infinity });
    const batch = [{ jsonrpc: '2.0', id: 1, method: 'noop' }, { jsonrpc: '2.0', method: 'noop' }];
    assert.equal(unsliced.handle(batch), '[{"jsonrpc":"2.0","id":1,"result":null}]');
  });

  it('a batch past its slice goes on in a later turn, with the same answer', async () => {
    const sliced = new Dispatcher({ methods: testMethods(probe), ctx: { config: defaultConfig } as unknown as MethodContext, batchSliceMs: 0 });
    const b = sliced.handle([{ jsonrpc: '2.0', id: 1, method: 'noop' }, { jsonrpc: '2.0', id: 2, method: 'echo', params: { a: 1 } }]);
    assert.ok(b instanceof Promise);
    assert.equal(await b, '[{"jsonrpc":"2.0","id":1,"result":null},{"jsonrpc":"2.0","id":2,"result":{"a":1}}]');
  });

  it('returns a promise for asynchronous handlers, null for nothing to answer', async () => {
    const p = d.handle({ jsonrpc: '2.0', id: 'x', method: 'asyncEcho', params: { v: [1] } });
    assert.ok(p instanceof Promise);
    assert.equal(await p, '{"jsonrpc":"2.0","id":"x","result":[1]}');
    assert.equal(d.handle([]), null);
    assert.equal(d.handle({ jsonrpc: '2.0', method: 'noop' }), null);
    assert.equal(await d.handle([{ jsonrpc: '2.0', method: 'asyncEcho' }]), null);
  });

  it('applies the configured batch limit', async () => {
    const batch = Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'noop' }));
    assert.equal(await d.handle(batch), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large","data":"batch of 4 requests exceeds the limit of 3"}}');
    // (answered at once or after a turn of the loop, as the time slice falls on a loaded machine)
    const three = JSON.parse(String(await d.handle(batch.slice(0, 3)))) as unknown[];
    assert.equal(three.length, 3);
  });

  it('gives values through handleToValue', async () => {
    assert.deepEqual(await d.handleToValue({ jsonrpc: '2.0', id: 2, method: 'nope' }),
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method not found', data: 'nope' } });
  });

  it('has only the calls still running listen to their request: a connection does not collect one listener per call', async () => {
    const connection = new Abandonment();
    assert.equal(d.handle({ jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } }, { abandonment: connection }), '{"jsonrpc":"2.0","id":1,"result":{"a":1}}');
    assert.equal(connection.listening, 0, 'a synchronous call ends before anything can abandon it');
    const answers = [1, 2, 3].map((v) => d.handle({ jsonrpc: '2.0', id: v, method: 'asyncEcho', params: { v } }, { abandonment: connection }));
    assert.equal(connection.listening, 3);
    assert.deepEqual(await Promise.all(answers), [1, 2, 3].map((v) => `{"jsonrpc":"2.0","id":${v},"result":${v}}`));
    assert.equal(connection.listening, 0);
    const slow = d.handle({ jsonrpc: '2.0', id: 4, method: 'slow', params: { ms: 60_000 } }, { abandonment: connection });
    assert.equal(connection.listening, 1);
    connection.abandon(new Error('the connection closed'));
    assert.equal(await slow, '{"jsonrpc":"2.0","id":4,"result":"aborted"}');
    assert.ok(probe.aborted.includes('the connection closed'));
  });

  it('starts a call on an abandoned request stopped', () => {
    const gone = new Abandonment();
    assert.equal(d.handle({ jsonrpc: '2.0', id: 1, method: 'stopped' }, { abandonment: gone }), '{"jsonrpc":"2.0","id":1,"result":false}');
    gone.abandon(new Error('gone'));
    assert.equal(d.handle({ jsonrpc: '2.0', id: 1, method: 'stopped' }, { abandonment: gone }), '{"jsonrpc":"2.0","id":1,"result":true}');
  });

  it('answers a cached result with the same text for the same id', () => {
    const first = d.handle({ jsonrpc: '2.0', id: 7, method: 'raw' });
    assert.equal(first, '{"jsonrpc":"2.0","id":7,"result":{"cached":true,"n":[1,2,3]}}');
    assert.equal(d.handle({ jsonrpc: '2.0', id: 'x', method: 'raw' }), '{"jsonrpc":"2.0","id":"x","result":{"cached":true,"n":[1,2,3]}}');
  });

  it('rejects duplicate method names at construction (bad schemas: paramsSchemas.test.ts)', () => {
    const ctx = { config: defaultConfig } as unknown as MethodContext;
    const m = { name: 'a', paramsSchema: { type: 'object' }, handler: () => 1 };
    assert.throws(() => new Dispatcher({ methods: [m, m], ctx }), /duplicate JSON-RPC method a/);
  });
});

describe('stripNulls', () => {
  it('drops null members at every depth without touching the input', () => {
    const input = { a: null, b: { c: null, d: [null, { e: null, f: 1 }] }, g: 'x' };
    const copy = JSON.parse(JSON.stringify(input)) as unknown;
    assert.deepEqual(stripNulls(input), { b: { d: [null, { f: 1 }] }, g: 'x' });
    assert.deepEqual(input, copy);
  });

  it('returns the same object when there is nothing to drop', () => {
    const input = { a: 1, b: { c: [1, { d: 2 }] } };
    assert.equal(stripNulls(input), input);
  });

  it('never copies a __proto__ key onto the result prototype', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"a":null,"b":1}') as Record<string, unknown>;
    const out = stripNulls(input) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['b']);
    assert.equal((out as { polluted?: boolean }).polluted, undefined);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });
});

describe('stripNulls at depth', () => {
  /** {"a":{"a":...{"a":leaf}}} nested `depth` objects deep. */
  const nested = (depth: number, leaf: unknown): unknown => {
    let v = leaf;
    for (let i = 0; i < depth; i++) v = { a: v, n: null };
    return v;
  };

  it('handles 10,000 levels (the reference decoder\'s limit) without a stack overflow, as the recursive walk did not', () => {
    const out = stripNulls(nested(10_000, 7));
    let v = out as { a?: unknown; n?: unknown };
    for (let i = 0; i < 10_000; i++) {
      assert.equal('n' in v, false, `null member kept at level ${i}`);
      v = v.a as { a?: unknown; n?: unknown };
    }
    assert.equal(v, 7);
  });

  it('keeps array order, nulls in arrays, and copies only the changed path', () => {
    const untouched = { k: [1, 2] };
    const input = { x: [{ y: null, z: 1 }, null, untouched, [null, { w: null }]], q: untouched };
    const out = stripNulls(input) as typeof input;
    assert.deepEqual(out, { x: [{ z: 1 }, null, { k: [1, 2] }, [null, {}]], q: { k: [1, 2] } });
    assert.equal(out.q, untouched);
    assert.equal(out.x[2], untouched);
  });
});

describe('errorResponseText', () => {
  it('omits data when absent and an empty message, as jrpc2 does', () => {
    assert.equal(errorResponseText('1', -32601, 'method not found'), '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}');
    assert.equal(errorResponseText('"a"', -1, '', 'd'), '{"jsonrpc":"2.0","id":"a","error":{"code":-1,"data":"d"}}');
  });
});
