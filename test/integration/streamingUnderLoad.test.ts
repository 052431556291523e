// Streams under load and abuse (issue 31, items 2 and 3), against real node processes over real
// WebSocket and Server-Sent Events connections, with the node's defaults:
//  - a follower of 200 pubnet-sized (~1 MB) synthetic ledgers: an SSE client and a WebSocket client
//    reading at a fixed slow rate each replay them all, without being cut; a 16 MB getLedgers answer
//    reaches a WebSocket client that reads late, and the next request on its connection is answered;
//    200 connections that never read their replays keep the node under 1 GiB and are dropped, each
//    told where its subscription resumes;
//  - a standalone node: 300 connections of 100 unfiltered `events` subscriptions each, then a
//    ledger of 2,000 payments: the node stays up under 1 GiB, answers getHealth throughout, and the
//    subscribers it drops resume from the point they were given with no gap and no duplicate;
//  - one connection pipelining 20,000 subscribes while other clients keep being answered.
// Latencies are reported (t.diagnostic), never asserted: the machine is shared. They are measured
// from a process of their own (support/healthProbe.ts), not this one, busy with the connections.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { DatastoreWriter } from '../../src/sources/datastore/datastoreWriter.ts';
import { freePort, freshRpc, startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { startHealthProbe } from './support/healthProbe.ts';
import { describeProbes, latencySummary, rssSampler } from './support/processMemory.ts';
import { preparePayments, queuePayments } from './support/paymentLedger.ts';
import { StreamClient } from './support/streamClient.ts';
import { LedgerChain, SYNTHETIC_PASSPHRASE, emptyTemplate, sacTransfersTemplate } from '../support/sacLedgers.ts';

/** 1 GiB: what the node may hold at its peak, in MiB. */
const MEMORY_CEILING_MB = 1024;

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 240_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!await cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(name)) sum += Number(line.split(' ').pop());
  return sum;
}

/** A WebSocket client that reads `bytesPerSecond` at most (ws.pause between its allowances), keeping every message parsed. */
class SlowReader {
  readonly ws: WebSocket;
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private allowance = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(ws: WebSocket, bytesPerSecond: number) {
    this.ws = ws;
    ws.pause();
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data: Buffer) => {
      this.messages.push(JSON.parse(data.toString()));
      this.allowance -= data.length;
      if (this.allowance <= 0) ws.pause();
    });
    this.timer = setInterval(() => {
      this.allowance = Math.min(this.allowance + bytesPerSecond / 10, bytesPerSecond / 10);
      if (this.allowance > 0 && ws.isPaused) ws.resume();
    }, 100);
  }

  notifications(): any[] { return this.messages.filter((m) => m.method === 'subscription'); }
  stop(): void { clearInterval(this.timer); this.ws.terminate(); }
}

async function openWs(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), options);
  ws.on('error', () => { /* seen as close */ });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  return ws;
}

describe('streams of big ledgers make progress', () => {
  const BIG = 200;
  const dir = mkdtempSync(join(tmpdir(), 'lumen-stream-progress-'));
  const chain = new LedgerChain(2);
  let writer: DatastoreWriter;
  let node: NodeProcess;
  let metricsUrl: string;
  let first: number;
  let last: number;

  before(async () => {
    writer = new DatastoreWriter(dir, { networkPassphrase: SYNTHETIC_PASSPHRASE });
    const empty = emptyTemplate();
    for (let i = 0; i < 2; i++) { const l = chain.make(empty); writer.write({ sequence: l.sequence, bytes: l.bytes }); }
    // about a megabyte of meta each, as a busy pubnet ledger
    const big = sacTransfersTemplate(350);
    for (let i = 0; i < BIG; i++) {
      const l = chain.make(big);
      writer.write({ sequence: l.sequence, bytes: l.bytes });
      first ??= l.sequence;
      last = l.sequence;
    }
    const admin = await freePort();
    metricsUrl = `http://127.0.0.1:${admin}/metrics`;
    node = await startNodeProcess({
      args: ['--log-level', 'warn', '--datastore', dir, '--network-passphrase', SYNTHETIC_PASSPHRASE, '--datastore-poll-interval', '100ms', '--admin-endpoint', `127.0.0.1:${admin}`],
      readyTimeoutMs: 120_000,
    });
    await until('the big ledgers ingested', async () => (await node.rpc('getLatestLedger')).result?.sequence >= last);
  });

  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an SSE client and a WebSocket client reading at a fixed slow rate each replay every ledger to the end, never cut', async (t) => {
    const rate = 6_000_000; // bytes a second, each: a ledger's item is ~1.4 MB
    const ws = new SlowReader(await openWs(node.url), rate);
    ws.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { kind: 'ledgers', startLedger: first } }));
    ws.ws.resume();
    // SSE: one GET, read in chunks at the same rate
    const sseSequences: number[] = [];
    let sseConnections = 0;
    let sseClose: string | undefined;
    const sse = (async () => {
      sseConnections++;
      const res = await fetch(`${node.url}/stream/ledgers?startLedger=${first}`, { headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (sseSequences.at(-1) !== last) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          if (block.startsWith('event: close')) sseClose = block;
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data !== undefined && block.includes('event: ledgers')) sseSequences.push(JSON.parse(data).sequence);
        }
        await new Promise((r) => setTimeout(r, (value.length / rate) * 1000));
      }
      await reader.cancel();
    })();
    const started = Date.now();
    await until('the WebSocket client to get the last ledger', () => ws.notifications().at(-1)?.params.result.sequence === last, 280_000);
    await sse;
    t.diagnostic(`both replayed ${BIG} ledgers at ${rate / 1e6} MB/s each in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const expected = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    assert.deepEqual(ws.notifications().map((n) => n.params.result.sequence), expected, 'WebSocket: every ledger, in order, once');
    assert.deepEqual(sseSequences, expected, 'SSE: every ledger, in order, once');
    assert.equal(sseConnections, 1, 'SSE: one connection, never cut');
    assert.equal(sseClose, undefined);
    assert.equal(ws.ws.readyState, WebSocket.OPEN, 'WebSocket: never cut');
    ws.stop();
  });

  it('a 16 MB getLedgers answer reaches a WebSocket client that reads late, and the next request on the connection is answered', async () => {
    const ws = await openWs(node.url);
    const answers: any[] = [];
    let bytes = 0;
    ws.on('message', (data: Buffer) => { bytes = Math.max(bytes, data.length); answers.push(JSON.parse(data.toString())); });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    // both sent at once, then nothing read for a while: the first answer waits unread, far over the buffer limit
    ws.pause();
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLedgers', params: { startLedger: first, pagination: { limit: 12 } } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getLatestLedger' }));
    await new Promise((r) => setTimeout(r, 3000));
    ws.resume();
    await until('both answers', () => answers.length === 2 || ws.readyState !== WebSocket.OPEN, 120_000);
    assert.equal(ws.readyState, WebSocket.OPEN, `the connection stayed open (closed with ${await Promise.race([closed, 'open'])})`);
    // answered in any order (JSON-RPC over WebSocket: each when it is ready)
    const big = answers.find((a) => a.id === 1);
    const next = answers.find((a) => a.id === 2);
    assert.ok(big.result, JSON.stringify(big.error));
    assert.ok(bytes > 15_000_000, `a 16 MB answer (${bytes} bytes)`);
    assert.ok(big.result.ledgers.length >= 10);
    assert.equal(next.result.sequence, last);
    ws.terminate();
  });

  it('200 connections that never read their replays hold the node under 1 GiB and are dropped, each told where it resumes', async (t) => {
    const before = await metric(metricsUrl, 'lumen_rpc_stream_subscribers_dropped_total');
    const peak = rssSampler(node.child.pid!, 100);
    const clients: WebSocket[] = [];
    for (let i = 0; i < 200; i++) {
      const ws = await openWs(node.url);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { kind: 'ledgers', startLedger: first } }));
      ws.pause(); // reads nothing from now on
      clients.push(ws);
    }
    let heldPeak = 0;
    await until('every non-reader dropped', async () => {
      heldPeak = Math.max(heldPeak, await metric(metricsUrl, 'lumen_rpc_stream_held_bytes'));
      return (await metric(metricsUrl, 'lumen_rpc_stream_subscribers_dropped_total')) - before >= 200;
    }, 180_000);
    const peakMb = peak.stop();
    t.diagnostic(`peak RSS with 200 non-reading replays: ${peakMb.toFixed(0)} MiB; the most they held unread, as the node counts it: ${(heldPeak / 2 ** 20).toFixed(0)} MiB`);
    assert.ok(peakMb < MEMORY_CEILING_MB, `RSS ${peakMb.toFixed(0)} MiB`);
    // reading now: each gets what was handed to it, then (unless the node had to end it at once for
    // memory) its resume point and the close, 4001, once
    const outcomes = await Promise.all(clients.map((ws) => new Promise<{ code: number; last?: number; resume?: any; closes: number }>((resolve) => {
      let lastSeq: number | undefined;
      let resume: any;
      let closes = 0;
      ws.on('message', (data: Buffer) => {
        const m = JSON.parse(data.toString());
        if (m.params?.result?.sequence !== undefined) lastSeq = m.params.result.sequence;
        if (m.method === 'subscriptionDropped') resume = m.params.resume;
      });
      ws.on('close', (code) => { closes++; resolve({ code, last: lastSeq, resume, closes }); });
      ws.resume();
    })));
    const told = outcomes.filter((o) => o.code === 4001 || o.code === 1008);
    const codes = outcomes.reduce((m, o) => m.set(o.code, (m.get(o.code) ?? 0) + 1), new Map<number, number>());
    t.diagnostic(`closes as the clients read them: ${JSON.stringify(Object.fromEntries(codes))} (4001 too slow, or 1008 its pings unanswered first: with its resume point; 1006: ended unread, after the close grace or for memory)`);
    for (const o of outcomes) assert.ok([4001, 1008, 1006].includes(o.code), `closed with ${o.code}`);
    assert.ok(told.length > 0);
    for (const o of told) {
      assert.deepEqual(o.resume, o.last === undefined ? { startLedger: first } : { cursor: String(o.last) }, 'resumes after the last ledger it got');
    }
    await until('the node to hold nothing for them', async () => (await metric(metricsUrl, 'lumen_rpc_stream_held_bytes')) === 0, 60_000);
    // the node serves on: a new replay starts
    const c = await StreamClient.open(node.url);
    const sub = await c.subscribe({ kind: 'ledgers', startLedger: last });
    await c.waitFor('the last ledger', () => c.results(sub).length === 1);
    c.ws.terminate();
  });
});

describe('fan-out with a cost ceiling', () => {
  let node: NodeProcess;

  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'manual', '--log-level', 'warn'] });
  });
  after(async () => { await node?.stop(); });

  it('300 connections × 100 unfiltered events subscriptions, a ledger of 2,000 payments: the node stays up under 1 GiB and answers; dropped subscribers resume with no gap', async (t) => {
    const { payments } = await preparePayments(node, 2000);
    const start = (await freshRpc(node, 'getLatestLedger')).result.sequence;
    const CHECKED = 4;
    /** Per checked connection: every notification by subscription, the resume points, the close. */
    const checked: Array<{ ids: Map<string, string[]>; resume: Map<string, any>; close?: number }> = [];
    const connections: WebSocket[] = [];
    const closes = new Map<number, number>();
    for (let c = 0; c < 300; c++) {
      const ws = await openWs(node.url, c < CHECKED ? {} : { skipUTF8Validation: true });
      connections.push(ws);
      const subscribed = new Promise<void>((resolve) => ws.once('message', () => resolve()));
      ws.send(JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'subscribe', params: { kind: 'events' } }))));
      ws.once('close', (code) => closes.set(code, (closes.get(code) ?? 0) + 1));
      await subscribed;
      if (c < CHECKED) {
        const seen = { ids: new Map<string, string[]>(), resume: new Map<string, any>(), close: undefined as number | undefined };
        checked.push(seen);
        ws.on('message', (data: Buffer) => {
          const m = JSON.parse(data.toString());
          if (m.method === 'subscriptionDropped') seen.resume.set(m.params.subscription, m.params.resume);
          else if (m.method === 'subscription') {
            const { subscription, result } = m.params;
            let list = seen.ids.get(subscription);
            if (list === undefined) seen.ids.set(subscription, list = []);
            list.push(result.id);
          }
        });
        ws.once('close', (code) => { seen.close = code; });
      }
    }
    // cheap connections count their messages: one kept up once it has the ledger's every event 100 times
    const received = new Map<WebSocket, number>();
    for (const ws of connections.slice(CHECKED)) ws.on('message', () => received.set(ws, (received.get(ws) ?? 0) + 1));
    await queuePayments(node, payments);
    const peak = rssSampler(node.child.pid!, 100);
    const probe = startHealthProbe(node.url);
    const closed = await freshRpc(node, 'lumen_closeLedgers', { count: 1 });
    const ledger: number = closed.result.latestLedger;
    assert.equal(ledger, start + 1);
    // the ledger's events, as getEvents pages them
    const expected: string[] = [];
    let params: Record<string, unknown> = { startLedger: ledger, filters: [], pagination: { limit: 1000 } };
    for (;;) {
      const r = await freshRpc(node, 'getEvents', params);
      const page = r.result.events.filter((e: any) => e.ledger === ledger);
      expected.push(...page.map((e: any) => e.id));
      if (page.length < r.result.events.length || r.result.events.length < 1000) break;
      params = { filters: [], pagination: { cursor: r.result.cursor, limit: 1000 } };
    }
    assert.ok(expected.length >= 2 * 2000, `each payment's fee and transfer events (${expected.length})`);
    const keptUp = (c: number): boolean => (c < CHECKED
      ? [...checked[c].ids.values()].filter((ids) => ids.length === expected.length).length === 100
      : (received.get(connections[c]) ?? 0) >= 100 * expected.length);
    await until('every connection served or dropped', () => connections.every((ws, c) => ws.readyState !== WebSocket.OPEN || keptUp(c)), 240_000);
    assert.equal(node.child.exitCode, null, 'the node is up');
    assert.ok((closes.get(4001) ?? 0) > 0, 'over the ceilings, subscribers are dropped (4001)');
    assert.deepEqual([...closes.keys()].filter((code) => code !== 4001), [], 'dropped for being too slow, nothing else');

    // dropped checked subscriptions resume from the point they were given: what they got, then what
    // the resumed subscription gives, is every event of the ledger, once, in order
    const resumer = await StreamClient.open(node.url);
    let resumed = 0;
    for (const seen of checked) {
      const subs = [...seen.ids.keys(), ...seen.resume.keys()].filter((id, i, all) => all.indexOf(id) === i);
      if (seen.close === undefined) {
        for (const id of subs) assert.deepEqual(seen.ids.get(id), expected, 'a connection that kept up got every event');
        continue;
      }
      assert.equal(seen.close, 4001);
      assert.equal(seen.resume.size, 100, 'a resume point for each subscription');
      const ids = [...seen.resume.keys()];
      for (const id of [ids[0], ids[49], ids[99]]) {
        const got = seen.ids.get(id) ?? [];
        const resume = seen.resume.get(id);
        if (got.length > 0) assert.deepEqual(resume, { cursor: got.at(-1) }, 'the last id it was handed');
        else assert.equal(typeof resume.cursor, 'string', 'before the ledger: its start');
        const again = await resumer.subscribe({ kind: 'events', ...resume });
        await resumer.waitFor('the resumed subscription to reach the ledger\'s end', () => resumer.results(again).at(-1)?.id === expected.at(-1), 120_000);
        assert.deepEqual([...got, ...resumer.results(again).map((e) => e.id)], expected, 'no gap, no duplicate');
        resumed++;
      }
    }
    // the probe ran from the close of the ledger through the drops and the resumed replays
    const { latencies, failures } = await probe.stop();
    const peakMb = peak.stop();
    t.diagnostic(`closes: ${JSON.stringify(Object.fromEntries(closes))}; ${resumed} dropped subscriptions resumed with no gap; peak RSS ${peakMb.toFixed(0)} MiB; getHealth: ${describeProbes(latencySummary(latencies, failures.length))}`);
    // in manual mode no ledger closes by itself: past 30 s the reference's getHealth says the latest
    // ledger is old, which is an answer about the network, not the node's load
    assert.deepEqual(failures.filter((f) => !/since last known ledger closed is too high/.test(f)), [], 'getHealth answered throughout');
    assert.ok(peakMb < MEMORY_CEILING_MB, `RSS ${peakMb.toFixed(0)} MiB`);
    resumer.ws.terminate();
    for (const ws of connections) ws.terminate();
    assert.equal((await freshRpc(node, 'getHealth')).result?.status, 'healthy');
  });
});

describe('a subscribe flood', () => {
  let node: NodeProcess;
  before(async () => { node = await startNodeProcess({ args: ['--ledger-close-interval', '200ms', '--log-level', 'warn'] }); });
  after(async () => { await node?.stop(); });

  it('one connection pipelining 20,000 subscribes: other clients keep being answered', async (t) => {
    const flood = await openWs(node.url);
    const answers: any[] = [];
    flood.on('message', (data: Buffer) => { const m = JSON.parse(data.toString()); if (m.id !== undefined) answers.push(m); });
    const other = await StreamClient.open(node.url);
    const watched = await other.subscribe({ kind: 'ledgers' });
    const probe = startHealthProbe(node.url);
    const wsLatencies: number[] = [];
    let flooding = true;
    const wsProbe = (async () => {
      while (flooding) {
        const t0 = performance.now();
        const r = await other.call('getHealth');
        assert.equal(r.result?.status, 'healthy');
        wsLatencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const kinds = ['ledgers', 'events', 'transactions'];
    for (let i = 0; i < 20_000; i++) flood.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'subscribe', params: { kind: kinds[i % 3] } }));
    await until('every subscribe answered', () => answers.length === 20_000, 240_000);
    flooding = false;
    await wsProbe;
    const { latencies, failures } = await probe.stop();
    t.diagnostic(`during the flood: HTTP getHealth ${describeProbes(latencySummary(latencies, failures.length))}; WebSocket getHealth ${describeProbes(latencySummary(wsLatencies))}`);
    assert.deepEqual(failures, []);
    assert.equal(answers.filter((a) => typeof a.result === 'string').length, 100, 'the connection\'s 100 subscriptions');
    assert.ok(answers.filter((a) => a.error).every((a) => a.error.code === -32000 && /too many subscriptions \(limit 100\)/.test(a.error.message)));
    // the other client's ledgers kept coming, with no gap
    const had = other.results(watched).length;
    await other.waitFor('more ledgers', () => other.results(watched).length >= had + 3);
    const seqs = other.results(watched).map((l) => l.sequence);
    assert.deepEqual(seqs, seqs.map((_s, i) => seqs[0] + i));
    flood.terminate();
    other.ws.terminate();
  });
});
