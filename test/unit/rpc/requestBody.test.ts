// Request bodies as the reference's decoder reads them: nesting depth and exact ids.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, jsonDepth, parseRequestBody } from '../../../src/transport/requestBody.ts';

const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('jsonDepth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    assert.equal(jsonDepth('1'), 0);
    assert.equal(jsonDepth('{"a":[1,{"b":2}]}'), 3);
    assert.equal(jsonDepth('{"a":"[[[{{{\\\\\\"]]]"}'), 1);
    assert.equal(jsonDepth('["\\"[", ["x"]]'), 2);
  });
});

describe('parseRequestBody', () => {
  it('accepts exactly the deepest document Go decodes and refuses one level more', () => {
    assert.ok(parseRequestBody(nestedArrays(MAX_JSON_DEPTH)));
    assert.equal(parseRequestBody(nestedArrays(MAX_JSON_DEPTH + 1)), undefined);
    const deepParams = `{"jsonrpc":"2.0","id":1,"method":"m","params":${'{"a":'.repeat(MAX_JSON_DEPTH - 1)}1${'}'.repeat(MAX_JSON_DEPTH - 1)}}`;
    assert.ok(parseRequestBody(deepParams), 'params at 10,000 levels in all');
  });

  it('refuses text that is not JSON', () => {
    assert.equal(parseRequestBody('{"a":'), undefined);
    assert.equal(parseRequestBody(''), undefined);
  });

  it('keeps the exact text of ids JSON.parse would change, for every message of a batch', () => {
    const ids = ['1e999', '12345678901234567890', '9007199254740993', '1.0', '1E2', '-0', '-1.5e-7'];
    const body = '[' + ids.map((id) => `{"jsonrpc":"2.0","id":${id},"method":"m"}`).join(',') + ']';
    const parsed = parseRequestBody(body)!;
    const messages = parsed.value as object[];
    assert.deepEqual(messages.map((m) => parsed.idTexts?.get(m)), ids);
  });

  it('does no second parse for ordinary ids', () => {
    const parsed = parseRequestBody('[{"jsonrpc":"2.0","id":7,"method":"m"},{"jsonrpc":"2.0","id":"x","method":"m"}]')!;
    assert.equal(parsed.idTexts, undefined);
  });
});
