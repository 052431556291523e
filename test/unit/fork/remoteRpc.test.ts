// The fork's client of the remote RPC against a real local HTTP server that answers well, not at
// all, with garbage, with JSON-RPC errors, or too late: every case ends, with a ForkRemoteError
// naming the URL and the method.
import { it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ForkRemoteError, RemoteRpc } from '../../../src/fork/remoteRpc.ts';

type Handler = (body: { method: string; params: Record<string, unknown>; id: number }, res: ServerResponse) => void;
let handler: Handler = () => {};
let requests = 0;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let text = '';
  req.on('data', (c) => { text += c; });
  req.on('end', () => { requests++; handler(JSON.parse(text), res); });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => { server.closeAllConnections(); server.close(); });

const answer = (res: ServerResponse, id: number, result: unknown) => res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
const fast = { timeoutMs: 300, backoffMs: 10 };

it('reads the network, the latest ledger and entries in batches of 200 keys', async () => {
  const batches: number[] = [];
  handler = (b, res) => {
    if (b.method === 'getNetwork') return answer(res, b.id, { passphrase: 'P', protocolVersion: 23 });
    if (b.method === 'getLatestLedger') return answer(res, b.id, { id: 'ab', sequence: 77, protocolVersion: 23 });
    const keys = b.params.keys as string[];
    batches.push(keys.length);
    answer(res, b.id, { entries: keys.slice(0, 1).map((k) => ({ key: k, xdr: 'x', lastModifiedLedgerSeq: 5 })), latestLedger: 77 });
  };
  const rpc = new RemoteRpc(url, fast);
  assert.equal((await rpc.getNetwork()).passphrase, 'P');
  assert.equal((await rpc.getLatestLedger()).sequence, 77);
  const keys = Array.from({ length: 450 }, (_, i) => `k${i}`);
  const r = await rpc.getLedgerEntries(keys);
  assert.deepEqual(batches, [200, 200, 50]);
  assert.deepEqual(r.entries.map((e) => e.key), ['k0', 'k200', 'k400']);
  assert.equal(r.latestLedger, 77);
});

it('a remote that does not answer: a timeout, tried again twice, then an error naming URL and method', async () => {
  requests = 0;
  handler = () => {}; // never answers
  const rpc = new RemoteRpc(url, fast);
  await assert.rejects(rpc.getNetwork(), (e: unknown) => {
    assert.ok(e instanceof ForkRemoteError);
    assert.match(e.message, new RegExp(`getNetwork at ${url}: no answer within 0.3 s`));
    return true;
  });
  assert.equal(requests, 3);
});

it('a slow answer past the timeout is a timeout; a later attempt that answers in time succeeds', async () => {
  requests = 0;
  handler = (b, res) => {
    if (requests === 1) setTimeout(() => answer(res, b.id, { id: 'x', sequence: 1, protocolVersion: 23 }), 600);
    else answer(res, b.id, { id: 'x', sequence: 2, protocolVersion: 23 });
  };
  const rpc = new RemoteRpc(url, fast);
  assert.equal((await rpc.getLatestLedger()).sequence, 2);
  assert.equal(requests, 2);
});

it('garbage is not JSON-RPC: refused at once, not retried', async () => {
  requests = 0;
  handler = (_b, res) => res.end('<html>hello</html>');
  await assert.rejects(new RemoteRpc(url, fast).getNetwork(), /getNetwork at .*: the answer is not JSON-RPC \(HTTP 200: "<html>hello<\/html>"\)/);
  assert.equal(requests, 1);
  handler = (b, res) => answer(res, b.id, { something: 'else' });
  await assert.rejects(new RemoteRpc(url, fast).getNetwork(), /getNetwork at .*: unexpected result/);
});

it('a JSON-RPC error: its code and message; -32603 and HTTP 5xx are tried again', async () => {
  requests = 0;
  handler = (b, res) => res.end(JSON.stringify({ jsonrpc: '2.0', id: b.id, error: { code: -32602, message: 'bad keys' } }));
  await assert.rejects(new RemoteRpc(url, fast).getLedgerEntries(['k']), (e: unknown) => {
    assert.ok(e instanceof ForkRemoteError);
    assert.equal(e.code, -32602);
    assert.match(e.message, /getLedgerEntries at .*: error -32602: bad keys/);
    return true;
  });
  assert.equal(requests, 1);
  requests = 0;
  handler = (b, res) => res.end(JSON.stringify({ jsonrpc: '2.0', id: b.id, error: { code: -32603, message: 'db busy' } }));
  await assert.rejects(new RemoteRpc(url, fast).getLedgerEntries(['k']), /error -32603: db busy \(after 3 attempts\)/);
  assert.equal(requests, 3);
  requests = 0;
  handler = (b, res) => {
    if (requests < 3) { res.statusCode = 503; return res.end('busy'); }
    answer(res, b.id, { entries: [], latestLedger: 9 });
  };
  assert.equal((await new RemoteRpc(url, fast).getLedgerEntries(['k'])).latestLedger, 9);
});

it('nothing listening: a clear error; a bad URL is refused before any request', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(new RemoteRpc(`http://127.0.0.1:${port}`, fast).getNetwork(), /getNetwork at http:\/\/127.0.0.1:\d+: no answer \(ECONNREFUSED\)/);
  assert.throws(() => new RemoteRpc('ftp://x'), /not an http/);
  assert.throws(() => new RemoteRpc('nonsense'), /not a URL/);
});
