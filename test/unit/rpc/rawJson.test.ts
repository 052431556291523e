// Answers from pieces: jsonParts against JSON.stringify, and chunks joined in a batch.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EncodedJson, JsonChunks, RawJson, jsonParts, partsByteLength } from '../../../src/rpc/rawJson.ts';

const text = (parts: ReturnType<typeof jsonParts>): string => new JsonChunks(parts).text();

describe('jsonParts', () => {
  it('serializes plain values exactly as JSON.stringify does', () => {
    const values: unknown[] = [
      { a: 1, b: 'x"y', c: [1, undefined, null, { d: true }], e: undefined, 'k\n': -0.5 },
      [], {}, 'é€\u2028', 12345678901234567890, null,
    ];
    for (const v of values) assert.equal(text(jsonParts(v)), JSON.stringify(v));
  });

  it('splices encoded pieces as bytes', () => {
    const encoded = new EncodedJson(new Uint8Array(Buffer.from('{"v":"é"}')));
    const parts = jsonParts({ a: encoded, b: [[1, 2], encoded], c: 3 });
    assert.equal(parts.filter((p) => typeof p !== 'string').length, 2, 'the bytes are not copied into text');
    assert.equal(text(parts), '{"a":{"v":"é"},"b":[[1,2],{"v":"é"}],"c":3}');
    assert.equal(partsByteLength(parts), Buffer.byteLength(text(parts)));
  });
});

describe('JsonChunks.join', () => {
  it('joins text and chunked answers, counting bytes', () => {
    const page = new JsonChunks(['{"x":', new Uint8Array(Buffer.from('"ü"')), '}']);
    const joined = JsonChunks.join(['[', page, ',', '{"y":1}', ']']);
    assert.equal(joined.text(), '[{"x":"ü"},{"y":1}]');
    assert.equal(joined.bytes, Buffer.byteLength(joined.text()));
  });
});

describe('RawJson.answer', () => {
  it('wraps the JSON for an id, and gives the same string again for the same id', () => {
    const raw = new RawJson('{"a":[1,"é"]}');
    const one = raw.answer('1');
    assert.equal(one, '{"jsonrpc":"2.0","id":1,"result":{"a":[1,"é"]}}');
    assert.equal(raw.answer('1'), one);
    assert.equal(raw.answer('"x"'), '{"jsonrpc":"2.0","id":"x","result":{"a":[1,"é"]}}');
    assert.equal(raw.answer('1'), one);
  });
});
