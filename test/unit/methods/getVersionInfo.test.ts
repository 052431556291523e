// getVersionInfo's capability discovery (stellar-rpc#995), through a Dispatcher as the node assembles
// it: `methods` is the dispatcher's own list of what it serves on the connection (every method of the
// lists node.ts registers, less the developer stand-ins, subscribe/unsubscribe off a WebSocket and the
// privileged methods for a caller the policy refuses), the same list rpc.discover documents; `limits`
// are the configured values and the constants the checks enforce. The reference's five members stay
// as they were.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { DEFAULT_MAX_BATCH_SIZE, Dispatcher, answerText, type Answer, type RequestScope } from '../../../src/rpc/jsonrpc.ts';
import { CallScope } from '../../../src/rpc/callScope.ts';
import { AnswerBudget } from '../../../src/rpc/answerBudget.ts';
import { CallerPolicy } from '../../../src/rpc/callerPolicy.ts';
import { MAX_JSON_DEPTH } from '../../../src/rpc/limits.ts';
import { RawJson } from '../../../src/rpc/rawJson.ts';
import { methods } from '../../../src/rpc/methods/index.ts';
import { devMethods } from '../../../src/rpc/methods/dev/index.ts';
import { refusedDevMethod } from '../../../src/rpc/methods/dev/types.ts';
import { streamMethods } from '../../../src/rpc/methods/subscribe.ts';
import { getVersionInfo } from '../../../src/rpc/methods/getVersionInfo.ts';
import { MAX_LEDGER_ENTRY_KEYS } from '../../../src/rpc/methods/getLedgerEntries.ts';
import { LEDGER_SCAN_LIMIT } from '../../../src/rpc/methods/shared/eventPage.ts';
import { MAX_CONTRACT_IDS, MAX_FILTERS, MAX_SEGMENTS, MAX_TOPICS } from '../../../src/rpc/methods/shared/eventsRequest.ts';
import * as queryEventsRequest from '../../../src/rpc/methods/shared/queryEventsRequest.ts';
import { MAX_SIMULATE_ENVELOPE_BYTES } from '../../../src/rpc/methods/shared/simulation.ts';
import { MAX_ENVELOPE_BYTES } from '../../../src/submit/transactionSubmitter.ts';
import type { Method, MethodContext, StreamConnection } from '../../../src/rpc/methods/types.ts';
import type { Config } from '../../../src/config/config.ts';
import { FIRST_LEDGER, contextFor, openStore, testNode, type TestStore } from './support/pubnet.ts';

let db: TestStore;
before(() => { db = openStore(); });
after(() => db.close());

/** A dispatcher as node.ts assembles one: every node's methods, the streaming ones, the developer ones (or their stand-ins). */
function dispatcher(opts: { dev?: 'served' | 'refused'; config?: Partial<Config>; policy?: CallerPolicy; extra?: Method[] } = {}): { d: Dispatcher; ctx: MethodContext } {
  const ctx = contextFor(db.store, { config: opts.config });
  const dev = opts.dev === 'refused' ? devMethods.map((m) => refusedDevMethod(m, 'not here')) : devMethods;
  const d = new Dispatcher({ methods: [...methods, ...streamMethods, ...dev, ...(opts.extra ?? [])], ctx, callerPolicy: opts.policy });
  return { d, ctx };
}

/** An answer as a value (pages come in pieces). */
const parse = (answer: Answer): any => JSON.parse(answerText(answer!));

const noStream: StreamConnection = { subscribe: () => 'x', unsubscribe: () => false };

async function result(d: Dispatcher, method: string, scope: RequestScope = {}, params: unknown = {}): Promise<any> {
  const parsed = parse(await d.handle({ jsonrpc: '2.0', id: 1, method, params }, scope));
  assert.ok(parsed.result !== undefined, `${method}: ${JSON.stringify(parsed.error)}`);
  return parsed.result;
}

const names = (list: readonly Method[]): string[] => list.map((m) => m.name);
const discovered = async (d: Dispatcher, scope: RequestScope = {}): Promise<string[]> =>
  (await result(d, 'rpc.discover', scope)).methods.map((m: { name: string }) => m.name);

describe('getVersionInfo: methods', () => {
  it('over HTTP on a standalone network: every node\'s methods and the developer ones, as rpc.discover lists them', async () => {
    const { d } = dispatcher();
    const info = await result(d, 'getVersionInfo');
    assert.deepEqual(info.methods, [...names(methods), ...names(devMethods)]);
    assert.deepEqual(info.methods, await discovered(d));
    assert.ok(info.methods.includes('lumen_closeLedgers') && info.methods.includes('getVersionInfo') && info.methods.includes('rpc.discover'));
    assert.ok(!info.methods.includes('subscribe'), 'subscribe answers -32601 over HTTP POST');
  });

  it('over a WebSocket: subscribe and unsubscribe too', async () => {
    const { d } = dispatcher();
    const scope = { stream: noStream };
    const info = await result(d, 'getVersionInfo', scope);
    assert.deepEqual(info.methods, [...names(methods), ...names(streamMethods), ...names(devMethods)]);
    assert.deepEqual(info.methods, await discovered(d, scope));
  });

  it('where the developer methods are only refused (a follower, --dev-methods=false): none of them', async () => {
    const { d } = dispatcher({ dev: 'refused' });
    const info = await result(d, 'getVersionInfo');
    assert.deepEqual(info.methods, names(methods));
    assert.deepEqual(info.methods, await discovered(d));
    // ... which the dispatcher answers -32601 indeed
    const refused = parse(await d.handle({ jsonrpc: '2.0', id: 1, method: 'lumen_closeLedgers', params: {} }));
    assert.equal(refused.error.code, -32601);
  });

  it('to a caller the policy refuses privileged methods (a web page of another origin): none of them', async () => {
    const policy = new CallerPolicy({ endpointHost: '127.0.0.1' });
    const { d } = dispatcher({ policy });
    const page = { caller: { origin: 'https://elsewhere.example', host: '127.0.0.1:8000' } };
    assert.deepEqual((await result(d, 'getVersionInfo', page)).methods, names(methods));
    assert.deepEqual(await discovered(d, page), names(methods));
    const cli = { caller: { host: '127.0.0.1:8000' } };
    assert.deepEqual((await result(d, 'getVersionInfo', cli)).methods, [...names(methods), ...names(devMethods)]);
  });

  it('is derived from what the dispatcher serves: a method registered is listed, with no list to keep', async () => {
    const added: Method = {
      name: 'lumen_addedLater', paramsSchema: { type: 'object' },
      doc: { summary: 'a method added', result: { name: 'r', schema: { type: 'object', properties: {}, additionalProperties: false } } },
      handler: () => ({}),
    };
    const { d } = dispatcher({ extra: [added] });
    assert.ok((await result(d, 'getVersionInfo')).methods.includes('lumen_addedLater'));
    assert.ok((await discovered(d)).includes('lumen_addedLater'));
  });

  it('every method of the lists node.ts registers is listed on some connection', async () => {
    const { d } = dispatcher();
    const listed = new Set((await result(d, 'getVersionInfo', { stream: noStream })).methods as string[]);
    const unlisted = [...methods, ...streamMethods, ...devMethods].map((m) => m.name).filter((n) => !listed.has(n));
    assert.deepEqual(unlisted, []);
  });

  it('rpc.discover builds its document once per list served', async () => {
    const { d, ctx } = dispatcher();
    const rpcDiscover = methods.find((m) => m.name === 'rpc.discover')!;
    const call = (streaming: boolean) => new CallScope(new AnswerBudget(0), streaming ? noStream : undefined, undefined, d);
    const http = await rpcDiscover.handler({}, ctx, call(false));
    assert.ok(http instanceof RawJson);
    assert.equal(await rpcDiscover.handler({}, ctx, call(false)), http, 'the same answer again');
    assert.notEqual(await rpcDiscover.handler({}, ctx, call(true)), http, 'another list, another document');
  });

  it('a call made outside any dispatcher cannot say what is served', () => {
    const { ctx } = dispatcher();
    assert.throws(() => getVersionInfo.handler({}, ctx, new CallScope(new AnswerBudget(0))), /outside a dispatcher/);
  });
});

describe('getVersionInfo: limits', () => {
  it('by default: the configuration\'s defaults and the constants the checks use', async () => {
    const { d, ctx } = dispatcher();
    const { limits } = await result(d, 'getVersionInfo');
    const c = ctx.config;
    assert.deepEqual(limits.request, {
      maxBodyBytes: c.maxRequestBodyBytes, maxBatchSize: DEFAULT_MAX_BATCH_SIZE, maxJsonDepth: MAX_JSON_DEPTH,
      maxResponseBodyBytes: c.maxResponseBodyBytes, maxDurationSeconds: c.maxRequestExecutionDuration,
    });
    assert.deepEqual(limits.getEvents, {
      defaultLimit: 100, maxLimit: 10_000, maxLedgersScanned: LEDGER_SCAN_LIMIT,
      maxFilters: MAX_FILTERS, maxContractIds: MAX_CONTRACT_IDS, maxTopics: MAX_TOPICS, maxTopicSegments: MAX_SEGMENTS,
    });
    assert.deepEqual(limits.queryEvents, {
      defaultLimit: queryEventsRequest.DEFAULT_LIMIT, maxLimit: queryEventsRequest.MAX_LIMIT, maxLedgersScanned: LEDGER_SCAN_LIMIT,
      maxFilters: queryEventsRequest.MAX_FILTERS, maxTerms: queryEventsRequest.TERM_BUDGET,
    });
    assert.deepEqual(limits.getLedgers, { defaultLimit: 50, maxLimit: 200 });
    assert.deepEqual(limits.getTransactions, { defaultLimit: 50, maxLimit: 200 });
    assert.deepEqual(limits.getLedgerEntries, { maxKeys: MAX_LEDGER_ENTRY_KEYS });
    assert.deepEqual(limits.sendTransaction, { maxEnvelopeBytes: MAX_ENVELOPE_BYTES });
    assert.deepEqual(limits.simulateTransaction, {
      maxEnvelopeBytes: MAX_SIMULATE_ENVELOPE_BYTES, concurrency: c.preflightWorkerCount, maxQueued: c.preflightWorkerQueueSize,
    });
    assert.deepEqual(limits.streaming, {
      maxConnections: c.maxWebsocketConnections, maxSubscriptionsPerConnection: c.maxSubscriptionsPerConnection,
      maxBufferBytes: c.maxStreamBufferBytes, maxLagSeconds: c.maxStreamLag, maxConnectionBytes: c.maxStreamConnectionBytes,
    });
    // a time limit for each method listed, from the dispatcher's own gates
    const info = await result(d, 'getVersionInfo');
    assert.deepEqual(Object.keys(limits.maxDurationSeconds), info.methods);
    assert.equal(limits.maxDurationSeconds.getEvents, 10);
    assert.equal(limits.maxDurationSeconds.getHealth, 5);
    assert.equal(limits.maxDurationSeconds.lumen_closeLedgers, 25);
    for (const m of info.methods as string[]) assert.equal(limits.maxDurationSeconds[m], d.gate(m)!.maxDurationMs / 1000, m);
  });

  it('as configured: each changed option shows, and no limit is 0', async () => {
    const { d } = dispatcher({
      config: {
        maxEventsLimit: 321, defaultEventsLimit: 7, maxLedgersLimit: 33, maxTransactionsLimit: 44, defaultTransactionsLimit: 4,
        maxRequestBodyBytes: 12_345, maxResponseBodyBytes: 0, maxRequestExecutionDuration: 0,
        methodMaxDurations: { default: 5, getEvents: 0, simulateTransaction: 2.5 },
        preflightWorkerCount: 3, preflightWorkerQueueSize: 9, maxSubscriptionsPerConnection: 7, maxStreamLag: 12,
      },
    });
    const { limits } = await result(d, 'getVersionInfo');
    assert.deepEqual([limits.getEvents.maxLimit, limits.getEvents.defaultLimit], [321, 7]);
    assert.equal(limits.getLedgers.maxLimit, 33);
    assert.deepEqual(limits.getTransactions, { defaultLimit: 4, maxLimit: 44 });
    assert.equal(limits.request.maxBodyBytes, 12_345);
    assert.equal(limits.request.maxResponseBodyBytes, 0);
    assert.equal(limits.request.maxDurationSeconds, 0);
    assert.equal(limits.maxDurationSeconds.getEvents, 0);
    assert.equal(limits.maxDurationSeconds.simulateTransaction, 2.5);
    assert.deepEqual([limits.simulateTransaction.concurrency, limits.simulateTransaction.maxQueued], [3, 9]);
    assert.deepEqual([limits.streaming.maxSubscriptionsPerConnection, limits.streaming.maxLagSeconds], [7, 12]);
  });

  it('are the limits enforced: one past a reported maximum is refused', async () => {
    const { d } = dispatcher({ config: { maxEventsLimit: 321, maxLedgersLimit: 33 } });
    const { limits } = await result(d, 'getVersionInfo');
    const refusal = async (method: string, params: object) =>
      parse(await d.handle({ jsonrpc: '2.0', id: 1, method, params })).error;
    assert.match((await refusal('getEvents', { startLedger: FIRST_LEDGER, pagination: { limit: limits.getEvents.maxLimit + 1 } })).message, /limit must not exceed 321/);
    assert.equal((await refusal('getEvents', { startLedger: FIRST_LEDGER, pagination: { limit: limits.getEvents.maxLimit } })), undefined);
    assert.match((await refusal('getLedgers', { startLedger: FIRST_LEDGER, pagination: { limit: limits.getLedgers.maxLimit + 1 } })).message, /limit must not exceed 33/);
    const keys = Array.from({ length: limits.getLedgerEntries.maxKeys + 1 }, () => 'AAAAAAAAAAA=');
    assert.match(JSON.stringify(await refusal('getLedgerEntries', { keys })), /exceeds maximum supported \(200\)/);
    const batch = Array.from({ length: limits.request.maxBatchSize + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getHealth' }));
    assert.match(answerText((await d.handle(batch))!), /exceeds the limit of 1000/);
  });
});

describe('getVersionInfo: the reference\'s members', () => {
  it('unchanged, with the two new ones after them, and the answer matches its documented schema', async () => {
    const { d } = dispatcher();
    const info = await result(d, 'getVersionInfo');
    assert.deepEqual(Object.keys(info), ['version', 'commitHash', 'buildTimestamp', 'captiveCoreVersion', 'protocolVersion', 'methods', 'limits']);
    const { methods: _m, limits: _l, ...reference } = info;
    assert.deepEqual(reference, {
      version: testNode.version, commitHash: testNode.commitHash, buildTimestamp: testNode.buildTimestamp,
      captiveCoreVersion: testNode.captiveCoreVersion, protocolVersion: 26,
    });
    const compiled = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }).compile(getVersionInfo.doc!.result.schema);
    // as a plain predicate: ajv's type guard would narrow `info`
    const validate = (v: unknown): boolean => compiled(v);
    assert.ok(validate(info), JSON.stringify(compiled.errors));
    assert.ok(!validate({ ...info, limits: { ...info.limits, surprise: 1 } }), 'limits lists its members exactly');
  });
});
