// Compressed answers from a node as a process: a follower of the ten real pubnet fixture ledgers
// (over a megabyte of meta each) answers in zstd or gzip as Accept-Encoding asks, exactly the bytes
// of its uncompressed answer; the JS SDK's own HTTP path (fetch, which asks for gzip and decodes gzip
// and zstd) keeps working against it; and with --websocket-permessage-deflate, WebSocket clients
// that offer permessage-deflate get it, with exact messages. A standalone node without the flags
// negotiates nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import WebSocket from 'ws';
import { rpc as sdkRpc } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PUBNET_FIRST as FIRST, PUBNET_LAST as LAST, startPubnetFollower } from './support/pubnetFollower.ts';
import { StreamClient } from './support/streamClient.ts';

/** The size from which the node compresses (src/transport/answerCompression.ts). */
const THRESHOLD = 4096;

interface Answer { headers: http.IncomingHttpHeaders; body: Buffer }

/** A POST whose answer is read as sent (node:http does not decode). */
function post(url: string, body: unknown, acceptEncoding?: string): Promise<Answer> {
  const { hostname, port } = new URL(url);
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'POST', path: '/', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

const call = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
const ledgers = (limit: number, xdrFormat = 'base64') => call('getLedgers', { startLedger: FIRST, pagination: { limit }, xdrFormat });

function decoded(a: Answer): Buffer {
  const coding = a.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(a.body);
  if (coding === 'zstd') return zstdDecompressSync(a.body);
  assert.equal(coding, undefined, 'no other coding');
  return a.body;
}

describe('a follower of real pubnet ledgers, compressing', () => {
  let node: NodeProcess;
  before(async () => { node = await startPubnetFollower(['--websocket-permessage-deflate']); });
  after(async () => { await node?.stop(); });

  it('answers in gzip and zstd decode to exactly the uncompressed bytes: pages in pieces, JSON from the workers, whole answers', async () => {
    const cases = [
      ['getLedgers, 10 ledgers as base64 (14 MB, streamed)', ledgers(10)],
      ['getLedgers, 1 ledger as JSON (rendered on worker threads)', ledgers(1, 'json')],
      ['getLatestLedger (the latest 1.2 MB meta)', call('getLatestLedger')],
      ['getTransactions, 3 as base64 (a whole answer)', call('getTransactions', { startLedger: FIRST, pagination: { limit: 3 } })],
    ] as const;
    for (const [what, body] of cases) {
      const plain = await post(node.url, body, 'identity');
      assert.equal(plain.headers['content-encoding'], undefined, what);
      assert.ok(JSON.parse(plain.body.toString()).result, what);
      assert.ok(plain.body.length >= THRESHOLD, `${what}: ${plain.body.length} bytes`);
      for (const coding of ['gzip', 'zstd']) {
        const a = await post(node.url, body, coding);
        assert.equal(a.headers['content-encoding'], coding, what);
        assert.match(String(a.headers.vary), /Accept-Encoding/, what);
        assert.ok(a.body.length < plain.body.length / 2, `${what}, ${coding}: ${a.body.length} of ${plain.body.length} bytes`);
        assert.ok(decoded(a).equals(plain.body), `${what}, ${coding}: decodes to other bytes`);
      }
    }
  });

  it('the SDK\'s HTTP path asks for gzip and decodes it, and decodes zstd when asked for it', async () => {
    const plain = JSON.parse((await post(node.url, ledgers(3), 'identity')).body.toString());
    // rpc.Server's own client, as every SDK method uses it: fetch, which sends "gzip, deflate"
    const byDefault = new sdkRpc.Server(node.url, { allowHttp: true });
    const zstd = new sdkRpc.Server(node.url, { allowHttp: true, headers: { 'Accept-Encoding': 'zstd' } });
    for (const [server, coding] of [[byDefault, 'gzip'], [zstd, 'zstd']] as const) {
      const r = await server.httpClient.post(node.url, ledgers(3));
      assert.equal((r.headers as unknown as Headers).get('content-encoding'), coding);
      assert.deepEqual(r.data, plain, coding);
      // and the SDK's methods, which read the same answers
      const page = await server.getLedgers({ startLedger: FIRST, pagination: { limit: 3 } });
      assert.deepEqual(page.ledgers.map((l) => [l.sequence, l.hash, l.metadataXdr.toXDR('base64')]),
        plain.result.ledgers.map((l: any) => [l.sequence, l.hash, l.metadataXdr]), coding);
      assert.equal((await server.getLatestLedger()).sequence, LAST, coding);
    }
  });

  it('no Accept-Encoding, identity, q=0 or only codings the node does not write: the answer as it is', async () => {
    const plain = await post(node.url, ledgers(2), 'identity');
    for (const header of [undefined, 'identity', 'gzip;q=0, zstd;q=0', '*;q=0', 'br, deflate']) {
      const a = await post(node.url, ledgers(2), header);
      assert.equal(a.headers['content-encoding'], undefined, String(header));
      assert.match(String(a.headers.vary), /Accept-Encoding/);
      assert.ok(a.body.equals(plain.body), String(header));
    }
  });

  it('answers under 4 KiB go out as they are, from 4 KiB on compressed', async () => {
    const health = await post(node.url, call('getNetwork'), 'gzip, zstd');
    assert.equal(health.headers['content-encoding'], undefined);
    assert.doesNotMatch(String(health.headers.vary), /Accept-Encoding/);
    // batches of getNetwork around the threshold: each compressed exactly when its plain size reaches it
    const batch = (n: number) => Array.from({ length: n }, (_, i) => call('getNetwork', undefined, i + 1));
    const one = (await post(node.url, batch(1), 'identity')).body.length;
    const around = Math.floor(THRESHOLD / (one + 1));
    const seen = new Set<boolean>();
    for (let n = around - 2; n <= around + 2; n++) {
      const plain = await post(node.url, batch(n), 'identity');
      const a = await post(node.url, batch(n), 'gzip');
      const compressed = a.headers['content-encoding'] === 'gzip';
      assert.equal(compressed, plain.body.length >= THRESHOLD, `${n} elements, ${plain.body.length} bytes`);
      assert.ok(decoded(a).equals(plain.body));
      seen.add(compressed);
    }
    assert.equal(seen.size, 2, 'batches on both sides of the threshold');
  });

  it('a WebSocket client offering permessage-deflate gets it, with exact answers and notifications', async () => {
    const ws = new WebSocket(node.url.replace(/^http/, 'ws'), { perMessageDeflate: true });
    let agreed = '';
    ws.once('upgrade', (res) => { agreed = String(res.headers['sec-websocket-extensions']); });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    /** The text of the next message, after sending `body`; fails if the connection closes first. */
    const exchange = (body: unknown): Promise<string> => new Promise((resolve, reject) => {
      const closed = (code: number, reason: Buffer) => reject(new Error(`closed ${code} ${reason}`));
      ws.once('close', closed);
      ws.once('message', (data) => { ws.off('close', closed); resolve(data.toString()); });
      ws.send(JSON.stringify(body));
    });
    try {
      assert.equal(ws.extensions, 'permessage-deflate');
      assert.equal(agreed, 'permessage-deflate; server_max_window_bits=12');
      // one ledger (an answer under --max-stream-buffer-bytes, which a WebSocket answer must fit)
      const plainText = (await post(node.url, ledgers(1), 'identity')).body.toString();
      const socket = (ws as unknown as { _socket: { bytesRead: number } })._socket;
      const before = socket.bytesRead;
      assert.equal(await exchange(ledgers(1)), plainText);
      const wire = socket.bytesRead - before;
      assert.ok(wire < plainText.length / 2, `${wire} bytes on the wire for a ${plainText.length}-byte answer`);
      // an answer under 1 KiB goes uncompressed: its bytes and a 2-byte frame header
      const at = socket.bytesRead;
      const small = await exchange(call('getNetwork'));
      assert.ok(small.length < 1024 && JSON.parse(small).result.passphrase);
      assert.equal(socket.bytesRead - at, small.length + 2);
    } finally {
      ws.close();
    }
    // notifications go through the same compression: the ten ledgers, as getLedgers has them
    const client = await StreamClient.open(node.url, '/', { perMessageDeflate: true });
    try {
      assert.equal(client.ws.extensions, 'permessage-deflate');
      const id = await client.subscribe({ kind: 'ledgers', startLedger: FIRST });
      await Promise.race([
        client.waitFor('the ten ledgers', () => client.results(id).length >= LAST - FIRST + 1),
        client.closed.then(({ code, reason }) => { throw new Error(`closed ${code} ${reason}`); }),
      ]);
      const page = JSON.parse((await post(node.url, ledgers(10), 'identity')).body.toString()).result.ledgers;
      assert.deepEqual(client.results(id), page);
    } finally {
      client.close();
    }
  });

  it('a WebSocket client asking for a server window under 4 KiB is served, uncompressed', async () => {
    const client = await StreamClient.open(node.url, '/', { perMessageDeflate: { serverMaxWindowBits: 10 } });
    try {
      assert.equal(client.ws.extensions, '');
      assert.equal((await client.call('getLatestLedger')).result.sequence, LAST);
    } finally {
      client.close();
    }
  });
});

describe('a node without the compression flags', () => {
  let node: NodeProcess;
  before(async () => { node = await startNodeProcess({ args: ['--http-compression=false', '--log-level', 'warn'] }); });
  after(async () => { await node?.stop(); });

  it('does not negotiate permessage-deflate, and with --http-compression=false answers uncompressed', async () => {
    const client = await StreamClient.open(node.url, '/', { perMessageDeflate: true });
    try {
      assert.equal(client.ws.extensions, '');
      assert.ok((await client.call('getNetwork')).result.passphrase);
    } finally {
      client.close();
    }
    const a = await post(node.url, call('rpc.discover'), 'gzip, zstd');
    assert.ok(a.body.length >= THRESHOLD);
    assert.equal(a.headers['content-encoding'], undefined);
    assert.ok(JSON.parse(a.body.toString()).result.openrpc);
  });
});
