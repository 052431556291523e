// getLatestLedger, getHealth, getNetwork, getVersionInfo, and the method list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import { getHealth } from '../../../src/rpc/methods/getHealth.ts';
import { getLatestLedger } from '../../../src/rpc/methods/getLatestLedger.ts';
import { getNetwork } from '../../../src/rpc/methods/getNetwork.ts';
import { Dispatcher } from '../../../src/rpc/jsonrpc.ts';
import { methods } from '../../../src/rpc/methods/index.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, assertDecimalString, assertRpcError, assertShape, call, contextFor,
  ledgerBytes, ledgerMeta, openEmptyStore, openStore, testNode, type TestStore,
} from './support/pubnet.ts';

let db: TestStore;
let empty: TestStore;
let ctx: MethodContext;
let emptyCtx: MethodContext;
before(() => {
  db = openStore();
  empty = openEmptyStore();
  ctx = contextFor(db.store);
  emptyCtx = contextFor(empty.store);
});
after(() => { db.close(); empty.close(); });

const closeTime = (seq: number): number => Number(ledgerMeta(seq).ledgerHeader.header.scpValue.closeTime);

test('getLatestLedger: decodable header (bare LedgerHeader) and meta, string close time', async () => {
  const result = await call(getLatestLedger, {}, ctx);
  assertShape(result, {
    id: 'string', protocolVersion: 'number', sequence: 'number', closeTime: 'string', headerXdr: 'string', metadataXdr: 'string',
  }, 'getLatestLedger');
  const expected = ledgerMeta(LAST_LEDGER).ledgerHeader;
  assert.equal(result.id, Buffer.from(expected.hash).toString('hex'));
  assert.equal(result.sequence, LAST_LEDGER);
  assert.equal(result.protocolVersion, 26);
  assert.equal(result.closeTime, String(closeTime(LAST_LEDGER)));
  assertDecimalString(result.closeTime, 'closeTime');
  // what JS SDK >= 15.1 does with it: LedgerHeader.fromXdr / LedgerCloseMeta.fromXdr
  const header = xdr.LedgerHeader.fromXdr(result.headerXdr, 'base64');
  assert.equal(header.ledgerSeq, LAST_LEDGER);
  assert.equal(header.ledgerVersion, 26);
  assert.equal(result.headerXdr, Buffer.from(xdr.LedgerHeader.schema.encode(expected.header)).toString('base64'));
  const meta = xdr.LedgerCloseMeta.fromXdr(result.metadataXdr, 'base64');
  assert.equal(meta.type, 'v2');
  assert.equal(result.metadataXdr, Buffer.from(ledgerBytes(LAST_LEDGER)).toString('base64'));
  assert.equal(result.xdrFormat, undefined);
  const json = await call(getLatestLedger, { xdrFormat: 'json' }, ctx);
  assert.equal(json.headerXdr, result.headerXdr, 'xdrFormat is ignored');
  await assertRpcError(getLatestLedger, {}, emptyCtx, -32603, 'could not get latest ledger sequence');
});

test('getHealth: healthy result with string close times', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: (closeTime(LAST_LEDGER) + 5) * 1000 });
  const result = await call(getHealth, {}, ctx);
  assert.deepEqual(result, {
    status: 'healthy',
    latestLedger: LAST_LEDGER,
    latestLedgerCloseTime: String(closeTime(LAST_LEDGER)),
    oldestLedger: FIRST_LEDGER,
    oldestLedgerCloseTime: String(closeTime(FIRST_LEDGER)),
    ledgerRetentionWindow: 120960,
  });
  const custom = await call(getHealth, {}, contextFor(db.store, { config: { historyRetentionWindow: 17280 } }));
  assert.equal(custom.ledgerRetentionWindow, 17280);
});

test('getHealth: bracketed -32603 errors when stale or empty', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: (closeTime(LAST_LEDGER) + 45.4) * 1000 });
  await assertRpcError(getHealth, {}, ctx, -32603, '[-32603] latency (45s) since last known ledger closed is too high (>30s)');
  await assertRpcError(getHealth, {}, contextFor(db.store, { config: { maxHealthyLedgerLatency: 20 } }), -32603,
    '[-32603] latency (45s) since last known ledger closed is too high (>20s)');
  t.mock.timers.setTime((closeTime(LAST_LEDGER) + 3725.5) * 1000);
  await assertRpcError(getHealth, {}, contextFor(db.store, { config: { maxHealthyLedgerLatency: 90 } }), -32603,
    '[-32603] latency (1h2m6s) since last known ledger closed is too high (>1m30s)');
  t.mock.timers.setTime((closeTime(LAST_LEDGER) + 30) * 1000);
  assert.equal((await call(getHealth, {}, ctx)).status, 'healthy', 'exactly at the limit is still healthy');
  await assertRpcError(getHealth, {}, emptyCtx, -32603, '[-32603] data stores are not initialized: DB is empty');
});

test('getNetwork: passphrase, protocol version, friendbotUrl only when configured', async () => {
  const plain = await call(getNetwork, {}, ctx);
  assert.deepEqual(plain, { passphrase: PUBNET_PASSPHRASE, protocolVersion: 26 });
  const withFriendbot = await call(getNetwork, {}, contextFor(db.store, { node: { friendbotUrl: 'http://localhost:8000/friendbot' } }));
  assertShape(withFriendbot, { friendbotUrl: 'string', passphrase: 'string', protocolVersion: 'number' }, 'getNetwork');
  assert.equal(withFriendbot.friendbotUrl, 'http://localhost:8000/friendbot');
  await assertRpcError(getNetwork, {}, emptyCtx, -32603, 'DB is empty');
});

test('getVersionInfo: node facts and protocol version (0 when nothing is stored)', async () => {
  // through a dispatcher: its methods and limits are what one serves (getVersionInfo.test.ts)
  const versionInfo = async (c: MethodContext) =>
    JSON.parse(String(await new Dispatcher({ methods, ctx: c }).handle({ jsonrpc: '2.0', id: 1, method: 'getVersionInfo' }))).result;
  const { methods: served, limits, ...result } = await versionInfo(ctx);
  assert.deepEqual(result, {
    version: testNode.version, commitHash: testNode.commitHash, buildTimestamp: testNode.buildTimestamp,
    captiveCoreVersion: testNode.captiveCoreVersion, protocolVersion: 26,
  });
  assert.deepEqual(served, methods.map((m) => m.name));
  assert.equal(typeof limits, 'object');
  assert.equal((await versionInfo(emptyCtx)).protocolVersion, 0);
});

test('the method list: the reference\'s twelve methods, its archive node\'s queryEvents, rpc.discover and the read-only lumen_ ones, unique names, object param schemas', () => {
  assert.deepEqual(methods.map((m) => m.name).sort(), [
    'getEvents', 'getFeeStats', 'getHealth', 'getLatestLedger', 'getLedgerEntries', 'getLedgers', 'getNetwork',
    'getTransaction', 'getTransactions', 'getVersionInfo', 'lumen_resourceReport', 'lumen_traceTransaction', 'queryEvents', 'rpc.discover', 'sendTransaction',
    'simulateTransaction',
  ]);
  for (const m of methods) {
    assert.equal((m.paramsSchema as { type: string }).type, 'object', m.name);
    assert.equal((m.paramsSchema as { additionalProperties?: unknown }).additionalProperties, undefined, `${m.name} allows unknown members`);
  }
});
