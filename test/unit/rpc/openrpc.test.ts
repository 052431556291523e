// rpc.discover's OpenRPC document as built from the method definitions: every registered method has
// a result schema (a method added without one fails here), the schemas compile under ajv's strict
// mode and list their members exactly, the xdrFormat "json" form is derived right, and the
// comparison with a reference document finds each kind of difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { methods } from '../../../src/rpc/methods/index.ts';
import type { JsonSchema } from '../../../src/rpc/methods/types.ts';
import {
  BASE64_FORM_TITLE, JSON_FORM_TITLE, base64Form, openRpcDocument, type OpenRpcDocument,
} from '../../../src/rpc/openrpc/document.ts';
import { xdrJsonForm } from '../../../src/rpc/openrpc/xdrJsonForm.ts';
import { compareDocuments, formatComparison } from '../../../src/rpc/openrpc/compare.ts';
import type { KnownDifference } from '../../../src/rpc/openrpc/knownDifferences.ts';
import { object, optional, xdrList, xdrValue } from '../../../src/rpc/methods/shared/schemas.ts';
import { toSnakeCase } from '../../../src/rpc/metrics.ts';
import { RawJson } from '../../../src/rpc/rawJson.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import { devMethods } from '../../../src/rpc/methods/dev/index.ts';
import { streamMethods } from '../../../src/rpc/methods/subscribe.ts';
import { Dispatcher } from '../../../src/rpc/jsonrpc.ts';
import { CallScope } from '../../../src/rpc/callScope.ts';
import { AnswerBudget } from '../../../src/rpc/answerBudget.ts';
import { defaultConfig } from '../../../src/config/config.ts';

const doc = openRpcDocument(methods, '1.2.3');
const strictAjv = () => new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
/** Validates as a plain predicate (ajv's type guard would narrow `data`). */
const valid = (schema: JsonSchema, data: unknown): boolean => strictAjv().validate(schema, data) as boolean;

/** Every object schema inside `schema`, with its path. */
function objectSchemas(schema: JsonSchema, path = ''): Array<{ path: string; schema: JsonSchema }> {
  const out: Array<{ path: string; schema: JsonSchema }> = [];
  if (schema.type === 'object' && schema.properties) {
    out.push({ path, schema });
    for (const [name, member] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      out.push(...objectSchemas(member, `${path}.${name}`));
    }
  }
  if (schema.items) out.push(...objectSchemas(schema.items as JsonSchema, `${path}[]`));
  for (const form of (schema.anyOf as JsonSchema[] | undefined) ?? []) out.push(...objectSchemas(form, `${path}(${String(form.title)})`));
  return out;
}

test('every registered method has a summary and a result schema', () => {
  const lacking = methods.filter((m) => !m.doc?.result?.schema || !m.doc.summary).map((m) => m.name);
  assert.deepEqual(lacking, [], 'methods without doc.summary or doc.result.schema');
  for (const m of methods) {
    assert.ok(objectSchemas(m.doc!.result.schema).length > 0, `${m.name}: the result is described as an object with members`);
  }
});

test('the document names every method, itself included, and its version', () => {
  assert.equal(doc.openrpc, '1.3.2');
  assert.equal(doc.info.version, '1.2.3');
  assert.deepEqual(doc.methods.map((m) => m.name), methods.map((m) => m.name));
  assert.ok(doc.methods.some((m) => m.name === 'rpc.discover'));
  assert.doesNotMatch(JSON.stringify(doc), /Symbol/);
});

test('result schemas compile in ajv\'s strict mode, and every object in them lists its members exactly', () => {
  for (const m of doc.methods) {
    strictAjv().compile(m.result.schema);
    for (const { path, schema } of objectSchemas(m.result.schema)) {
      assert.equal(schema.additionalProperties, false, `${m.name} result${path}: additionalProperties false`);
    }
  }
});

test('params come from the validation schemas, with the docs\' additions', () => {
  const method = (name: string) => doc.methods.find((m) => m.name === name)!;
  for (const m of methods) {
    const props = Object.keys((m.paramsSchema as { properties?: object }).properties ?? {});
    assert.deepEqual(method(m.name).params.map((p) => p.name), props, m.name);
  }
  const keys = method('getLedgerEntries').params.find((p) => p.name === 'keys')!;
  assert.equal(keys.required, true);
  assert.match(keys.description!, /up to 200/);
  assert.equal(keys.schema.description, undefined, 'the description moves to the descriptor');
  const authMode = method('simulateTransaction').params.find((p) => p.name === 'authMode')!;
  assert.deepEqual(authMode.schema, { type: 'string', enum: ['enforce', 'record', 'record_allow_nonroot'] });
  // ... while validation keeps accepting any string, answered by the handler with the reference's text
  const validation = methods.find((m) => m.name === 'simulateTransaction')!.paramsSchema as { properties: Record<string, JsonSchema> };
  assert.equal(validation.properties.authMode.enum, undefined);
  assert.equal(method('getEvents').params.find((p) => p.name === 'startLedger')!.required, false);
});

test('methods whose answers carry XDR document a json form; the others one schema', () => {
  const forms = (name: string) => (doc.methods.find((m) => m.name === name)!.result.schema.anyOf as JsonSchema[] | undefined)?.map((f) => f.title);
  for (const name of ['getLedgers', 'getLedgerEntries', 'getTransaction', 'getTransactions', 'getEvents', 'queryEvents', 'sendTransaction', 'simulateTransaction']) {
    assert.deepEqual(forms(name), [BASE64_FORM_TITLE, JSON_FORM_TITLE], name);
  }
  for (const name of ['getHealth', 'getNetwork', 'getVersionInfo', 'getLatestLedger', 'getFeeStats', 'rpc.discover']) {
    assert.equal(forms(name), undefined, name);
  }
});

test('the json form: renamed members holding JSON, lists kept, kept and optional members', () => {
  const base = object({
    key: xdrValue('LedgerKey', 'keyJson'),
    plain: { type: 'integer' },
    events: optional(xdrList('ContractEvent', 'eventsJson', 2)),
    header: xdrValue('LedgerHeader', { name: 'headerJson', keepAs: { type: 'string', maxLength: 0 } }),
    before: xdrValue('LedgerEntry', { name: 'beforeJson', keepAs: { type: 'null' }, optional: true }),
    nested: object({ value: xdrValue('ScVal', 'valueJson') }),
  });
  const json = xdrJsonForm(base)!;
  const props = json.properties as Record<string, JsonSchema>;
  assert.deepEqual(Object.keys(props), ['keyJson', 'plain', 'eventsJson', 'header', 'headerJson', 'before', 'beforeJson', 'nested']);
  assert.deepEqual(json.required, ['keyJson', 'plain', 'header', 'headerJson', 'before', 'nested']);
  assert.deepEqual(props.keyJson, { description: 'LedgerKey as JSON' });
  assert.deepEqual(props.eventsJson, { type: 'array', items: { type: 'array', items: { description: 'ContractEvent as JSON' } } });
  assert.deepEqual(props.header, { type: 'string', maxLength: 0 });
  assert.deepEqual(props.before, { type: 'null' });
  assert.deepEqual((props.nested.properties as object), { valueJson: { description: 'ScVal as JSON' } });
  assert.equal(json.additionalProperties, false);
  // the base form is untouched, and a schema without XDR has no json form
  assert.deepEqual(Object.keys(base.properties as object), ['key', 'plain', 'events', 'header', 'before', 'nested']);
  assert.equal(xdrJsonForm(object({ a: { type: 'string' } })), undefined);
  // the forms validate what each format sends, and not the other's
  const validBase = { key: 'AAAA', plain: 1, header: 'AAAA', before: 'AAAA', nested: { value: 'AAAA' } };
  const validJson = { keyJson: { account: 'G' }, plain: 1, header: '', headerJson: {}, before: null, nested: { valueJson: 3 } };
  assert.ok(valid(base, validBase));
  assert.ok(valid(json, validJson));
  assert.ok(!valid(base, validJson));
  assert.ok(!valid(json, validBase));
  assert.ok(!valid(json, { ...validJson, header: 'AAAA' }));
});

// ---- comparison ----------------------------------------------------------------------------------

const refDoc = (result: JsonSchema, params: OpenRpcDocument['methods'][number]['params'] = [], name = 'getThing'): OpenRpcDocument => ({
  openrpc: '1.2.6', info: { title: 'ref', version: '1' }, methods: [{ name, params, result: { name: 'r', schema: result } }],
});

test('comparison: members, JSON types, required members and enums of results', () => {
  const ref = refDoc({
    type: 'object', required: ['a'],
    properties: {
      a: { type: 'number' }, b: { type: 'string' }, gone: { type: 'string' }, n: { type: 'number' },
      status: { type: 'string', enum: ['X', 'Y'] }, list: { type: 'array', items: { type: 'object', properties: { t: { type: 'number' } } } },
    },
  });
  const ours = refDoc({
    anyOf: [{
      title: BASE64_FORM_TITLE, type: 'object', required: ['b', 'n'],
      properties: {
        a: { type: 'integer' }, b: { type: 'string' }, n: { type: 'string' }, extra: { type: 'boolean' },
        status: { type: 'string', enum: ['X', 'Z'] }, list: { type: 'array', items: { type: 'object', properties: { t: { type: 'string' } } } },
      },
    }, { title: JSON_FORM_TITLE, type: 'object', properties: {} }],
  });
  const c = compareDocuments(ref, ours, []);
  const seen = c.findings.map((f) => `${f.path} ${f.kind}`).sort();
  assert.deepEqual(seen, [
    'a required', 'b note', 'extra extra', 'gone missing', 'list[].t type', 'n note', 'n type', 'status enum',
  ]);
  assert.equal(c.failures.length, 6, 'all but the notes fail');
  assert.equal(base64Form(ours.methods[0].result.schema).title, BASE64_FORM_TITLE);
});

test('comparison: params; accepting more values than the reference\'s enum is a note', () => {
  const ref = refDoc({ type: 'object' }, [
    { name: 'hash', required: true, schema: { type: 'string' } },
    { name: 'mode', schema: { type: 'string', enum: ['a', 'b'] } },
    { name: 'strict', schema: { type: 'string', enum: ['a', 'b'] } },
    { name: 'page', schema: { type: 'object', properties: { limit: { type: 'number' } } } },
  ]);
  const ours = refDoc({ type: 'object' }, [
    { name: 'hash', required: false, schema: { type: 'string' } },
    { name: 'mode', schema: { type: 'string' } },
    { name: 'strict', schema: { type: 'string', enum: ['a'] } },
    { name: 'page', schema: { type: 'object', properties: { limit: { type: 'string' }, order: { type: 'string' } } } },
    { name: 'ours', schema: { type: 'string' } },
  ]);
  const c = compareDocuments(ref, ours, []);
  assert.deepEqual(c.findings.map((f) => `${f.where} ${f.path} ${f.kind}`).sort(), [
    'params hash required', 'params mode note', 'params ours extra', 'params page.limit type', 'params page.order extra', 'params strict enum',
  ]);
  assert.equal(c.failures.length, 5);
});

test('comparison: methods missing and extra; known differences allow, and unused ones are reported', () => {
  const ref = refDoc({ type: 'object', properties: { a: { type: 'string' } } }, [], 'theirs');
  const ours: OpenRpcDocument = {
    ...ref, methods: [{ name: 'mine', params: [], result: { name: 'r', schema: { type: 'object' } } }],
  };
  const known: KnownDifference[] = [
    { method: 'mine', where: 'method', path: '', kind: 'extra', source: 'extension', why: 'ours' },
    { method: 'other', where: 'result', path: 'x', kind: 'extra', source: 'extension', why: 'not merged yet' },
  ];
  const c = compareDocuments(ref, ours, known);
  assert.deepEqual(c.failures.map((f) => `${f.method} ${f.kind}`), ['theirs missing']);
  assert.equal(c.findings.find((f) => f.method === 'mine')!.allowedBy, known[0]);
  assert.deepEqual(c.unused, [known[1]]);
  const text = formatComparison(c, ['theirs', 'mine']);
  assert.match(text, /theirs: 1 difference/);
  assert.match(text, /DIFFERS method: missing: not served/);
  assert.match(text, /allowed method: extra: .*\[extension: ours\]/);
  assert.match(text, /unused known difference: other result x extra/);
  assert.match(text, /FAILED: 1 difference/);
});

test('our document against itself: no difference', () => {
  const c = compareDocuments(doc, doc, []);
  assert.deepEqual(c.findings, []);
});

// ---- the method ----------------------------------------------------------------------------------

test('rpc.discover answers the document of the served methods and itself, built once per version', async () => {
  const discover = methods.find((m) => m.name === 'rpc.discover')!;
  const ctx = { node: { version: '9.9.9' }, config: defaultConfig } as unknown as MethodContext;
  const dispatcher = new Dispatcher({ methods: [...methods, ...devMethods], ctx });
  const call = () => new CallScope(new AnswerBudget(0), undefined, undefined, dispatcher);
  const first = await discover.handler({}, ctx, call());
  assert.ok(first instanceof RawJson);
  const answered = JSON.parse(first.json) as OpenRpcDocument;
  assert.deepEqual(answered, openRpcDocument([...methods, ...devMethods], '9.9.9'));
  assert.equal(await discover.handler({}, ctx, call()), first, 'the same answer again');
  ctx.node.version = '9.9.10';
  const next = await discover.handler({}, ctx, call());
  assert.notEqual(next, first, 'built again for another version');
  assert.equal((JSON.parse((next as RawJson).json) as OpenRpcDocument).info.version, '9.9.10');
  assert.ok(valid(discover.doc!.result.schema, answered), 'it matches its own result schema');
});

test('the developer and streaming methods, which rpc.discover lists where they are served, are documented as strictly', () => {
  for (const m of [...devMethods, ...streamMethods]) assert.ok(m.doc?.summary && m.doc.result.schema, `${m.name} has doc.summary and doc.result.schema`);
  const all = openRpcDocument([...methods, ...streamMethods, ...devMethods], '1.2.3');
  for (const m of all.methods) {
    strictAjv().compile(m.result.schema);
    for (const { path, schema } of objectSchemas(m.result.schema)) {
      assert.equal(schema.additionalProperties, false, `${m.name} result${path}: additionalProperties false`);
    }
  }
});

test('metric names of rpc.discover: the dot becomes an underscore', () => {
  assert.equal(toSnakeCase('rpc.discover'), 'rpc_discover');
  assert.equal(toSnakeCase('getLedgerEntries'), 'get_ledger_entries');
});
