// HTTP-level behaviour of the JSON-RPC endpoint (reference: jrpc2's jhttp bridge, rs/cors, Go net/http).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { contentTypeProblem, parseEndpoint } from '../../../src/transport/httpServer.ts';
import { assertAlive, request, rpc, startServer, type TestServer } from './support.ts';

let t: TestServer;
before(async () => {
  t = await startServer({}, {
    registerRoutes: (app) => {
      app.get('/friendbot', async (req) => ({ addr: (req.query as { addr?: string }).addr ?? null }));
      app.post('/friendbot', async (req) => ({ body: req.body }));
    },
  });
});
after(async () => { await t.close(); });
afterEach(async () => { await assertAlive(t.port); });

const call = { jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } };

describe('methods and paths', () => {
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD']) {
    it(`answers ${method} / with 405, Accept-Post and no body`, async () => {
      const r = await request(t.port, { method, path: '/' });
      assert.equal(r.status, 405);
      assert.equal(r.headers['accept-post'], 'application/json');
      assert.equal(r.text, '');
    });
  }

  it('answers GET on the other JSON-RPC paths with 405', async () => {
    for (const path of ['/rpc', '/soroban/rpc']) {
      const r = await request(t.port, { method: 'GET', path });
      assert.equal(r.status, 405, path);
    }
  });

  it('serves JSON-RPC on /, /rpc, /soroban/rpc (with or without trailing slash)', async () => {
    for (const path of ['/', '/rpc', '/rpc/', '/soroban/rpc', '/soroban/rpc/']) {
      const r = await rpc(t.port, call, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":{"a":1}}', path);
      assert.equal(r.headers['accept-post'], 'application/json');
      assert.match(String(r.headers['content-type']), /^application\/json/);
    }
  });

  it('answers a JSON-RPC path spelled as fastify normalizes it (routed by fastify) as the plain spelling (answered before fastify)', async () => {
    const withoutDate = (h: Record<string, unknown>) => { const { date: _, ...rest } = h; return rest; };
    for (const [plain, other] of [['/rpc', '/%72pc'], ['/', '/?a=1']]) {
      for (const headers of [{ origin: 'http://app.example' }, { 'content-type': 'text/plain' }] as Array<Record<string, string>>) {
        const a = await request(t.port, { path: plain, body: call, headers });
        const b = await request(t.port, { path: other, body: call, headers });
        assert.equal(b.status, a.status, other);
        assert.equal(b.text, a.text, other);
        assert.deepEqual(withoutDate(b.headers), withoutDate(a.headers), other);
      }
    }
  });

  it('answers other paths with 404', async () => {
    const r = await request(t.port, { path: '/nope', body: call });
    assert.equal(r.status, 404);
    assert.equal(r.text, '404 page not found\n');
  });

  it('serves the routes mounted by registerRoutes, with CORS', async () => {
    const r = await request(t.port, { method: 'GET', path: '/friendbot?addr=GABC', headers: { origin: 'http://app.example' } });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), { addr: 'GABC' });
    assert.equal(r.headers['access-control-allow-origin'], 'http://app.example');
    const r2 = await request(t.port, { method: 'POST', path: '/friendbot', body: { x: 1 } });
    assert.deepEqual(JSON.parse(r2.text), { body: { x: 1 } });
  });
});

describe('content type and body', () => {
  it('answers a non-JSON content type with 415', async () => {
    const r = await request(t.port, { body: JSON.stringify(call), headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 415);
    assert.equal(r.text, 'content-type must be application/json\n');
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.headers['accept-post'], 'application/json');
  });

  it('answers a missing content type with 415', async () => {
    const r = await request(t.port, { method: 'POST' });
    assert.equal(r.status, 415);
    assert.equal(r.text, 'content-type must be application/json\n');
  });

  it('answers a non-UTF-8 charset with 415', async () => {
    const r = await request(t.port, { body: JSON.stringify(call), headers: { 'content-type': 'application/json; charset=latin1' } });
    assert.equal(r.status, 415);
    assert.equal(r.text, 'invalid content-type charset\n');
  });

  it('accepts application/json with utf-8 charset in any case, and parameters', async () => {
    for (const ct of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON', 'application/json; charset="utf8"']) {
      const r = await request(t.port, { body: JSON.stringify(call), headers: { 'content-type': ct } });
      assert.equal(r.status, 200, ct);
    }
  });

  it('answers unparseable JSON with 500 "[-32700] invalid request value"', async () => {
    for (const body of ['{bad', '', '   ', '{"jsonrpc":"2.0",}', '\uFEFF{}']) {
      const r = await request(t.port, { body });
      assert.equal(r.status, 500, JSON.stringify(body));
      assert.equal(r.text, '[-32700] invalid request value\n');
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    }
  });

  it('answers a body over 512 KiB with 500 "http: request body too large"', async () => {
    const big = JSON.stringify({ ...call, params: { b: 'x'.repeat(600 * 1024) } });
    const r = await request(t.port, { body: big });
    assert.equal(r.status, 500);
    assert.equal(r.text, 'http: request body too large\n');
  });

  it('detects an oversized chunked body too (no content-length)', async () => {
    const http = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: t.port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 10; i++) req.write(chunk);
      req.end();
    });
    assert.equal(status, 500);
  });

  it('accepts a body of exactly 512 KiB', async () => {
    const base = JSON.stringify(call);
    const body = base + ' '.repeat(512 * 1024 - base.length);
    assert.equal(Buffer.byteLength(body), 512 * 1024);
    const r = await request(t.port, { body });
    assert.equal(r.status, 200);
  });

  it('keeps serving on the same keep-alive connection after errors', async () => {
    for (const body of ['{bad', '[]', '42']) await request(t.port, { body });
    await request(t.port, { method: 'GET' });
    await assertAlive(t.port);
  });
});

describe('CORS', () => {
  it('answers a preflight on the JSON-RPC path', async () => {
    const r = await request(t.port, {
      method: 'OPTIONS', path: '/',
      headers: {
        origin: 'https://laboratory.stellar.org',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-client-name,x-client-version',
      },
    });
    assert.equal(r.status, 204);
    assert.equal(r.headers['access-control-allow-origin'], 'https://laboratory.stellar.org');
    assert.match(String(r.headers['access-control-allow-methods']), /POST/);
    const allowed = String(r.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['content-type', 'x-client-name', 'x-client-version']) assert.ok(allowed.includes(h), allowed);
  });

  it('answers a preflight on /soroban/rpc and /friendbot', async () => {
    for (const path of ['/soroban/rpc', '/friendbot']) {
      const r = await request(t.port, { method: 'OPTIONS', path, headers: { origin: 'http://x.test', 'access-control-request-method': 'POST' } });
      assert.equal(r.status, 204, path);
      assert.equal(r.headers['access-control-allow-origin'], 'http://x.test');
    }
  });

  it('echoes the Origin on actual requests, including errors', async () => {
    const r = await request(t.port, { body: call, headers: { origin: 'http://localhost:3000', 'x-client-name': 'js-stellar-sdk', 'x-client-version': '17.2.0' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['access-control-allow-origin'], 'http://localhost:3000');
    assert.match(String(r.headers.vary), /Origin/);
    const r2 = await request(t.port, { body: '{bad', headers: { origin: 'http://localhost:3000' } });
    assert.equal(r2.headers['access-control-allow-origin'], 'http://localhost:3000');
  });

  it('sends no Allow-Origin without an Origin', async () => {
    const r = await request(t.port, { body: call });
    assert.equal(r.headers['access-control-allow-origin'], undefined);
  });
});

describe('helpers', () => {
  it('contentTypeProblem follows jhttp', () => {
    assert.equal(contentTypeProblem('application/json'), undefined);
    assert.equal(contentTypeProblem('application/json; charset=utf-8'), undefined);
    assert.equal(contentTypeProblem(undefined), 'content-type must be application/json');
    assert.equal(contentTypeProblem('application/jsonx'), 'content-type must be application/json');
    assert.equal(contentTypeProblem('text/json'), 'content-type must be application/json');
    assert.equal(contentTypeProblem('application/json; charset=iso-8859-1'), 'invalid content-type charset');
  });

  it('parseEndpoint', () => {
    assert.deepEqual(parseEndpoint('localhost:8000'), { host: 'localhost', port: 8000 });
    assert.deepEqual(parseEndpoint(':8000'), { host: '0.0.0.0', port: 8000 });
    assert.deepEqual(parseEndpoint('[::1]:0'), { host: '::1', port: 0 });
    assert.throws(() => parseEndpoint('localhost'));
    assert.throws(() => parseEndpoint('localhost:99999'));
  });
});

describe('fastify built at the first request for its routes', () => {
  it('answers the requests that came while it was built, each as later ones, and JSON-RPC meanwhile', async () => {
    const fresh = await startServer({}, { registerRoutes: (app) => { app.get('/friendbot', async () => ({ ok: true })); } });
    try {
      const [notFound, preflight, other, friendbot, post] = await Promise.all([
        request(fresh.port, { method: 'GET', path: '/nowhere' }),
        request(fresh.port, { method: 'OPTIONS', path: '/', headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' } }),
        request(fresh.port, { method: 'GET', path: '/rpc' }),
        request(fresh.port, { method: 'GET', path: '/friendbot' }),
        rpc(fresh.port, call),
      ]);
      assert.equal(notFound.status, 404);
      assert.equal(notFound.text, '404 page not found\n');
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], 'http://app.example');
      assert.equal(other.status, 405);
      assert.equal(friendbot.status, 200);
      assert.deepEqual(JSON.parse(friendbot.text), { ok: true });
      assert.equal(post.text, '{"jsonrpc":"2.0","id":1,"result":{"a":1}}');
      assert.equal((await request(fresh.port, { method: 'GET', path: '/nowhere' })).status, 404);
    } finally {
      await fresh.close();
    }
  });

  it('closes a server that never built it; a request that comes meanwhile gets the 503 fastify gives while closing', async () => {
    const s = await startServer();
    // a call in flight keeps its connection open while the server closes; a second request comes on it then
    const socket = connect(s.port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => { text += d; });
    const ended = new Promise((resolve) => socket.on('close', resolve));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'block' });
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    while (s.probe.blocked.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = s.server.close();
    socket.write('GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n');
    s.probe.blocked.splice(0)[0]('done');
    // both answers in (the second's body comes with its headers)
    while (!/\r\n\r\n[^]*HTTP\/1\.1 [^]*\r\n\r\n[^]+$/.test(text)) await new Promise((r) => setTimeout(r, 5));
    socket.end();
    await ended;
    await closing;
    assert.match(text, /HTTP\/1\.1 503 Service Unavailable[^]*\r\n\r\n\{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503\}/);
    assert.match(text, /HTTP\/1\.1 200 OK[^]*"result":"done"/);
    await assert.rejects(request(s.port, { body: call }));
  });
});

describe('close', () => {
  it('lets an in-flight request finish, then stops accepting', async () => {
    const s = await startServer();
    const pending = rpc(s.port, { jsonrpc: '2.0', id: 1, method: 'asyncEcho', params: { ms: 200, v: 'done' } });
    await new Promise((r) => setTimeout(r, 50));
    const closing = s.server.close();
    const r = await pending;
    assert.equal(r.status, 200);
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":"done"}');
    await closing;
    await assert.rejects(request(s.port, { body: call }));
    await s.server.close(); // idempotent
  });
});
