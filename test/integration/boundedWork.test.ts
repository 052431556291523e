// Bounded work per request, driven as an attacker would against the server as a process: real
// pubnet ledgers (a follower of the fixture ledgers, whose metas are over a megabyte each) and a
// standalone network. Each case checks that the process survives, that the answer is a page or a
// clear error, that another connection is answered meanwhile, that memory stays under the
// documented ceiling and falls back, that idle and slow sockets are closed on time, and that the
// node keeps its data and keeps closing ledgers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import net from 'node:net';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { rssMb, rssSampler } from './support/processMemory.ts';
import { PUBNET_FIRST as FIRST, PUBNET_LAST as LAST, PUBNET_PASSPHRASE as PUBNET, pubnetMetas, startPubnetFollower as pubnetFollower } from './support/pubnetFollower.ts';

/** The RSS ceiling docs/methods.md (Bounded work per request) documents for these cases. */
const RSS_CEILING_MB = 1024;

const metas = pubnetMetas();

const body = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

/** POSTs JSON text; resolves to the status and body text. */
async function post(url: string, text: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  return { status: res.status, text: await res.text() };
}
const postJson = async (url: string, value: unknown) => {
  const r = await post(url, JSON.stringify(value));
  assert.equal(r.status, 200, r.text.slice(0, 300));
  return JSON.parse(r.text);
};

/** A request whose answer is read and thrown away (a heavy client that costs its own process little). */
function drain(url: string, value: unknown): Promise<{ status: number; bytes: number }> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(value);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => resolve({ status: res.statusCode!, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** getLatestLedger on its own connections while `heavy` runs: the sequences of the answers that came before it ended. */
async function probeDuring(url: string, heavy: Promise<unknown>): Promise<number[]> {
  let done = false;
  void heavy.finally(() => { done = true; });
  const during: number[] = [];
  while (!done) {
    const r = await postJson(url, body('getLatestLedger'));
    assert.ok(r.result, JSON.stringify(r).slice(0, 200));
    if (!done) during.push(r.result.sequence);
    await new Promise((res) => setTimeout(res, 10));
  }
  await heavy;
  return during;
}

describe('bounded work on a follower of real pubnet ledgers', () => {
  let node: NodeProcess;
  let rss: ReturnType<typeof rssSampler>;
  let idleMb = 0;
  let hashes: string[] = [];
  // 4 MiB: two base64 pubnet ledgers a page, one as JSON (3.6 MB each)
  const BUDGET = 4 * 1024 * 1024;

  before(async () => {
    node = await pubnetFollower(['--max-response-body-bytes', String(BUDGET)]);
    idleMb = rssMb(node.child.pid!);
    rss = rssSampler(node.child.pid!);
    const r = await postJson(node.url, body('getLedgers', { startLedger: FIRST, pagination: { limit: 1 } }));
    hashes = [r.result.ledgers[0].hash];
  });
  after(async () => {
    rss?.stop();
    await node?.stop();
  });

  it('a page ends on the answer budget with a cursor that continues exactly there (base64 and JSON)', async () => {
    for (const format of ['base64', 'json']) {
      const seen: number[] = [];
      const pageSizes: number[] = [];
      let params: Record<string, unknown> = { startLedger: FIRST, xdrFormat: format, pagination: { limit: 200 } };
      for (;;) {
        const r = await post(node.url, JSON.stringify(body('getLedgers', params)));
        const answer = JSON.parse(r.text);
        assert.ok(answer.result, r.text.slice(0, 300));
        const ledgers = answer.result.ledgers as any[];
        if (ledgers.length === 0) break;
        // the answer stays within the budget plus the one item any page may hold
        assert.ok(ledgers.length === 1 || Buffer.byteLength(r.text) <= BUDGET + 4096, `${format}: ${Buffer.byteLength(r.text)} bytes in ${ledgers.length} ledgers`);
        pageSizes.push(ledgers.length);
        for (const l of ledgers) {
          seen.push(l.sequence);
          if (format === 'json') assert.equal(typeof l.metadataJson, 'object');
          else assert.equal(l.metadataXdr, Buffer.from(metas[l.sequence - FIRST]).toString('base64'));
        }
        assert.equal(answer.result.cursor, String(ledgers.at(-1).sequence), 'the cursor is the last ledger sent');
        params = { xdrFormat: format, pagination: { cursor: answer.result.cursor, limit: 200 } };
        if (ledgers.at(-1).sequence === LAST) break;
      }
      assert.deepEqual(seen, metas.map((_, i) => FIRST + i), `${format}: every ledger once, in order`);
      assert.ok(pageSizes.length > 1, `${format}: the budget cut the 200-ledger page (${pageSizes})`);
    }
  });

  it('getTransactions and getEvents pages cut by the budget walk to the same items as small pages', async () => {
    const walk = async (method: string, key: string, idOf: (x: any) => string, limit: number, format: string) => {
      const ids: string[] = [];
      let params: Record<string, unknown> = { startLedger: FIRST, xdrFormat: format, pagination: { limit } };
      for (let pages = 0; pages < 10_000; pages++) {
        const answer = await postJson(node.url, body(method, params));
        assert.ok(answer.result, JSON.stringify(answer).slice(0, 300));
        const items = answer.result[key] as any[];
        ids.push(...items.map(idOf));
        if (items.length === 0 || (method === 'getTransactions' && items.at(-1).ledger === LAST && items.length < limit)) break;
        if (method === 'getEvents' && items.length < limit && Number(BigInt(answer.result.cursor.split('-')[0]) >> 32n) >= LAST) break;
        params = { xdrFormat: format, pagination: { cursor: answer.result.cursor, limit } };
      }
      return ids;
    };
    const txBig = await walk('getTransactions', 'transactions', (t) => t.txHash, 200, 'json');
    const txSmall = await walk('getTransactions', 'transactions', (t) => t.txHash, 20, 'base64');
    assert.ok(txBig.length > 1000, `${txBig.length} transactions`);
    assert.deepEqual(txBig, txSmall);
    const evBig = await walk('getEvents', 'events', (e) => e.id, 10_000, 'json');
    const evSmall = await walk('getEvents', 'events', (e) => e.id, 1000, 'base64');
    assert.ok(evBig.length > 3000, `${evBig.length} events`);
    assert.deepEqual(evBig, evSmall);
  });

  it('a batch shares one budget: what does not fit is a clear error per element, and the node answers meanwhile', async () => {
    // the attack: 60 getLedgers of 200 in one 6 KB request, as JSON
    const batch = Array.from({ length: 60 }, (_, i) => body('getLedgers', { startLedger: FIRST, xdrFormat: 'json', pagination: { limit: 200 } }, i));
    let answers: any[] = [];
    const heavy = post(node.url, JSON.stringify(batch)).then((r) => { answers = JSON.parse(r.text); });
    const probes = await probeDuring(node.url, heavy);
    assert.equal(answers.length, 60);
    const pages = answers.filter((a) => a.result);
    const refused = answers.filter((a) => a.error);
    assert.ok(pages.length >= 1 && pages.every((a) => a.result.ledgers.length >= 1));
    assert.equal(pages.length + refused.length, 60);
    for (const a of refused) {
      assert.equal(a.error.code, -32005, JSON.stringify(a.error));
      assert.equal(a.error.message, 'response size limit exceeded');
      assert.match(a.error.data, /max-response-body-bytes/);
    }
    assert.deepEqual(answers.map((a) => a.id), batch.map((b) => b.id), 'ids in request order');
    assert.ok(probes.length >= 1, 'getLatestLedger was answered while the batch was being answered');
  });

  it('one heavy JSON page at a time does not stop the others: getLatestLedger is answered during it', async () => {
    const heavy = Promise.all([1, 2, 3].map(() => drain(node.url, body('getLedgers', { startLedger: FIRST, xdrFormat: 'json', pagination: { limit: 200 } }))));
    const probes = await probeDuring(node.url, heavy);
    for (const r of await heavy) assert.equal(r.status, 200);
    assert.ok(probes.length >= 1, 'getLatestLedger was answered while three JSON pages were being answered');
  });

  it('batches of 1,000 getTransactions and getEvents are answered (pages or errors), never a crash', async () => {
    for (const [method, params] of [
      ['getTransactions', { startLedger: FIRST, xdrFormat: 'json', pagination: { limit: 200 } }],
      ['getEvents', { startLedger: FIRST, xdrFormat: 'json', pagination: { limit: 10_000 } }],
    ] as const) {
      const batch = Array.from({ length: 1000 }, (_, i) => body(method, params, i));
      const answers = await postJson(node.url, batch) as any[];
      assert.equal(answers.length, 1000);
      assert.ok(answers[0].result, JSON.stringify(answers[0]).slice(0, 300));
      assert.ok(answers.every((a) => a.result || a.error.code === -32005 || a.error.code === -32001), method);
    }
  });

  it('malformed input stays a JSON-RPC error: deep nesting as the reference decodes it, ids echoed exactly', async () => {
    // a batch holding a message whose params nest `depth` levels in all (the array and the message count)
    const deepBatch = (depth: number, ...others: string[]) =>
      `[{"jsonrpc":"2.0","id":1,"method":"getHealth","params":${'{"a":'.repeat(depth - 2)}1${'}'.repeat(depth - 2)}}${others.map((o) => ',' + o).join('')}]`;
    // 10,000 levels: decoded (the 5,000 overflowed the stack before); the other element still answered
    let r = await post(node.url, deepBatch(10_000, '{"jsonrpc":"2.0","id":2,"method":"getNetwork"}'));
    assert.equal(r.status, 200, r.text.slice(0, 200));
    const both = JSON.parse(r.text);
    assert.equal(both.length, 2);
    assert.equal(both[1].result.passphrase, PUBNET);
    r = await post(node.url, deepBatch(10_001));
    assert.equal(r.status, 500);
    assert.equal(r.text, '[-32700] invalid request value\n');
    for (const id of ['1e999', '12345678901234567890', '-0', '1.50', '"x"']) {
      r = await post(node.url, `{"jsonrpc":"2.0","id":${id},"method":"getNetwork"}`);
      assert.ok(r.text.startsWith(`{"jsonrpc":"2.0","id":${id},"result":`), r.text.slice(0, 80));
    }
  });

  it('memory stays under the ceiling and falls back near idle; the data is intact', async () => {
    assert.ok(rss.peakMb < RSS_CEILING_MB, `peak RSS ${rss.peakMb.toFixed(0)} MB`);
    const deadline = Date.now() + 20_000;
    let now = rssMb(node.child.pid!);
    while (now > idleMb + 150 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      now = rssMb(node.child.pid!);
    }
    assert.ok(now <= idleMb + 150, `RSS ${now.toFixed(0)} MB after the bursts, ${idleMb.toFixed(0)} MB idle, peak ${rss.peakMb.toFixed(0)} MB`);
    const r = await postJson(node.url, body('getLedgers', { startLedger: FIRST, pagination: { limit: 1 } }));
    assert.equal(r.result.ledgers[0].hash, hashes[0]);
    assert.equal(node.child.exitCode, null);
  });
});

describe('time limits that fire, on synchronous work too', () => {
  let node: NodeProcess;
  // a pubnet ledger's JSON renders in milliseconds (the crate, native/src/xdr_json.rs): a page of them
  // outlasts a limit of a few
  before(async () => { node = await pubnetFollower(['--max-get-ledgers-execution-duration', '3ms']); });
  after(async () => { await node?.stop(); });

  it('a JSON page past its method limit answers -32001, and the node goes on', async () => {
    const t = performance.now();
    const r = await postJson(node.url, body('getLedgers', { startLedger: FIRST, xdrFormat: 'json', pagination: { limit: 200 } }));
    const ms = performance.now() - t;
    assert.deepEqual(r.error, { code: -32001, message: '[-32001] request exceeded processing limit threshold' }, `after ${ms.toFixed(0)} ms`);
    const again = await postJson(node.url, body('getLedgers', { startLedger: FIRST, pagination: { limit: 2 } }));
    assert.equal(again.result.ledgers.length, 2);
  });
});

describe('connections', () => {
  let node: NodeProcess;
  const READ_S = 1, IDLE_S = 1, WRITE_S = 2, MAX_CONNECTIONS = 24;
  before(async () => {
    node = await pubnetFollower([
      '--http-read-timeout', `${READ_S}s`, '--http-idle-timeout', `${IDLE_S}s`, '--http-write-timeout', `${WRITE_S}s`,
      '--max-connections', String(MAX_CONNECTIONS), '--max-queued-response-bytes', String(6 * 1024 * 1024),
    ]);
  });
  after(async () => { await node?.stop(); });

  const port = () => Number(new URL(node.url).port);
  const connect = (onData?: (d: Buffer) => void): Promise<net.Socket> => new Promise((resolve) => {
    const s = net.connect(port(), '127.0.0.1', () => resolve(s));
    s.on('error', () => {});
    if (onData) s.on('data', onData);
  });
  /** Seconds until the server closes the socket (bounded wait). */
  const secondsToClose = (s: net.Socket, limitMs = 15_000): Promise<number> => new Promise((resolve) => {
    const t = performance.now();
    const timer = setTimeout(() => resolve(Infinity), limitMs);
    s.once('close', () => { clearTimeout(timer); resolve((performance.now() - t) / 1000); });
  });
  // Node checks read timeouts every 250 ms and closes keep-alive sockets a second after the advertised timeout
  const SLACK_S = 1.5;

  it('an idle new connection and one sending headers slowly are closed within the read timeout', async () => {
    const idle = await connect();
    assert.ok(await secondsToClose(idle) <= READ_S + SLACK_S);
    const slow = await connect();
    slow.write('POST / HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => slow.write('X-Slow: 1\r\n'), 100);
    const slowClose = await secondsToClose(slow);
    clearInterval(drip);
    assert.ok(slowClose <= READ_S + SLACK_S, `closed after ${slowClose} s`);
  });

  it('a keep-alive connection idle after its answer is closed within the idle timeout', async () => {
    let got = '';
    const s = await connect((d) => { got += d; });
    const payload = JSON.stringify(body('getNetwork'));
    s.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`);
    const closed = await secondsToClose(s);
    assert.match(got, /^HTTP\/1.1 200/);
    assert.ok(closed <= IDLE_S + 1 + SLACK_S, `closed after ${closed} s`);
  });

  it('connections over the cap are answered 503 and closed; the ones held keep working', async () => {
    const held: net.Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await connect());
    let refusal = '';
    const extra = await connect((d) => { refusal += d; });
    assert.ok(await secondsToClose(extra, 5000) < 5);
    assert.match(refusal, /^HTTP\/1.1 503 Service Unavailable\r\n/);
    assert.match(refusal, /too many open connections\n$/);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    assert.ok((await postJson(node.url, body('getNetwork'))).result);
  });

  it('a client that never reads its answer is disconnected at the write timeout; unread answers are capped', async () => {
    const payload = JSON.stringify(body('getLedgers', { startLedger: FIRST, pagination: { limit: 10 } }));
    const stuck: net.Socket[] = [];
    for (let i = 0; i < 8; i++) {
      const s = await connect();
      s.pause(); // reads nothing: the answer backs up in the server
      s.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`);
      stuck.push(s);
    }
    await new Promise((r) => setTimeout(r, 500));
    // past 6 MiB of unread answers, new work is refused (HTTP 503, or -32098 when it had started)
    const r = await post(node.url, payload);
    assert.ok(r.status === 503 || JSON.parse(r.text).error?.code === -32098, `status ${r.status} ${r.text.slice(0, 200)}`);
    // the write timeout frees them: new requests are served again
    await new Promise((res) => setTimeout(res, (WRITE_S + SLACK_S) * 1000));
    const after = await postJson(node.url, body('getLedgers', { startLedger: FIRST, pagination: { limit: 1 } }));
    assert.equal(after.result.ledgers.length, 1);
    for (const s of stuck) s.destroy();
  });
});

describe('a standalone network under heavy requests', () => {
  let node: NodeProcess;
  before(async () => {
    node = await startNodeProcess({ args: ['--ledger-close-interval', '200ms', '--log-level', 'warn', '--max-response-body-bytes', String(16 * 1024)] });
  });
  after(async () => { await node?.stop(); });

  it('keeps closing ledgers and keeps its data while batches of the heaviest pages run', async () => {
    for (let i = 0; i < 20; i++) await fetch(`${node.url}/friendbot?addr=${(await import('@stellar/stellar-sdk')).Keypair.random().publicKey()}`);
    const first = (await node.rpc('getLedgers', { startLedger: 1, pagination: { limit: 1 } })).result.ledgers[0];
    const before = (await node.rpc('getLatestLedger')).result.sequence;
    const heavy = Promise.all([
      drain(node.url, Array.from({ length: 200 }, (_, i) => body('getLedgers', { startLedger: 1, xdrFormat: 'json', pagination: { limit: 200 } }, i))),
      drain(node.url, Array.from({ length: 200 }, (_, i) => body('getTransactions', { startLedger: 1, xdrFormat: 'json', pagination: { limit: 200 } }, i))),
      drain(node.url, Array.from({ length: 200 }, (_, i) => body('getEvents', { startLedger: 1, xdrFormat: 'json', pagination: { limit: 10_000 } }, i))),
    ]);
    const probes = await probeDuring(node.url, heavy);
    for (const r of await heavy) assert.equal(r.status, 200);
    // the engine goes on closing: three more ledgers arrive (within a generous deadline)
    let latest = before;
    for (const deadline = Date.now() + 60_000; latest < before + 3 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      latest = (await node.rpc('getLatestLedger')).result.sequence;
    }
    assert.ok(latest >= before + 3, `ledgers closed after the batches: ${before} -> ${latest}`);
    assert.ok(probes.length >= 1);
    const again = (await node.rpc('getLedgers', { startLedger: 1, pagination: { limit: 1 } })).result.ledgers[0];
    assert.deepEqual(again, first, 'the stored ledger is unchanged');
    // a page cut by the 16 KiB budget continues exactly at its cursor
    const page = (await node.rpc('getTransactions', { startLedger: 1, pagination: { limit: 200 } })).result;
    assert.ok(page.transactions.length >= 1 && page.transactions.length < 20, `${page.transactions.length} transactions in 16 KiB`);
    const next = (await node.rpc('getTransactions', { pagination: { cursor: page.cursor, limit: 1 } })).result.transactions[0];
    // the same place walked one transaction at a time
    let single = (await node.rpc('getTransactions', { startLedger: 1, pagination: { limit: 1 } })).result;
    for (let i = 1; i <= page.transactions.length; i++) {
      single = (await node.rpc('getTransactions', { pagination: { cursor: single.cursor, limit: 1 } })).result;
    }
    assert.equal(next.txHash, single.transactions[0].txHash);
  });
});
