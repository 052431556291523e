// Streaming over Server-Sent Events (GET /stream/<kind>), over real HTTP against the node as a
// process: each kind delivers what the polling methods return over the same range (getLedgers,
// getEvents, getTransactions, getTransaction), then the live items; a client dropped mid-stream that
// reconnects with Last-Event-ID resumes with no gap and no duplicate; bad params are HTTP 400 with
// the JSON-RPC error; a shutdown ends open streams with a close event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, type rpc } from '@stellar/stellar-sdk';
import { freePort, startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { builder, funded, server, submit } from './support/sdk.ts';
import { openSse, streamUrl, type SseEvent, type SseStream } from './support/sse.ts';

/** getTransaction's members that describe the node's range at the time of the call, not the transaction. */
const RANGE_MEMBERS = ['latestLedger', 'latestLedgerCloseTime', 'oldestLedger', 'oldestLedgerCloseTime'];

const withoutRange = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !RANGE_MEMBERS.includes(k)));

async function stream(url: string, lastEventId?: string): Promise<SseStream> {
  const opened = await openSse(url, { lastEventId });
  assert.equal(opened.status, 200, `GET ${url}: ${opened.body}`);
  assert.match(opened.headers.get('content-type') ?? '', /^text\/event-stream/);
  return opened.stream!;
}

describe('streaming over Server-Sent Events', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let adminUrl: string;
  let start: number;
  /** The latest ledger once the transactions below were stored. */
  let last: number;
  let alice: Keypair;
  let bob: Keypair;
  const aliceHashes: string[] = [];

  async function pay(from: Keypair, to: Keypair, amount: string): Promise<string> {
    const tx = (await builder(s, from)).addOperation(Operation.payment({ destination: to.publicKey(), asset: Asset.native(), amount })).build();
    tx.sign(from);
    const { sent, done } = await submit(s, tx);
    assert.equal(done.status, 'SUCCESS');
    return sent.hash;
  }

  /** Every getEvents event of ledgers [from, to], paged to the end. */
  async function eventsBetween(from: number, to: number): Promise<any[]> {
    const out: any[] = [];
    let params: Record<string, unknown> = { startLedger: from, endLedger: to + 1, filters: [], pagination: { limit: 7 } };
    for (;;) {
      const { result } = await node.rpc('getEvents', params);
      out.push(...result.events);
      if (result.events.length < 7) return out;
      params = { filters: [], pagination: { cursor: result.cursor, limit: 7 } };
    }
  }

  before(async () => {
    const adminPort = await freePort();
    adminUrl = `http://127.0.0.1:${adminPort}/metrics`;
    node = await startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn', '--admin-endpoint', `127.0.0.1:${adminPort}`] });
    s = server(node.url);
    start = (await s.getLatestLedger()).sequence;
    alice = await funded(s);
    bob = await funded(s);
    for (let i = 1; i <= 4; i++) aliceHashes.push(await pay(alice, bob, String(i)));
    last = (await s.getLatestLedger()).sequence;
  });
  after(async () => { await node?.stop(); });

  it('ledgers: the getLedgers items of the range, in order, with their sequences as ids (base64 and JSON)', async () => {
    const n = last - start + 1;
    for (const xdrFormat of [undefined, 'json']) {
      const { result } = await node.rpc('getLedgers', { startLedger: start, pagination: { limit: n }, ...(xdrFormat ? { xdrFormat } : {}) });
      const sse = await stream(streamUrl(node.url, 'ledgers', { startLedger: String(start), xdrFormat }));
      const got = await sse.take(n);
      sse.close();
      assert.deepEqual(got.map((e) => e.event), Array(n).fill('ledgers'));
      assert.deepEqual(got.map((e) => e.id), result.ledgers.map((l: any) => String(l.sequence)));
      assert.deepEqual(got.map((e) => JSON.parse(e.data)), result.ledgers);
    }
  });

  it('events: the same events, in the same order, as paging getEvents over the range; then the live ones', async () => {
    const expected = await eventsBetween(start, last);
    assert.ok(expected.length >= 8, 'the payments emitted fee and transfer events');
    const sse = await stream(streamUrl(node.url, 'events', { startLedger: String(start) }));
    const got = await sse.take(expected.length);
    assert.deepEqual(got.map((e) => e.id), expected.map((e) => e.id));
    assert.deepEqual(got.map((e) => JSON.parse(e.data)), expected);
    assert.ok(got.every((e) => e.event === 'events'));
    // live: the next event is the next transaction's, from a ledger after the range
    const hash = await pay(bob, alice, '1');
    const next = JSON.parse((await sse.take(1))[0].data);
    sse.close();
    assert.ok(next.ledger > last);
    assert.equal(next.txHash, hash);
  });

  it('events: a client dropped mid-stream resumes from Last-Event-ID with no gap and no duplicate', async () => {
    const expected = (await eventsBetween(start, last)).map((e) => e.id);
    const filtersUrl = streamUrl(node.url, 'events', { startLedger: String(start), filters: [] });
    const first = await stream(filtersUrl);
    const seen = (await first.take(3)).map((e) => e.id!);
    first.close(); // killed mid-stream
    // EventSource reconnects to the same URL (startLedger included) with the last id in the header
    const second = await stream(filtersUrl, seen[seen.length - 1]);
    seen.push(...(await second.take(expected.length - 3)).map((e) => e.id!));
    second.close();
    assert.deepEqual(seen, expected);
  });

  it('events: filters (URL-encoded JSON, as getEvents takes them) narrow the stream', async () => {
    const native = Asset.native().contractId('Standalone Network ; February 2017');
    const filters = [{ type: 'contract', contractIds: [native] }];
    const { result } = await node.rpc('getEvents', { startLedger: start, endLedger: last + 1, filters, pagination: { limit: 100 } });
    assert.ok(result.events.length >= 4);
    const sse = await stream(streamUrl(node.url, 'events', { startLedger: String(start), filters }));
    const got = await sse.take(result.events.length);
    sse.close();
    assert.deepEqual(got.map((e) => JSON.parse(e.data)), result.events);
  });

  it('transactions: one account\'s transactions in the getTransactions item shape, with TOIDs as ids', async () => {
    const { result } = await node.rpc('getTransactions', { startLedger: start, pagination: { limit: 200 } });
    const expected = result.transactions.filter((t: any) => aliceHashes.includes(t.txHash));
    assert.equal(expected.length, aliceHashes.length);
    const sse = await stream(streamUrl(node.url, 'transactions', { startLedger: String(start), account: alice.publicKey() }));
    const got = await sse.take(expected.length);
    sse.close();
    assert.deepEqual(got.map((e) => JSON.parse(e.data)), expected);
    assert.deepEqual(got.map((e) => e.event), Array(expected.length).fill('transactions'));
    // the id is getTransactions' cursor form: resuming from the second leaves the last two
    const resumed = await stream(streamUrl(node.url, 'transactions', { account: alice.publicKey() }), got[1].id);
    const rest = await resumed.take(2);
    resumed.close();
    assert.deepEqual(rest.map((e) => JSON.parse(e.data).txHash), aliceHashes.slice(2));
  });

  it('transaction: subscribed before sending, one event with the final getTransaction result, then the stream ends', async () => {
    const tx = (await builder(s, bob)).addOperation(Operation.payment({ destination: alice.publicKey(), asset: Asset.native(), amount: '2' })).build();
    tx.sign(bob);
    const hash = Buffer.from(tx.hash()).toString('hex');
    const url = streamUrl(node.url, 'transaction', { hash });
    const sse = await stream(url);
    const sent = await s.sendTransaction(tx);
    assert.equal(sent.status, 'PENDING');
    const [event] = await sse.take(1);
    assert.equal(event.event, 'transaction');
    const item = JSON.parse(event.data);
    assert.equal(item.status, 'SUCCESS');
    assert.equal(item.txHash, hash);
    const { result } = await node.rpc('getTransaction', { hash });
    assert.deepEqual(withoutRange(item), withoutRange(result));
    assert.equal(await sse.next(), undefined, 'the stream ends after the result');
    // an EventSource reconnecting after it is told to stop (204)
    const again = await openSse(url, { lastEventId: event.id });
    assert.equal(again.status, 204);
  });

  it('bad params: HTTP 400 with the JSON-RPC error, before any stream starts', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['nope', {}, /unknown subscription kind "nope"/],
      ['ledgers', { startLedger: 'abc' }, /startLedger/],
      ['ledgers', { startLedger: '1', cursor: '5' }, /startLedger and cursor/],
      ['ledgers', { startLedger: String(last + 1000) }, /ledger range/],
      ['ledgers', { startledger: '5' }, /unknown query parameter "startledger"/],
      ['events', { filters: '[{' }, /filters must be the JSON array/],
      ['events', { filters: [{ type: 'nope' }] }, /./],
      ['events', { filters: Array(6).fill({}) }, /./],
      ['transactions', { account: 'GNOTANACCOUNT' }, /account/],
      ['transaction', {}, /hash/],
      ['transaction', { hash: 'xyz' }, /hash/],
    ];
    for (const [kind, params, message] of cases) {
      const res = await openSse(streamUrl(node.url, kind, params));
      const what = `${kind} ${JSON.stringify(params)}`;
      assert.equal(res.status, 400, `${what}: ${res.body}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const body = JSON.parse(res.body!);
      assert.equal(body.code, -32602, what);
      assert.match(body.message, message, what);
    }
    // the node serves on
    const fine = await openSse(streamUrl(node.url, 'ledgers'));
    assert.equal(fine.status, 200);
    fine.stream!.close();
  });

  it('CORS for browsers\' EventSource, and the open streams in the metrics (transport="sse")', async () => {
    const opened = await openSse(streamUrl(node.url, 'ledgers'), { headers: { origin: 'https://app.example' } });
    assert.equal(opened.status, 200);
    assert.equal(opened.headers.get('access-control-allow-origin'), 'https://app.example');
    const metrics = await (await fetch(adminUrl)).text();
    const open = metrics.match(/^lumen_rpc_stream_connections\{transport="sse"\} (\d+)$/m);
    assert.ok(open !== null && Number(open[1]) >= 1, 'lumen_rpc_stream_connections{transport="sse"}');
    opened.stream!.close();
  });

  it('shutdown ends an open stream with a close event (1001), after which the client reconnects', async () => {
    const sse = await stream(streamUrl(node.url, 'ledgers'));
    await sse.take(1); // live
    const stopped = node.stop();
    let lastEvent: SseEvent | undefined;
    for (let e = await sse.next(); e !== undefined; e = await sse.next()) lastEvent = e;
    await stopped;
    assert.equal(lastEvent?.event, 'close');
    assert.deepEqual(JSON.parse(lastEvent.data), { code: 1001, reason: 'node shutting down' });
  });
});

describe('SSE streams and the connection limits', () => {
  let node: NodeProcess;
  before(async () => {
    node = await startNodeProcess({ args: ['--log-level', 'warn', '--max-connections', '2', '--max-websocket-connections', '3'] });
  });
  after(async () => { await node?.stop(); });

  it('streams leave the HTTP connections (JSON-RPC is still served) and are capped by their own limit', async () => {
    const streams: SseStream[] = [];
    for (let i = 0; i < 3; i++) streams.push(await stream(streamUrl(node.url, 'ledgers')));
    const refused = await openSse(streamUrl(node.url, 'ledgers'));
    assert.equal(refused.status, 503);
    assert.match(JSON.parse(refused.body!).message, /too many open streams \(limit 3\)/);
    assert.ok((await node.rpc('getLatestLedger')).result.sequence >= 1);
    for (const sse of streams) await sse.take(1); // all three are live
    streams.pop()!.close();
    // a closed stream frees its place (the server sees the close asynchronously: try until it has)
    let again = await openSse(streamUrl(node.url, 'ledgers'));
    while (again.status === 503) again = await openSse(streamUrl(node.url, 'ledgers'));
    assert.equal(again.status, 200);
    for (const sse of [...streams, again.stream!]) sse.close();
  });
});
