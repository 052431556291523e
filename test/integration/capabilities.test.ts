// Capability discovery over real HTTP and WebSocket (stellar-rpc#995): getVersionInfo's `methods`
// equals the names rpc.discover documents for the same node and connection (a standalone network: the
// developer methods too; with --dev-methods=false or following a network: none of them; a WebSocket:
// subscribe/unsubscribe too), every name listed is served and the ones left out are refused; `limits`
// are the node's configuration (non-default flags show) and are what it enforces. The official JS
// SDK's rpc.Server.getVersionInfo() still reads the answer.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_PROTOCOL, freshRequest, startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { StreamClient } from './support/streamClient.ts';
import { startA, startB } from './support/twoNodes.ts';
import { server } from './support/sdk.ts';
import { defaultConfig } from '../../src/config/config.ts';
import { DEFAULT_MAX_BATCH_SIZE } from '../../src/rpc/jsonrpc.ts';
import { MAX_JSON_DEPTH } from '../../src/rpc/limits.ts';
import { MAX_LEDGER_ENTRY_KEYS } from '../../src/rpc/methods/getLedgerEntries.ts';

/** The reference's twelve methods (stellar-rpc v28 `jsonrpc.go`). */
const REFERENCE_METHODS = [
  'getHealth', 'getEvents', 'getNetwork', 'getVersionInfo', 'getLatestLedger', 'getLedgers', 'getLedgerEntries',
  'getTransaction', 'getTransactions', 'sendTransaction', 'simulateTransaction', 'getFeeStats',
];

const discoveredNames = (doc: { methods: Array<{ name: string }> }): string[] => doc.methods.map((m) => m.name);

/** getVersionInfo's methods and rpc.discover's names, over HTTP POST. */
async function overHttp(node: NodeProcess): Promise<{ info: any; discovered: string[] }> {
  const info = (await node.rpc('getVersionInfo')).result;
  return { info, discovered: discoveredNames((await node.rpc('rpc.discover')).result) };
}

/** Every listed method is registered: params by position are refused (-32602) before any work, as only a served method can be. */
async function assertServed(node: NodeProcess, listed: readonly string[]): Promise<void> {
  const body = listed.map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] }));
  const answers = JSON.parse((await freshRequest(node.url, JSON.stringify(body))).text) as any[];
  const codes = Object.fromEntries(answers.map((a) => [listed[a.id], a.error?.code]));
  assert.deepEqual(codes, Object.fromEntries(listed.map((m) => [m, -32602])));
}

/** lumen_ methods that change nothing: served on every node, developer methods or not. */
const READ_ONLY_LUMEN = ['lumen_resourceReport', 'lumen_traceTransaction'];

describe('getVersionInfo: methods and limits, over HTTP and WebSocket', () => {
  let standalone: NodeProcess;
  let configured: NodeProcess;
  before(async () => {
    [standalone, configured] = await Promise.all([
      startNodeProcess({ args: ['--log-level', 'warn'] }),
      startNodeProcess({
        args: [
          '--log-level', 'warn', '--dev-methods', 'false',
          '--max-events-limit', '321', '--default-events-limit', '7', '--max-ledgers-limit', '33',
          '--max-request-body-bytes', '65536', '--max-response-body-bytes', '0',
          '--max-subscriptions-per-connection', '2', '--max-get-events-execution-duration', '4s',
          '--preflight-worker-count', '2', '--preflight-worker-queue-size', '3',
        ],
      }),
    ]);
  });
  after(async () => { await Promise.all([standalone?.stop(), configured?.stop()]); });

  it('a standalone network: the reference\'s methods, ours and the developer ones, as rpc.discover lists them', async () => {
    const { info, discovered } = await overHttp(standalone);
    assert.deepEqual(info.methods, discovered);
    for (const m of [...REFERENCE_METHODS, 'queryEvents', 'rpc.discover', 'lumen_closeLedgers', 'lumen_snapshot', 'lumen_dumpState']) {
      assert.ok(info.methods.includes(m), `${m} is listed`);
    }
    assert.ok(!info.methods.includes('subscribe') && !info.methods.includes('unsubscribe'), 'WebSocket-only methods are not listed over HTTP');
    await assertServed(standalone, info.methods);
    // what is not listed is not served here
    const subscribe = await standalone.rpc('subscribe', { kind: 'ledgers' });
    assert.equal(subscribe.error.code, -32601);
  });

  it('over a WebSocket: subscribe and unsubscribe too, again as rpc.discover lists them there', async () => {
    const ws = await StreamClient.open(standalone.url);
    try {
      const info = (await ws.call('getVersionInfo')).result;
      const discovered = discoveredNames((await ws.call('rpc.discover')).result);
      assert.deepEqual(info.methods, discovered);
      const overPost = (await standalone.rpc('getVersionInfo')).result.methods as string[];
      assert.deepEqual(info.methods.filter((m: string) => m !== 'subscribe' && m !== 'unsubscribe'), overPost);
      assert.ok(info.methods.includes('subscribe') && info.methods.includes('unsubscribe'));
      const id = await ws.subscribe({ kind: 'ledgers' });
      assert.equal((await ws.call('unsubscribe', { id })).result, true);
    } finally {
      ws.ws.close();
    }
  });

  it('a standalone network with the default limits: the configuration\'s defaults', async () => {
    const { limits } = (await standalone.rpc('getVersionInfo')).result;
    assert.deepEqual(limits.request, {
      maxBodyBytes: defaultConfig.maxRequestBodyBytes, maxBatchSize: DEFAULT_MAX_BATCH_SIZE, maxJsonDepth: MAX_JSON_DEPTH,
      maxResponseBodyBytes: defaultConfig.maxResponseBodyBytes, maxDurationSeconds: defaultConfig.maxRequestExecutionDuration,
    });
    assert.deepEqual([limits.getEvents.defaultLimit, limits.getEvents.maxLimit], [defaultConfig.defaultEventsLimit, defaultConfig.maxEventsLimit]);
    assert.deepEqual(limits.getLedgers, { defaultLimit: defaultConfig.defaultLedgersLimit, maxLimit: defaultConfig.maxLedgersLimit });
    assert.deepEqual(limits.getTransactions, { defaultLimit: defaultConfig.defaultTransactionsLimit, maxLimit: defaultConfig.maxTransactionsLimit });
    assert.deepEqual(limits.getLedgerEntries, { maxKeys: MAX_LEDGER_ENTRY_KEYS });
    assert.equal(limits.streaming.maxSubscriptionsPerConnection, defaultConfig.maxSubscriptionsPerConnection);
    assert.equal(limits.maxDurationSeconds.getEvents, defaultConfig.methodMaxDurations.getEvents);
    assert.equal(limits.maxDurationSeconds.lumen_closeLedgers, defaultConfig.methodMaxDurations.lumen_closeLedgers);
  });

  it('non-default flags show in limits, and --dev-methods=false takes the developer methods out of both lists', async () => {
    const { info, discovered } = await overHttp(configured);
    assert.deepEqual(info.methods, discovered);
    // the read-only lumen_ methods (traces) are served everywhere; the developer ones are not
    assert.deepEqual(info.methods.filter((m: string) => m.startsWith('lumen_')).sort(), READ_ONLY_LUMEN);
    for (const m of [...REFERENCE_METHODS, 'queryEvents', 'rpc.discover']) assert.ok(info.methods.includes(m), `${m} is listed`);
    assert.equal((await configured.rpc('lumen_closeLedgers', {})).error.code, -32601, 'and refused');
    const { limits } = info;
    assert.deepEqual([limits.getEvents.maxLimit, limits.getEvents.defaultLimit, limits.getLedgers.maxLimit], [321, 7, 33]);
    assert.deepEqual([limits.request.maxBodyBytes, limits.request.maxResponseBodyBytes], [65536, 0]);
    assert.equal(limits.streaming.maxSubscriptionsPerConnection, 2);
    assert.equal(limits.maxDurationSeconds.getEvents, 4);
    assert.deepEqual([limits.simulateTransaction.concurrency, limits.simulateTransaction.maxQueued], [2, 3]);
    assert.deepEqual(Object.keys(limits.maxDurationSeconds), info.methods);
  });

  it('the limits reported are the ones enforced', async () => {
    const { limits } = (await configured.rpc('getVersionInfo')).result;
    const latest = (await configured.rpc('getLatestLedger')).result.sequence;
    const events = (limit: number) => configured.rpc('getEvents', { startLedger: latest, pagination: { limit } });
    assert.ok((await events(limits.getEvents.maxLimit)).result, 'the largest page reported is served');
    assert.match((await events(limits.getEvents.maxLimit + 1)).error.message, /limit must not exceed 321/);
    // a body one byte over the cap is refused as the reference refuses it, one at the cap is read
    const padded = (size: number) => {
      const head = '{"jsonrpc":"2.0","id":1,"method":"getHealth","params":{"pad":"';
      return head + 'x'.repeat(size - head.length - 3) + '"}}';
    };
    assert.equal((await freshRequest(configured.url, padded(limits.request.maxBodyBytes))).status, 200);
    const over = await freshRequest(configured.url, padded(limits.request.maxBodyBytes + 1));
    assert.deepEqual([over.status, over.text], [500, 'http: request body too large\n']);
    // one subscription past the cap
    const ws = await StreamClient.open(configured.url);
    try {
      for (let i = 0; i < limits.streaming.maxSubscriptionsPerConnection; i++) await ws.subscribe({ kind: 'ledgers' });
      assert.equal((await ws.call('subscribe', { kind: 'ledgers' })).error.code, -32000);
    } finally {
      ws.ws.close();
    }
  });

  it('the official JS SDK still reads getVersionInfo', async () => {
    const info = await server(standalone.url).getVersionInfo();
    assert.equal(info.protocolVersion, CLIENT_PROTOCOL);
    assert.equal(typeof info.version, 'string');
    assert.equal(typeof info.commitHash, 'string');
    assert.equal(typeof info.buildTimestamp, 'string');
    assert.equal(typeof info.captiveCoreVersion, 'string');
  });
});

describe('getVersionInfo on a node following a network: no developer methods', () => {
  let dir: string;
  let a: NodeProcess;
  let b: NodeProcess;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lumen-capabilities-'));
    a = await startA(dir);
    b = await startB(dir, a, undefined, ['--max-ledgers-limit', '77']);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists what it serves, as rpc.discover does, and its own limits', async () => {
    const { info, discovered } = await overHttp(b);
    assert.deepEqual(info.methods, discovered);
    // the read-only lumen_ methods (traces) are served everywhere; the developer ones are not
    assert.deepEqual(info.methods.filter((m: string) => m.startsWith('lumen_')).sort(), READ_ONLY_LUMEN);
    assert.deepEqual([...REFERENCE_METHODS, 'queryEvents', 'rpc.discover'].filter((m) => !info.methods.includes(m)), []);
    assert.equal((await b.rpc('lumen_snapshot', {})).error.code, -32601);
    assert.equal(info.limits.getLedgers.maxLimit, 77);
    // the standalone network it follows lists its developer methods
    assert.ok((await a.rpc('getVersionInfo')).result.methods.includes('lumen_snapshot'));
  });
});
