// No ledger too big (issue 27): a follower of a SEP-54 datastore takes in the biggest ledgers the
// network has seen or plans, and serves them whole. Synthetic protocol-30 ledgers
// (test/support/sacLedgers.ts) arrive live, after streaming clients subscribed: (a) 6,000 SAC
// transfers (~18 MB of meta), (b) 4,100 contract `transfer` events from 100 transactions, (c) one
// transaction of 11,000 events. Each is ingested; streamed over WebSocket and Server-Sent Events
// (ledgers, transactions, events); and served by getEvents (every event, paged with cursors),
// getTransaction and getLedgers, in base64 and in json, within the default answer budget.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatastoreWriter } from '../../src/sources/datastore/datastoreWriter.ts';
import { freshRpc, startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { StreamClient } from './support/streamClient.ts';
import { openSse, streamUrl, type SseEvent, type SseStream } from './support/sse.ts';
import {
  LedgerChain, NATIVE_SAC, SYNTHETIC_PASSPHRASE, emptyTemplate, hugeTransactionTemplate, manyEventsTemplate,
  payerAddress, sacTransfersTemplate, type LedgerTemplate, type MadeLedger,
} from '../support/sacLedgers.ts';

const b64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

interface Case { template: LedgerTemplate; ledger?: MadeLedger }

/** Resolves once `cond` holds (looked at every 100 ms); fails after `ms`. */
async function until(what: string, cond: () => boolean, ms = 240_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function waitForLedger(node: NodeProcess, seq: number, ms = 240_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await freshRpc(node, 'getLatestLedger');
    if (r.result?.sequence >= seq) return;
    if (node.child.exitCode !== null || Date.now() > deadline) throw new Error(`ledger ${seq} not ingested; latest ${JSON.stringify(r)}\n${node.output().slice(-4000)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Every event of one ledger through getEvents, pages of `limit` chained by cursor. */
async function ledgerEvents(node: NodeProcess, ledger: number, limit: number, xdrFormat: 'base64' | 'json'): Promise<{ events: any[]; pages: number }> {
  const events: any[] = [];
  let pages = 0;
  let params: any = { startLedger: ledger, filters: [], pagination: { limit }, xdrFormat };
  for (;;) {
    const r = await freshRpc(node, 'getEvents', params);
    assert.ok(r.result, `getEvents page ${pages}: ${JSON.stringify(r.error)}`);
    pages++;
    const page: any[] = r.result.events;
    events.push(...page.filter((e) => e.ledger === ledger));
    if (page.length === 0 || page.at(-1).ledger > ledger) return { events, pages };
    params = { filters: [], pagination: { cursor: r.result.cursor, limit }, xdrFormat };
  }
}

describe('ledgers of any size are ingested, streamed and served', () => {
  const cases: Record<'a' | 'b' | 'c', Case> = {
    a: { template: sacTransfersTemplate(6000) },
    b: { template: manyEventsTemplate(100, 41) },
    c: { template: hugeTransactionTemplate(11_000) },
  };
  const dir = mkdtempSync(join(tmpdir(), 'lumen-big-ledgers-'));
  const chain = new LedgerChain(2);
  let node: NodeProcess;
  /** One connection per subscription, as separate consumers would have. */
  const ws: Record<string, StreamClient> = {};
  const subs: Record<string, string> = {};
  const results = (name: string): any[] => ws[name].results(subs[name]);
  let sseEvents: SseStream;
  let sseTaken: Promise<SseEvent[]>;
  let last: number;
  const wsClosed: Record<string, { code: number; reason: string }> = {};

  const totalEvents = (): number => Object.values(cases).reduce((n, c) => n + c.template.contractEvents, 0);
  const totalTransactions = (): number => Object.values(cases).reduce((n, c) => n + c.template.transactions, 0);

  before(async () => {
    const writer = new DatastoreWriter(dir, { networkPassphrase: SYNTHETIC_PASSPHRASE });
    const empty = emptyTemplate();
    for (let i = 0; i < 2; i++) { const l = chain.make(empty); writer.write({ sequence: l.sequence, bytes: l.bytes }); }
    node = await startNodeProcess({
      args: ['--log-level', 'warn', '--datastore', dir, '--network-passphrase', SYNTHETIC_PASSPHRASE, '--datastore-poll-interval', '100ms'],
      readyTimeoutMs: 60_000,
    });
    await waitForLedger(node, 3);
    // subscribed before the big ledgers exist: they are delivered live
    const subscribe = async (name: string, params: Record<string, unknown>): Promise<void> => {
      const c = await StreamClient.open(node.url);
      void c.closed.then((closed) => { wsClosed[name] = closed; });
      ws[name] = c;
      subs[name] = await c.subscribe(params);
    };
    await subscribe('ledgers', { kind: 'ledgers' });
    await subscribe('ledgersJson', { kind: 'ledgers', xdrFormat: 'json' });
    await subscribe('transactions', { kind: 'transactions' });
    await subscribe('events', { kind: 'events', filters: [] });
    await subscribe('eventsJson', { kind: 'events', filters: [{ type: 'contract', contractIds: [NATIVE_SAC] }], xdrFormat: 'json' });
    await subscribe('payer', { kind: 'transactions', account: payerAddress(20_000) });
    const sse = await openSse(streamUrl(node.url, 'events', { filters: [{ topics: [['AAAADwAAAAh0cmFuc2Zlcg==', '*', '*', '*']] }] }));
    assert.equal(sse.status, 200, sse.body);
    sseEvents = sse.stream!;
    // read as they come, as a subscriber that keeps up does (left unread for the tests before its
    // own, the stream would be dropped as too slow on a loaded machine)
    const wanted = Object.values(cases).reduce((n, c) => n + c.template.transferEvents, 0);
    sseTaken = sseEvents.take(wanted);
    sseTaken.catch(() => { /* reported by its test */ });
    // the subscriptions are live once the next ledger is delivered to them
    const l = chain.make(empty);
    writer.write({ sequence: l.sequence, bytes: l.bytes });
    await ws.ledgers.waitFor('the subscriptions live', () => results('ledgers').length === 1);
    for (const c of Object.values(cases)) {
      c.ledger = chain.make(c.template);
      writer.write({ sequence: c.ledger.sequence, bytes: c.ledger.bytes });
    }
    const tail = chain.make(empty);
    writer.write({ sequence: tail.sequence, bytes: tail.bytes });
    last = tail.sequence;
    await waitForLedger(node, last);
  });

  after(async () => {
    for (const c of Object.values(ws)) c.ws.terminate();
    sseEvents?.close();
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, c] of Object.entries(cases)) {
    describe(`case ${name}: ${c.template.name}`, () => {
      it('is streamed whole: the ledger, each transaction and each event, to subscribers that keep up', async () => {
        const l = c.ledger!;
        const t = c.template;
        await until('every stream to deliver the ledgers', () => Object.keys(wsClosed).length > 0 || (
          results('ledgers').some((x) => x.sequence === last) && results('ledgersJson').some((x) => x.sequence === last)
          && results('transactions').length >= totalTransactions() && results('payer').length > 0
          && results('events').length >= totalEvents() && results('eventsJson').length >= totalEvents()));
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(wsClosed, {}, 'every connection stayed open (never too slow, no failed subscription)');
        const streamed = results('ledgers').find((x) => x.sequence === l.sequence);
        assert.equal(streamed.metadataXdr, b64(l.bytes), 'the ledger streamed as stored, byte for byte');
        const json = results('ledgersJson').find((x) => x.sequence === l.sequence);
        assert.equal(json.metadataJson.v2.tx_processing.length, t.transactions);
        const txs = results('transactions').filter((x) => x.ledger === l.sequence);
        assert.deepEqual(txs.map((x) => x.txHash), l.txHashes, 'every transaction, in application order');
        const events = results('events').filter((e) => e.ledger === l.sequence);
        assert.equal(events.length, t.contractEvents);
        const sac = results('eventsJson').filter((e) => e.ledger === l.sequence);
        assert.equal(sac.length, t.contractEvents, 'every event is the native SAC\'s (transfers and fees)');
        assert.equal(sac.filter((e) => e.topicJson[0].symbol === 'transfer').length, t.transferEvents);
      });

      it('getEvents serves every event, paged with cursors, in base64 and json', async () => {
        const l = c.ledger!;
        const base64 = await ledgerEvents(node, l.sequence, 1000, 'base64');
        assert.equal(base64.events.length, c.template.contractEvents);
        assert.equal(new Set(base64.events.map((e) => e.id)).size, base64.events.length, 'no event twice');
        assert.deepEqual(base64.events.map((e) => e.id), [...base64.events.map((e) => e.id)].sort(), 'in id order');
        assert.deepEqual(new Set(base64.events.map((e) => e.txHash)), new Set(l.txHashes));
        const streamed = results('events').filter((e) => e.ledger === l.sequence);
        assert.deepEqual(streamed.map((e) => e.id), base64.events.map((e) => e.id), 'the stream gave the events getEvents gives');
        const json = await ledgerEvents(node, l.sequence, 10_000, 'json');
        assert.deepEqual(json.events.map((e) => e.id), base64.events.map((e) => e.id));
        assert.equal(json.events.filter((e) => e.topicJson[0].symbol === 'transfer').length, c.template.transferEvents);
      });

      it('getTransaction serves its transactions in base64 and json', async () => {
        const l = c.ledger!;
        const hashes = [...new Set([l.txHashes[0], l.txHashes[Math.floor(l.txHashes.length / 2)], l.txHashes.at(-1)!])];
        for (const hash of hashes) {
          const r = await freshRpc(node, 'getTransaction', { hash });
          assert.equal(r.result?.status, 'SUCCESS', JSON.stringify(r).slice(0, 500));
          assert.equal(r.result.ledger, l.sequence);
          assert.equal(r.result.events.contractEventsXdr[0].length, c.template.transferEvents / c.template.transactions);
          const j = await freshRpc(node, 'getTransaction', { hash, xdrFormat: 'json' });
          assert.equal(j.result?.status, 'SUCCESS', JSON.stringify(j).slice(0, 500));
          assert.equal(j.result.resultMetaJson.v4.operations[0].events.length, c.template.transferEvents / c.template.transactions);
          assert.equal(j.result.envelopeJson.tx.tx.seq_num, String((1n << 32n) + BigInt(l.sequence)));
        }
      });

      it('getLedgers serves it in base64 and json', async () => {
        const l = c.ledger!;
        const r = await freshRpc(node, 'getLedgers', { startLedger: l.sequence, pagination: { limit: 1 } });
        assert.ok(r.result, JSON.stringify(r.error));
        assert.equal(r.result.ledgers[0].hash, Buffer.from(l.hash).toString('hex'));
        assert.equal(r.result.ledgers[0].metadataXdr, b64(l.bytes));
        const j = await freshRpc(node, 'getLedgers', { startLedger: l.sequence, pagination: { limit: 1 }, xdrFormat: 'json' });
        assert.ok(j.result, JSON.stringify(j.error));
        assert.equal(j.result.ledgers[0].metadataJson.v2.tx_processing.length, c.template.transactions);
      });
    });
  }

  it('a transactions subscription for one account gets its transaction alone', () => {
    assert.deepEqual(results('payer').map((t) => t.txHash), cases.c.ledger!.txHashes);
  });

  it('Server-Sent Events deliver every transfer event of the three ledgers', async () => {
    const got = await sseTaken;
    const ledgers = new Set(got.map((e) => JSON.parse(e.data).ledger));
    assert.deepEqual([...ledgers], Object.values(cases).map((c) => c.ledger!.sequence));
  });
});
