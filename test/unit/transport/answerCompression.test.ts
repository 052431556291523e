// Compressed answers through the real HTTP server (fastify, the connection guard), with a test method
// whose answer comes in pieces as getLedgers' pages do: what the client decodes is exactly the
// uncompressed answer, multi-byte text cut anywhere included, and a streamed answer is counted in the
// unread-answer bytes at its uncompressed size plus its coder until it is delivered or dropped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { JsonChunks, type JsonPart } from '../../../src/rpc/rawJson.ts';
import { COMPRESS_FROM_BYTES, coderBytes } from '../../../src/transport/answerCompression.ts';
import type { Method } from '../../../src/rpc/methods/types.ts';
import { startServer, type TestServer } from '../rpc/support.ts';

/**
 * An answer of `items` pieces: text with two-byte, three-byte and four-byte (surrogate pair)
 * characters, so that slices of 64 Ki characters fall inside multi-byte runs, and UTF-8 bytes.
 */
function pieces(items: number, itemChars: number): JsonPart[] {
  const parts: JsonPart[] = [];
  for (let i = 0; i < items; i++) {
    const unit = `é€😀${i}-`;
    const text = JSON.stringify(unit.repeat(Math.ceil(itemChars / unit.length)).slice(0, itemChars).replace(/\uD83D$/, ''));
    parts.push(i === 0 ? '[' : ',', i % 2 ? text : new TextEncoder().encode(text));
  }
  parts.push(']');
  return parts;
}

const methods: Method[] = [{
  name: 'pieces',
  paramsSchema: { type: 'object', properties: { items: { type: 'integer' }, chars: { type: 'integer' } } },
  handler: (params) => new JsonChunks(pieces(params.items as number, params.chars as number)),
}, {
  name: 'text',
  paramsSchema: { type: 'object', properties: { chars: { type: 'integer' } } },
  handler: (params) => 'x'.repeat(params.chars as number),
}];

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A POST whose answer is read raw (no decoding); `onResponse` runs as its headers arrive. */
function post(port: number, body: unknown, acceptEncoding?: string, onResponse?: (res: http.IncomingMessage) => void): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      onResponse?.(res);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

const decode = (a: Answer): Buffer => {
  const coding = a.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(a.body);
  if (coding === 'zstd') return zstdDecompressSync(a.body);
  assert.equal(coding, undefined);
  return a.body;
};

const call = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 7, method, params });

describe('compressed answers', () => {
  let t: TestServer;
  before(async () => { t = await startServer({}, { methods }); });
  after(async () => { await t.close(); });

  it('decode to exactly the uncompressed answer, whole (up to 64 KiB) or streamed, multi-byte text cut anywhere', async () => {
    for (const [items, chars] of [[3, 2000], [8, 40_000], [4, 300_000]]) {
      const body = call('pieces', { items, chars });
      const plain = await post(t.port, body, 'identity');
      assert.equal(plain.headers['content-encoding'], undefined);
      JSON.parse(plain.body.toString('utf8'));
      for (const coding of ['gzip', 'zstd']) {
        const a = await post(t.port, body, coding);
        assert.equal(a.status, 200);
        assert.equal(a.headers['content-encoding'], coding, `${items} x ${chars}`);
        assert.match(String(a.headers.vary), /Accept-Encoding/);
        assert.equal(a.headers['content-type'], 'application/json');
        assert.ok(a.body.length < plain.body.length / 2, `${coding}: ${a.body.length} of ${plain.body.length} bytes`);
        assert.ok(decode(a).equals(plain.body), `${coding}, ${items} x ${chars}`);
        // whole answers carry their length; streamed ones are chunked
        if (plain.body.length <= 64 * 1024) assert.equal(Number(a.headers['content-length']), a.body.length);
        else assert.equal(a.headers['transfer-encoding'], 'chunked');
      }
    }
  });

  it('leave answers under the threshold, and those to clients accepting neither coding, as they are', async () => {
    const small = await post(t.port, call('text', { chars: COMPRESS_FROM_BYTES - 100 }), 'gzip, zstd');
    assert.equal(small.headers['content-encoding'], undefined);
    assert.doesNotMatch(String(small.headers.vary), /Accept-Encoding/);
    const large = await post(t.port, call('text', { chars: COMPRESS_FROM_BYTES }), 'gzip, zstd');
    assert.equal(large.headers['content-encoding'], 'zstd');
    for (const refusal of [undefined, 'identity', 'gzip;q=0, zstd;q=0', 'br']) {
      const a = await post(t.port, call('text', { chars: 100_000 }), refusal);
      assert.equal(a.headers['content-encoding'], undefined, String(refusal));
      assert.match(String(a.headers.vary), /Accept-Encoding/);
      assert.equal(a.body.toString(), `{"jsonrpc":"2.0","id":7,"result":"${'x'.repeat(100_000)}"}`);
    }
  });

  it('count a streamed answer at its uncompressed size plus its coder until delivered', async () => {
    const body = call('pieces', { items: 8, chars: 1_000_000 });
    const bytes = (await post(t.port, body, 'identity')).body.length;
    assert.equal(t.server.connections.queuedBytes, 0);
    for (const coding of ['gzip', 'zstd'] as const) {
      let counted = -1;
      // the headers go out before the first piece is fed: the whole answer is still held then
      const a = await post(t.port, body, coding, () => { counted = t.server.connections.queuedBytes; });
      assert.equal(a.headers['content-encoding'], coding);
      assert.equal(counted, bytes + coderBytes(coding, bytes), coding);
      assert.equal(decode(a).length, bytes);
      assert.equal(t.server.connections.queuedBytes, 0, 'released once delivered');
    }
  });

  it('free the count and the coder when the client goes away mid-answer', async () => {
    const body = call('pieces', { items: 8, chars: 1_000_000 });
    await new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: t.port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' } }, (res) => {
        assert.equal(res.headers['content-encoding'], 'gzip');
        res.once('data', () => { req.destroy(); resolve(); });
      });
      req.on('error', () => {});
      req.end(JSON.stringify(body));
    });
    const deadline = Date.now() + 10_000;
    while (t.server.connections.queuedBytes !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(t.server.connections.queuedBytes, 0);
    // every coder is free again: 20 answers in a row are all compressed (more than the coders there are)
    for (let i = 0; i < 20; i++) {
      const a = await post(t.port, call('pieces', { items: 2, chars: 5000 }), 'gzip');
      assert.equal(a.headers['content-encoding'], 'gzip', `answer ${i}`);
    }
  });
});

describe('compression turned off (--http-compression=false)', () => {
  let t: TestServer;
  before(async () => { t = await startServer({ httpCompression: false }, { methods }); });
  after(async () => { await t.close(); });

  it('sends every answer as it is, without Vary: Accept-Encoding', async () => {
    const a = await post(t.port, call('pieces', { items: 4, chars: 100_000 }), 'gzip, zstd');
    assert.equal(a.headers['content-encoding'], undefined);
    assert.doesNotMatch(String(a.headers.vary), /Accept-Encoding/);
    JSON.parse(a.body.toString('utf8'));
  });
});
