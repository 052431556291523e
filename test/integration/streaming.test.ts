// Streaming (issue 15) against real node processes, with the `ws` package as the client: every
// subscription kind on the standalone network and on a follower, replay equal to paging the
// methods over the same range, resuming after a client was killed, the slow-client rule, bad
// input, and that the node keeps answering after each of them. No timing assertions: waits are for
// conditions (with a generous deadline that only turns a hang into a failure).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Asset, Keypair, Operation, StrKey, rpc } from '@stellar/stellar-sdk';
import { freePort, startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder, funded, server, submit } from './support/sdk.ts';
import { StreamClient } from './support/streamClient.ts';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';

/** Pays `amount` XLM from `from` to `to` and waits until it is stored; returns its hash and ledger. */
async function pay(s: rpc.Server, from: Keypair, to: string, amount = '1'): Promise<{ hash: string; ledger: number }> {
  const tx = (await builder(s, from)).addOperation(Operation.payment({ destination: to, asset: Asset.native(), amount })).build();
  tx.sign(from);
  const { sent, done } = await submit(s, tx);
  assert.equal(done.status, 'SUCCESS');
  return { hash: sent.hash, ledger: done.ledger };
}

/** getEvents paged with cursors from `startLedger` to the end, as a polling client would. */
async function allEvents(node: NodeProcess, startLedger: number, filters: unknown[] = []): Promise<any[]> {
  const events: any[] = [];
  let res = await node.rpc('getEvents', { startLedger, filters, pagination: { limit: 100 } });
  for (;;) {
    assert.ok(res.result, JSON.stringify(res.error));
    events.push(...res.result.events);
    if (res.result.events.length < 100) return events;
    res = await node.rpc('getEvents', { filters, pagination: { cursor: res.result.cursor, limit: 100 } });
  }
}

async function healthy(node: NodeProcess): Promise<void> {
  const h = await node.rpc('getHealth');
  assert.equal(h.result?.status, 'healthy', JSON.stringify(h));
  const c = await StreamClient.open(node.url);
  const w = await c.call('getHealth');
  assert.equal(w.result?.status, 'healthy');
  c.close();
}

const ids = (items: any[]): string[] => items.map((i) => i.id);

describe('streaming on the standalone network', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let alice: Keypair;
  let bob: Keypair;
  let start: number;
  const clients: StreamClient[] = [];
  const open = async (): Promise<StreamClient> => { const c = await StreamClient.open(node.url); clients.push(c); return c; };

  before(async () => {
    node = await startNodeProcess({ args: ['--ledger-close-interval', '100ms', '--log-level', 'warn'] });
    s = server(node.url);
    start = (await s.getLatestLedger()).sequence;
    alice = await funded(s);
    bob = await funded(s);
    for (let i = 0; i < 3; i++) await pay(s, alice, bob.publicKey());
  });
  after(async () => {
    for (const c of clients) c.ws.terminate();
    await node?.stop();
  });

  it('ledgers: replay from startLedger, then live, consecutive, each as getLedgers gives it', async () => {
    const c = await open();
    const from = (await s.getLatestLedger()).sequence - 5;
    const sub = await c.subscribe({ kind: 'ledgers', startLedger: from });
    const liveFrom = (await s.getLatestLedger()).sequence + 3;
    await c.waitFor('live ledgers', () => c.results(sub).some((l) => l.sequence >= liveFrom));
    const got = c.results(sub);
    assert.deepEqual(got.map((l) => l.sequence), got.map((_l, i) => from + i), 'consecutive from startLedger, no gap, no duplicate');
    assert.deepEqual(ids(c.items.get(sub)!.map((n) => ({ id: String(n.result.sequence) }))), got.map((l) => String(l.sequence)));
    const page = await node.rpc('getLedgers', { startLedger: from, pagination: { limit: 3 } });
    assert.deepEqual(got.slice(0, 3), page.result.ledgers);
    assert.ok(c.items.get(sub)!.every((n) => n.kind === 'ledgers' && n.subscription === sub));
  });

  it('events: a subscription from a past ledger equals paging getEvents over the range, then live ones', async () => {
    const c = await open();
    const native = Asset.native().contractId(PASSPHRASE);
    const filtered = [{ type: 'contract', contractIds: [native], topics: [['AAAADwAAAAh0cmFuc2Zlcg==', '*', '*', '**']] }];
    const all = await c.subscribe({ kind: 'events', startLedger: start });
    const transfers = await c.subscribe({ kind: 'events', startLedger: start, filters: filtered });
    // live ones, made after the subscriptions
    const last = await pay(s, bob, alice.publicKey(), '2');
    await pay(s, alice, bob.publicKey(), '3');
    const final = await pay(s, alice, bob.publicKey(), '4');
    await c.waitFor('the last payment\'s events', () => c.results(all).some((e) => e.txHash === final.hash)
      && c.results(transfers).some((e) => e.txHash === final.hash));
    for (const [sub, filters] of [[all, []], [transfers, filtered]] as const) {
      const expected = (await allEvents(node, start, filters as unknown[])).filter((e) => e.ledger <= final.ledger);
      const got = c.results(sub).filter((e) => e.ledger <= final.ledger);
      assert.deepEqual(ids(got), ids(expected), 'same ids, same order');
      assert.deepEqual(got, expected, 'same events');
      assert.ok(got.some((e) => e.txHash === last.hash), 'live events included');
    }
    assert.ok(c.results(transfers).length < c.results(all).length, 'the filter filters');
  });

  it('events: a client killed mid-stream and reconnected with its last id sees every event exactly once', async () => {
    for (let i = 0; i < 4; i++) await pay(s, alice, bob.publicKey());
    const first = await open();
    const sub = await first.subscribe({ kind: 'events', startLedger: start });
    await first.waitFor('some events', () => first.results(sub).length >= 5);
    first.recording = false; // killed: nothing after this point is seen
    first.ws.terminate();
    const seen = first.results(sub);
    const lastId = seen[seen.length - 1].id;
    const second = await open();
    const resumed = await second.subscribe({ kind: 'events', cursor: lastId });
    const final = await pay(s, bob, alice.publicKey());
    await second.waitFor('the last payment\'s events', () => second.results(resumed).some((e) => e.txHash === final.hash));
    const union = [...seen, ...second.results(resumed)].filter((e) => e.ledger <= final.ledger);
    const expected = (await allEvents(node, start)).filter((e) => e.ledger <= final.ledger);
    assert.deepEqual(ids(union), ids(expected));
  });

  it('transactions: every one, or an account\'s (source, fee-bump fee source, operation source; M... as its G)', async () => {
    const c = await open();
    const carol = await funded(s);
    const muxed = StrKey.encodeMed25519PublicKey(Buffer.concat([carol.rawPublicKey(), Buffer.from([0, 0, 0, 0, 0, 0, 0, 7])]));
    const every = await c.subscribe({ kind: 'transactions' });
    const bySource = await c.subscribe({ kind: 'transactions', account: carol.publicKey() });
    const byMuxed = await c.subscribe({ kind: 'transactions', account: muxed });
    const byAlice = await c.subscribe({ kind: 'transactions', account: alice.publicKey() });
    const fromCarol = await pay(s, carol, bob.publicKey());
    const fromBob = await pay(s, bob, alice.publicKey()); // alice only receives: not involved
    // carol as an operation's source in alice's transaction
    const tx = (await builder(s, alice)).addOperation(Operation.payment({ source: carol.publicKey(), destination: bob.publicKey(), asset: Asset.native(), amount: '1' })).build();
    tx.sign(alice, carol);
    const { sent: opSource } = await submit(s, tx);
    // a fee bump paid by alice around bob's transaction
    const inner = (await builder(s, bob)).addOperation(Operation.payment({ destination: carol.publicKey(), asset: Asset.native(), amount: '1' })).build();
    inner.sign(bob);
    const bump = (await import('@stellar/stellar-sdk')).TransactionBuilder.buildFeeBumpTransaction(alice, '200', inner, PASSPHRASE);
    bump.sign(alice);
    const { sent: bumped } = await submit(s, bump);
    await c.waitFor('the fee bump', () => c.results(every).some((t) => t.txHash === bumped.hash));
    const hashes = (sub: string) => c.results(sub).map((t) => t.txHash);
    assert.deepEqual(hashes(every).slice(-4), [fromCarol.hash, fromBob.hash, opSource.hash, bumped.hash]);
    assert.deepEqual(hashes(bySource), [fromCarol.hash, opSource.hash]);
    assert.deepEqual(hashes(byMuxed), hashes(bySource));
    assert.deepEqual(hashes(byAlice), [opSource.hash, bumped.hash]);
    const page = await node.rpc('getTransactions', { startLedger: fromCarol.ledger, pagination: { limit: 1 } });
    const item = c.results(every).find((t) => t.txHash === page.result.transactions[0].txHash);
    assert.deepEqual(item, page.result.transactions[0], 'the getTransactions item shape');
    const n = c.items.get(every)!.find((x) => x.result.txHash === fromCarol.hash)!;
    assert.equal(c.frames.find((f) => f.params?.result?.txHash === fromCarol.hash && f.params.subscription === every)?.params.kind, 'transactions');
    assert.ok(n);
  });

  it('transaction: subscribed before sendTransaction, it delivers the final result as getTransaction, then ends', async () => {
    const c = await open();
    const tx = (await builder(s, alice)).addOperation(Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '1' })).build();
    tx.sign(alice);
    const hash = Buffer.from(tx.hash()).toString('hex');
    const sub = await c.subscribe({ kind: 'transaction', hash });
    const sent = await s.sendTransaction(tx);
    assert.equal(sent.status, 'PENDING');
    await c.waitFor('the transaction', () => c.results(sub).length > 0);
    const note = c.items.get(sub)![0];
    assert.equal(note.final, true);
    assert.equal(note.result.status, 'SUCCESS');
    const polled = await node.rpc('getTransaction', { hash });
    for (const k of ['status', 'txHash', 'ledger', 'envelopeXdr', 'resultXdr', 'resultMetaXdr', 'applicationOrder', 'createdAt']) {
      assert.deepEqual(note.result[k], polled.result[k], k);
    }
    // it ended: unsubscribing finds nothing; a stored transaction is announced at once
    assert.equal((await c.call('unsubscribe', { id: sub })).result, false);
    const again = await c.subscribe({ kind: 'transaction', hash });
    await c.waitFor('the stored transaction', () => c.results(again).length > 0);
    assert.equal(c.results(again)[0].ledger, polled.result.ledger);
  });

  it('unsubscribe ends a subscription', async () => {
    const c = await open();
    const sub = await c.subscribe({ kind: 'ledgers' });
    await c.waitFor('a ledger', () => c.results(sub).length > 0);
    assert.equal((await c.call('unsubscribe', { id: sub })).result, true);
    const had = c.results(sub).length;
    const other = await c.subscribe({ kind: 'ledgers' });
    await c.waitFor('ledgers on another subscription', () => c.results(other).length >= 3);
    assert.ok(c.results(sub).length <= had + 1, 'at most one already on its way');
  });
});

describe('streaming: a client that reads nothing', () => {
  let node: NodeProcess;
  let metricsUrl: string;
  before(async () => {
    const admin = await freePort();
    metricsUrl = `http://127.0.0.1:${admin}/metrics`;
    node = await startNodeProcess({ args: [
      '--ledger-close-interval', '50ms', '--log-level', 'warn', '--max-stream-buffer-bytes', '65536', '--max-stream-lag', '1s', '--admin-endpoint', `127.0.0.1:${admin}`,
    ] });
  });
  after(async () => { await node?.stop(); });

  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(metricsUrl)).text();
    const line = text.split('\n').find((l) => l.startsWith(name));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  };

  it('is closed with 4001 while another client keeps receiving', async () => {
    const slow = await StreamClient.open(node.url);
    const fine = await StreamClient.open(node.url);
    try {
      const watched = await fine.subscribe({ kind: 'ledgers' });
      // many JSON ledgers per ledger close: far more than the socket buffers hold
      for (let i = 0; i < 50; i++) await slow.subscribe({ kind: 'ledgers', xdrFormat: 'json' });
      (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      await waitFor('the slow client to be dropped', async () => (await metric('lumen_rpc_stream_subscribers_dropped_total{reason="slow"}')) >= 1);
      const had = fine.results(watched).length;
      await fine.waitFor('more ledgers for the other client', () => fine.results(watched).length >= had + 5);
      const seqs = fine.results(watched).map((l) => l.sequence);
      assert.deepEqual(seqs, seqs.map((_x, i) => seqs[0] + i), 'the other client missed nothing');
      (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
      const closed = await slow.closed;
      assert.equal(closed.code, 4001);
      assert.match(closed.reason, /too slow: over 65536 bytes unsent; resume from your last id/);
      await healthy(node);
    } finally {
      slow.ws.terminate();
      fine.ws.terminate();
    }
  });
});

describe('streaming: bad input', () => {
  let node: NodeProcess;
  before(async () => {
    node = await startNodeProcess({ args: [
      '--ledger-close-interval', '200ms', '--log-level', 'warn', '--max-subscriptions-per-connection', '2',
      '--max-request-body-bytes', '10000', '--max-websocket-connections', '3',
    ] });
  });
  after(async () => { await node?.stop(); });

  it('malformed subscribe params, unknown kinds, starts outside the store: -32602; the node keeps serving', async () => {
    const c = await StreamClient.open(node.url);
    try {
      const cases: unknown[] = [
        { kind: 'blocks' }, {}, { kind: 'ledgers', startLedger: 'x' }, { kind: 'ledgers', startLedger: 1, cursor: '1' },
        { kind: 'ledgers', startLedger: 100_000_000 }, { kind: 'events', filters: [{ type: 'nope' }] },
        { kind: 'events', filters: [{ contractIds: ['C123'] }] }, { kind: 'events', cursor: 'bad' },
        { kind: 'transactions', account: 'GABC' }, { kind: 'transaction' }, { kind: 'transaction', hash: 'zz' }, { kind: 'ledgers', extra: 1 },
      ];
      for (const params of cases) {
        const answer = await c.call('subscribe', params);
        assert.equal(answer.error?.code, -32602, JSON.stringify(params));
        assert.ok(answer.error.message.length > 0);
      }
      const positional = await c.call('subscribe', ['ledgers']);
      assert.equal(positional.error?.code, -32602);
      await healthy(node);
    } finally { c.ws.terminate(); }
  });

  it('too many subscriptions: -32000 with the limit', async () => {
    const c = await StreamClient.open(node.url);
    try {
      await c.subscribe({ kind: 'ledgers' });
      await c.subscribe({ kind: 'events' });
      const third = await c.call('subscribe', { kind: 'ledgers' });
      assert.equal(third.error?.code, -32000);
      assert.equal(third.error.message, 'too many subscriptions (limit 2)');
      await healthy(node);
    } finally { c.ws.terminate(); }
  });

  it('a binary frame closes with 1003, an oversized frame with 1009', async () => {
    const binary = await StreamClient.open(node.url);
    binary.ws.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"getHealth"}'), { binary: true });
    assert.equal((await binary.closed).code, 1003);
    const big = await StreamClient.open(node.url);
    big.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth', params: { pad: 'x'.repeat(20_000) } }));
    assert.equal((await big.closed).code, 1009);
    await healthy(node);
  });

  it('text that is not JSON gets -32700; batches and every normal method work', async () => {
    const c = await StreamClient.open(node.url);
    try {
      const parse = new Promise<any>((resolve) => c.ws.once('message', (d) => resolve(JSON.parse(d.toString()))));
      c.ws.send('{not json');
      assert.equal((await parse).error?.code, -32700);
      const id = 77;
      const batch = new Promise<any>((resolve) => c.ws.on('message', (d) => { const m = JSON.parse(d.toString()); if (Array.isArray(m)) resolve(m); }));
      c.ws.send(JSON.stringify([{ jsonrpc: '2.0', id, method: 'getLatestLedger' }, { jsonrpc: '2.0', id: id + 1, method: 'getNetwork' }]));
      const answers = await batch;
      assert.deepEqual(answers.map((a: any) => a.id), [id, id + 1]);
      assert.ok(answers[0].result.sequence > 0);
      assert.equal(answers[1].result.passphrase, PASSPHRASE);
    } finally { c.ws.terminate(); }
  });

  it('a batch with subscribe: its answer (with the id) comes before the subscription\'s first item', async () => {
    const c = await StreamClient.open(node.url);
    try {
      const batch = new Promise<any>((resolve) => c.ws.on('message', (d) => { const m = JSON.parse(d.toString()); if (Array.isArray(m)) resolve(m); }));
      // the slower call (JSON rendered on the workers) holds the batch's answer back
      c.ws.send(JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'subscribe', params: { kind: 'ledgers', startLedger: 1 } },
        { jsonrpc: '2.0', id: 2, method: 'getLedgers', params: { startLedger: 1, pagination: { limit: 50 }, xdrFormat: 'json' } },
      ]));
      const answers = await batch;
      const sub = answers[0].result;
      assert.equal(typeof sub, 'string');
      await c.waitFor('its first items', () => c.results(sub).length >= 3);
      const answerAt = c.frames.findIndex((f) => Array.isArray(f));
      const firstItemAt = c.frames.findIndex((f) => f.params?.subscription === sub);
      assert.ok(answerAt < firstItemAt, `answer at frame ${answerAt}, first item at ${firstItemAt}`);
      assert.equal(c.results(sub)[0].sequence, 1);
    } finally { c.ws.terminate(); }
  });

  it('subscribe over HTTP POST: -32601', async () => {
    const answer = await node.rpc('subscribe', { kind: 'ledgers' });
    assert.equal(answer.error?.code, -32601);
    assert.match(answer.error.message, /WebSocket/);
    assert.equal((await node.rpc('unsubscribe', { id: 'x' })).error?.code, -32601);
    await healthy(node);
  });

  it('an Upgrade on another path is refused with 404, over the connection limit with 503', async () => {
    await assert.rejects(StreamClient.open(node.url, '/friendbot'), /HTTP 404/);
    const held = [await StreamClient.open(node.url), await StreamClient.open(node.url), await StreamClient.open(node.url)];
    try {
      await assert.rejects(StreamClient.open(node.url), /HTTP 503/);
    } finally {
      for (const c of held) c.ws.terminate();
    }
    await waitFor('the connections to close', async () => {
      try { (await StreamClient.open(node.url)).ws.terminate(); return true; } catch { return false; }
    });
    const h = await node.rpc('getHealth');
    assert.equal(h.result?.status, 'healthy');
  });

  it('shutdown closes streaming connections with 1001', async () => {
    const c = await StreamClient.open(node.url);
    await c.subscribe({ kind: 'ledgers' });
    await node.stop();
    assert.equal((await c.closed).code, 1001);
  });
});

describe('streaming: heartbeat', () => {
  it('a connection that does not answer pings is closed with 1008; one that does stays', async () => {
    const node = await startNodeProcess({ args: ['--ledger-close-interval', '100ms', '--log-level', 'warn', '--websocket-ping-interval', '200ms'] });
    const mute = await StreamClient.open(node.url, '/', { autoPong: false });
    const fine = await StreamClient.open(node.url);
    try {
      const sub = await fine.subscribe({ kind: 'ledgers' });
      const closed = await mute.closed;
      assert.equal(closed.code, 1008);
      const had = fine.results(sub).length;
      await fine.waitFor('ledgers after the mute one was closed', () => fine.results(sub).length >= had + 5);
      assert.equal(fine.ws.readyState, fine.ws.OPEN);
    } finally {
      mute.ws.terminate();
      fine.ws.terminate();
      await node.stop();
    }
  });
});

describe('streaming on a follower (two instances)', () => {
  it('every kind on B (ledgers, events, transactions, and a transaction sent through B) delivers what A produced, after B stored it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lumen-stream-two-'));
    const a = await startA(dir);
    let b: NodeProcess | undefined;
    let c: StreamClient | undefined;
    try {
      await waitFor('A to publish its first checkpoint', async () => (await latest(a)) > CHECKPOINT + 1);
      b = await startB(dir, a);
      await waitFor('B to catch up with A', async () => (await latest(b!)) >= (await latest(a)) - 2);
      const sa = server(a.url);
      c = await StreamClient.open(b.url);
      const from = await latest(b);
      const ledgers = await c.subscribe({ kind: 'ledgers' });
      const events = await c.subscribe({ kind: 'events', startLedger: from });
      // each announced ledger must already be readable on B
      const unreadable: number[] = [];
      const checks: Promise<void>[] = [];
      c.ws.on('message', (d) => {
        const m = JSON.parse(d.toString());
        if (m.params?.subscription !== ledgers) return;
        const seq = m.params.result.sequence;
        checks.push(b!.rpc('getLedgers', { startLedger: seq, pagination: { limit: 1 } }).then((r) => {
          if (r.result?.ledgers?.[0]?.sequence !== seq) unreadable.push(seq);
        }));
      });
      const alice = await funded(sa);
      const bob = await funded(sa);
      // the other two kinds on B: alice's transactions, and one transaction subscribed before B sends it
      const alices = await c.subscribe({ kind: 'transactions', account: alice.publicKey() });
      const tx = (await builder(sa, alice)).addOperation(Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '1' })).build();
      tx.sign(alice);
      const hash = Buffer.from(tx.hash()).toString('hex');
      const one = await c.subscribe({ kind: 'transaction', hash });
      const sent = await server(b.url).sendTransaction(tx);
      assert.equal(sent.status, 'PENDING', JSON.stringify(sent));
      await c.waitFor('the transaction\'s final notification on B', () => c!.results(one).length > 0);
      const final = c.results(one)[0];
      const onB = await b.rpc('getTransaction', { hash });
      assert.equal(final.status, 'SUCCESS');
      // B may store another ledger between the two: the answer's "latest" fields describe that moment
      const { latestLedger: finalLatest, latestLedgerCloseTime: _f, ...finalRest } = final;
      const { latestLedger: answerLatest, latestLedgerCloseTime: _a, ...answerRest } = onB.result;
      assert.deepEqual(finalRest, answerRest, 'the notification is B\'s getTransaction answer');
      assert.ok(final.ledger <= finalLatest && finalLatest <= answerLatest, `latest ledgers ${finalLatest} then ${answerLatest}, the transaction's ${final.ledger}`);
      const paid = { hash, ledger: final.ledger as number };
      await c.waitFor('alice\'s transaction on B', () => c!.results(alices).some((t) => t.txHash === hash));
      assert.deepEqual(c.results(alices).map((t) => t.txHash), [hash], 'only alice\'s transaction since subscribing');
      const listed = await b.rpc('getTransactions', { startLedger: paid.ledger, pagination: { limit: 200 } });
      assert.deepEqual(c.results(alices)[0], listed.result.transactions.find((t: any) => t.txHash === hash), 'a getTransactions item');
      await c.waitFor('the payment\'s events on B', () => c!.results(events).some((e) => e.txHash === paid.hash));
      await c.waitFor('B\'s ledgers past the payment', () => c!.results(ledgers).some((l) => l.sequence >= paid.ledger));
      await Promise.all(checks);
      assert.deepEqual(unreadable, [], 'every announced ledger was readable on B');
      const seqs = c.results(ledgers).map((l) => l.sequence);
      assert.deepEqual(seqs, seqs.map((_x, i) => seqs[0] + i), 'consecutive');
      const onA = await a.rpc('getLedgers', { startLedger: seqs[0], pagination: { limit: 1 } });
      assert.equal(c.results(ledgers)[0].hash, onA.result.ledgers[0].hash, 'A\'s ledger');
      const expected = (await allEvents(b, from)).filter((e) => e.ledger <= paid.ledger);
      assert.deepEqual(ids(c.results(events).filter((e) => e.ledger <= paid.ledger)), ids(expected));
      assert.ok(expected.some((e) => e.txHash === paid.hash));
    } finally {
      c?.ws.terminate();
      await b?.stop();
      await a.stop();
    }
  });
});
