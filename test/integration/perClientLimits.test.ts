// Limits kept per client (its source address), driven against the server as a process, as groups of
// hostile clients would: clients that leave heavy answers unread are refused themselves while other
// clients are still answered, and half-sent requests from one address do not fill the connection
// cap. Each client has its own loopback address (127.0.0.2, 127.0.0.3, ... are all loopback on
// Linux): the client socket is bound with `localAddress`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { freePort, startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PUBNET_FIRST as FIRST, PUBNET_PASSPHRASE as PUBNET, startPubnetFollower } from './support/pubnetFollower.ts';
import { server } from './support/sdk.ts';
import { StreamClient } from './support/streamClient.ts';

const body = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

/** A client on its own loopback address, with one keep-alive connection. */
class ClientAt {
  readonly address: string;
  private readonly agent: http.Agent;
  private readonly port: number;
  constructor(url: string, address: string) {
    this.address = address;
    this.port = Number(new URL(url).port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  }

  /** POSTs `value`; resolves to the status, the parsed body (undefined if not JSON) and the time taken. */
  post(value: unknown): Promise<{ status: number; text: string; json: any; ms: number }> {
    const payload = JSON.stringify(value);
    const t = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1', port: this.port, localAddress: this.address, agent: this.agent, method: 'POST', path: '/',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try { json = JSON.parse(text); } catch { /* not JSON (an HTTP refusal) */ }
          resolve({ status: res.statusCode!, text, json, ms: performance.now() - t });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void { this.agent.destroy(); }
}

/** A connection from `address` that sends `value` and never reads the answer. */
function leaveUnread(url: string, address: string, value: unknown): Promise<net.Socket> {
  const payload = JSON.stringify(value);
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: Number(new URL(url).port), localAddress: address }, () => {
      s.pause();
      s.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
      resolve(s);
    });
    s.on('error', reject);
  });
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const summary = (ms: number[]): string => `p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} calls)`;

/** Waits for `cond`, looking every 50 ms; fails with `what` after `ms`. */
async function waitFor(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('clients that leave heavy answers unread are refused themselves; the others are answered', () => {
  // the follower of ten real pubnet ledgers (over a megabyte of meta each) serves the heavy answers;
  // its sendTransaction goes to `core`, a standalone network on pubnet's passphrase playing
  // stellar-core's /tx, so that the transactions the light client sends are really accepted
  let core: NodeProcess;
  let node: NodeProcess;
  let metricsUrl: string;
  const payers: Keypair[] = [];
  const sockets: net.Socket[] = [];
  const clients: ClientAt[] = [];
  // 6 ledgers as base64: about 9.3 MB, over a client's default share (8 MiB); 12 of them stay under
  // the server's default ceiling (128 MiB), 15 go over it
  const HEAVY = body('getLedgers', { startLedger: FIRST, pagination: { limit: 6 } });
  const SMALL_HEAVY = body('getLedgers', { startLedger: FIRST, pagination: { limit: 1 } });
  let heavyBytes = 0;

  /** One of the node's metrics, read from its /metrics. */
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(metricsUrl)).text();
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)![1]);
  };
  const queuedBytes = (): Promise<number> => metric('lumen_rpc_http_queued_response_bytes');
  const client = (address: string): ClientAt => {
    const c = new ClientAt(node.url, address);
    clients.push(c);
    return c;
  };

  before(async () => {
    core = await startNodeProcess({ args: ['--network-passphrase', PUBNET, '--ledger-close-interval', '100ms', '--log-level', 'warn'] });
    const admin = await freePort();
    metricsUrl = `http://127.0.0.1:${admin}/metrics`;
    // default limits, but for the write timeout: the unread answers must stay for the whole test
    node = await startPubnetFollower([
      '--stellar-core-url', core.url, '--admin-endpoint', `127.0.0.1:${admin}`,
      '--max-healthy-ledger-latency', '1000000000s', '--http-write-timeout', '600s',
      // and the WebSocket client that stops reading is not closed as too slow during its test
      '--max-stream-lag', '600s',
    ]);
    // ten payers for each round of light calls (each pays once)
    for (let i = 0; i < 30; i++) payers.push(Keypair.random());
    await Promise.all(payers.map(async (kp) => {
      const r = await fetch(`${core.url}/friendbot?addr=${kp.publicKey()}`);
      assert.equal(r.status, 200, await r.text());
    }));
    const reader = client('127.0.0.99');
    const page = await reader.post(HEAVY);
    assert.equal(page.json.result.ledgers.length, 6);
    heavyBytes = Buffer.byteLength(page.text);
    assert.ok(heavyBytes > 8 * 2 ** 20 && heavyBytes * 12 < 128 * 2 ** 20, `a heavy answer is ${heavyBytes} bytes`);
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    for (const c of clients) c.close();
    await node?.stop();
    await core?.stop();
  });

  /** The light client's calls: getHealth and sendTransaction (each payer pays once), timed. */
  async function lightCalls(light: ClientAt, round: number): Promise<{ health: number[]; send: number[] }> {
    const coreRpc = server(core.url);
    const envelopes = await Promise.all(Array.from({ length: 10 }, (_, k) => round * 10 + k).map(async (i) => {
      const tx = new TransactionBuilder(await coreRpc.getAccount(payers[i].publicKey()), { fee: '100', networkPassphrase: PUBNET })
        .addOperation(Operation.payment({ destination: payers[(i + 1) % payers.length].publicKey(), asset: Asset.native(), amount: '1' }))
        .setTimeout(600).build();
      tx.sign(payers[i]);
      return tx.toXDR();
    }));
    const health: number[] = [];
    const send: number[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await light.post(body('getHealth'));
      assert.equal(r.status, 200, r.text.slice(0, 200));
      assert.equal(r.json.result?.status, 'healthy', r.text.slice(0, 300));
      health.push(r.ms);
      if (i % 20 === 0) {
        const s = await light.post(body('sendTransaction', { transaction: envelopes[i / 20] }));
        assert.equal(s.status, 200, s.text.slice(0, 200));
        assert.equal(s.json.result?.status, 'PENDING', s.text.slice(0, 300));
        send.push(s.ms);
      }
    }
    return { health, send };
  }

  it('12 clients over their share get their own -32098; a 13th client is answered, heavy pages included', async (t) => {
    const light = client('127.0.0.14');
    const idle = await lightCalls(light, 0);
    // 12 clients, 127.0.0.2 to 127.0.0.13, each leaves a heavy answer unread on one connection
    for (let i = 2; i <= 13; i++) sockets.push(await leaveUnread(node.url, `127.0.0.${i}`, HEAVY));
    await waitFor('the 12 answers to be held unread', async () => (await queuedBytes()) >= 12 * heavyBytes);
    // each of them, asking again on a new connection, is refused: its own share, said so
    for (let i = 2; i <= 13; i++) {
      const again = client(`127.0.0.${i}`);
      const r = await again.post(SMALL_HEAVY);
      assert.equal(r.status, 200, r.text.slice(0, 200));
      assert.equal(r.json.error?.code, -32098, `127.0.0.${i}: ${r.text.slice(0, 300)}`);
      assert.match(r.json.error.message, /this client exceed its share \(max-queued-response-bytes-per-address\)/);
      // its light calls still go through
      assert.equal((await again.post(body('getLatestLedger'))).json.result?.sequence, FIRST + 9);
    }
    // the 13th client: light calls answered, and a heavy page too (the server is under its ceiling)
    const loaded = await lightCalls(light, 1);
    const page = await light.post(SMALL_HEAVY);
    assert.equal(page.json.result?.ledgers?.length, 1, page.text.slice(0, 300));
    t.diagnostic(`13th client, idle node: getHealth ${summary(idle.health)}; sendTransaction ${summary(idle.send)}`);
    t.diagnostic(`13th client, 12 clients holding ${(12 * heavyBytes / 2 ** 20).toFixed(0)} MiB unread: getHealth ${summary(loaded.health)}; sendTransaction ${summary(loaded.send)}`);
  });

  it('a WebSocket connection that leaves its answers unread is refused itself; its light calls are answered', async () => {
    const heldBytes = (): Promise<number> => metric('lumen_rpc_stream_held_bytes');
    const ws = await StreamClient.open(node.url, '/', { localAddress: '127.0.0.30' });
    try {
      // the client stops reading: the heavy answer stays with its connection, over the share (8 MiB)
      (ws.ws as unknown as { _socket: net.Socket })._socket.pause();
      const first = ws.call('getLedgers', HEAVY.params);
      await waitFor('the heavy answer to be held for the connection', async () => (await heldBytes()) >= heavyBytes - 2 ** 20);
      // a heavy call and a light one, in one batch: the batch's answer joins what the connection holds
      const before = await heldBytes();
      ws.ws.send(JSON.stringify([{ ...SMALL_HEAVY, id: 'heavy' }, body('getHealth', undefined, 'light')]));
      await waitFor('the batch to be answered', async () => (await heldBytes()) > before);
      (ws.ws as unknown as { _socket: net.Socket })._socket.resume();
      assert.equal((await first).result?.ledgers?.length, 6);
      await ws.waitFor('the batch answer', () => ws.frames.some(Array.isArray));
      const batch = ws.frames.find(Array.isArray) as any[];
      const heavy = batch.find((a) => a.id === 'heavy');
      assert.equal(heavy.error?.code, -32098, JSON.stringify(heavy).slice(0, 300));
      assert.match(heavy.error.message, /this client exceed its share \(max-queued-response-bytes-per-address\)/);
      assert.equal(batch.find((a) => a.id === 'light').result?.status, 'healthy');
      // read, the connection's heavy calls go through again
      await waitFor('the connection to hold nothing', async () => (await heldBytes()) === 0);
      assert.equal((await ws.call('getLedgers', SMALL_HEAVY.params)).result?.ledgers?.length, 1);
    } finally {
      ws.close();
    }
  });

  it('past the server\'s ceiling, light calls are still answered and heavy ones refused with that reason', async (t) => {
    // three more clients: the unread answers pass the 128 MiB ceiling
    for (let i = 15; i <= 17; i++) sockets.push(await leaveUnread(node.url, `127.0.0.${i}`, HEAVY));
    await waitFor('the ceiling to be reached', async () => (await queuedBytes()) >= 128 * 2 ** 20);
    const light = client('127.0.0.18');
    const full = await lightCalls(light, 2);
    const r = await light.post(SMALL_HEAVY);
    assert.equal(r.json.error?.code, -32098, r.text.slice(0, 300));
    assert.match(r.json.error.message, /exceed the server's limit \(max-queued-response-bytes\)/);
    t.diagnostic(`a fresh client while clients hold ${((await queuedBytes()) / 2 ** 20).toFixed(0)} MiB unread (over the ceiling): getHealth ${summary(full.health)}; sendTransaction ${summary(full.send)}`);
  });
});

describe('half-sent requests from one address do not fill the connection cap', () => {
  let node: NodeProcess;
  const READ_S = 5; // the default --http-read-timeout, as the issue found it
  before(async () => {
    node = await startNodeProcess({ args: ['--log-level', 'warn'] });
  });
  after(async () => { await node?.stop(); });

  /** `n` connections from `address`, each sending `start` (the start of a request) and no more. */
  async function halfSent(address: string, n: number, start = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: appl'): Promise<Array<{ socket: net.Socket; got: string; closed: Promise<void> }>> {
    const port = Number(new URL(node.url).port);
    const open = (): Promise<{ socket: net.Socket; got: string; closed: Promise<void> }> => new Promise((resolve) => {
      const conn = { socket: undefined as unknown as net.Socket, got: '', closed: undefined as unknown as Promise<void> };
      const socket = net.connect({ host: '127.0.0.1', port, localAddress: address }, () => {
        socket.write(start);
        resolve(conn);
      });
      conn.socket = socket;
      conn.closed = new Promise((r) => socket.once('close', () => r()));
      socket.on('data', (d) => { conn.got += d; });
      socket.on('error', () => { /* closed by the server */ });
    });
    const out: Array<{ socket: net.Socket; got: string; closed: Promise<void> }> = [];
    for (let i = 0; i < n; i += 1024) out.push(...await Promise.all(Array.from({ length: Math.min(1024, n - i) }, open)));
    return out;
  }

  it('4,096 half-sent requests from one address: another address is still served, wave after wave', async (t) => {
    for (let wave = 1; wave <= 2; wave++) {
      const started = performance.now();
      const conns = await halfSent('127.0.0.2', 4096);
      const openedMs = performance.now() - started;
      // another address, while the wave's connections are held
      const other = new ClientAt(node.url, '127.0.0.3');
      const r = await other.post(body('getLatestLedger'));
      other.close();
      assert.equal(r.status, 200, r.text.slice(0, 200));
      assert.ok(r.json.result?.sequence >= 1, r.text.slice(0, 200));
      // every one of them is answered 503 at once, or held and closed at the read timeout
      await Promise.all(conns.map((c) => c.closed));
      const refused = conns.filter((c) => c.got.startsWith('HTTP/1.1 503 '));
      const held = conns.filter((c) => !c.got.startsWith('HTTP/1.1 503 '));
      for (const c of refused) assert.match(c.got, /^HTTP\/1.1 503 Service Unavailable\r\n[^]*\r\n\r\ntoo many connections from this address are still sending their requests\n$/);
      // closed silently (the guard's first-request timer) or with Node's 408 (its headers timer)
      for (const c of held) assert.ok(c.got === '' || c.got.startsWith('HTTP/1.1 408 '), c.got.slice(0, 100));
      t.diagnostic(`wave ${wave}: 4096 half-sent connections opened in ${openedMs.toFixed(0)} ms: ${held.length} held until the read timeout, ${refused.length} answered 503 at once; another address answered in ${r.ms.toFixed(1)} ms`);
      assert.ok(refused.length > 0 && held.length > 0);
      // all opened well within the read timeout (none held was closed yet): the per-address cap held
      if (openedMs < READ_S * 1000 / 2) assert.ok(held.length <= 512, `${held.length} held`);
    }
  });

  it('requests whose body is still arriving count as still being sent', async () => {
    // whole headers, then 10 of 100 body bytes
    const conns = await halfSent('127.0.0.4', 600, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"');
    try {
      await waitFor('the refusals to arrive', async () => conns.filter((c) => c.got !== '').length >= 600 - 512, 30_000);
      const refused = conns.filter((c) => c.got.startsWith('HTTP/1.1 503 '));
      assert.ok(refused.length >= 600 - 512, `${refused.length} refused`);
      for (const c of refused) assert.match(c.got, /still sending their requests\n$/);
      const other = new ClientAt(node.url, '127.0.0.5');
      const r = await other.post(body('getLatestLedger'));
      other.close();
      assert.ok(r.json.result?.sequence >= 1, r.text.slice(0, 200));
    } finally {
      for (const c of conns) c.socket.destroy();
    }
  });
});
