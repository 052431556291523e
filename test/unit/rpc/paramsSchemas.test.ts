// Params schemas are compiled lazily and without ajv's meta-schema check (src/rpc/paramsSchemas.ts),
// so the check a start no longer makes is made here: every params schema the node serves is valid
// JSON Schema and compiles, and the dispatcher reports a bad one by name, at construction time for
// compileSchemas() and as -32603 at the method's first call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { defaultConfig } from '../../../src/config/config.ts';
import { Dispatcher } from '../../../src/rpc/jsonrpc.ts';
import { lazyValidator, paramsAjv } from '../../../src/rpc/paramsSchemas.ts';
import { methods } from '../../../src/rpc/methods/index.ts';
import { devMethods } from '../../../src/rpc/methods/dev/index.ts';
import { streamMethods } from '../../../src/rpc/methods/subscribe.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import { kindParamsSchemas } from '../../../src/stream/kinds/kind.ts';
import '../../../src/stream/subscriptionHub.ts'; // loads every subscription kind, which declare their schemas

const ctx = { config: defaultConfig } as unknown as MethodContext;
const served = [...methods, ...streamMethods, ...devMethods];

describe('params schemas', () => {
  it('every served method\'s and subscription kind\'s schema is valid JSON Schema', () => {
    const ajv = new Ajv({ strict: false }); // validateSchema on: the meta-schema check
    for (const m of served) assert.equal(ajv.validateSchema(m.paramsSchema), true, `${m.name}: ${ajv.errorsText(ajv.errors)}`);
    assert.equal(kindParamsSchemas.length, 4);
    for (const s of kindParamsSchemas) assert.equal(ajv.validateSchema(s), true, ajv.errorsText(ajv.errors));
  });

  it('every served method\'s schema compiles in the dispatcher', () => {
    new Dispatcher({ methods: served, ctx }).compileSchemas();
  });

  it('a bad schema is named by compileSchemas(), and answered as -32603 at its first call', async () => {
    const bad = { name: 'a', paramsSchema: { type: 'nonsense' }, handler: () => 1 };
    const d = new Dispatcher({ methods: [bad], ctx });
    assert.throws(() => d.compileSchemas(), /invalid params schema for a/);
    const answer = await d.handleToValue({ jsonrpc: '2.0', id: 1, method: 'a' }) as { error: { code: number; message: string } };
    assert.equal(answer.error.code, -32603);
    assert.match(answer.error.message, /invalid params schema for a/);
  });

  it('the schema of methods without params, not compiled, validates as ajv\'s compiled one', () => {
    const ours = lazyValidator(paramsAjv({ strict: false }), { type: 'object' })();
    const ajvs = new Ajv({ strict: false }).compile({ type: 'object' });
    for (const value of [{}, { a: 1 }, [], null, 0, 'x', true, undefined]) {
      assert.equal(ours(value), ajvs(value), JSON.stringify(value));
      assert.deepEqual(ours.errors ?? null, ajvs.errors ?? null, JSON.stringify(value));
    }
    assert.ok(methods.some((m) => JSON.stringify(m.paramsSchema) === '{"type":"object"}'), 'served methods have that schema');
  });
});
