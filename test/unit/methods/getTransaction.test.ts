import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FeeBumpTransaction, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { getTransaction } from '../../../src/rpc/methods/getTransaction.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, assertDecimalString, assertRpcError, assertShape, call, contextFor, envelopesByHash,
  ledgerMeta, openEmptyStore, openStore, type JsonType, type TestStore,
} from './support/pubnet.ts';

let db: TestStore;
let ctx: MethodContext;
before(() => { db = openStore(); ctx = contextFor(db.store); });
after(() => db.close());

const LEDGER = FIRST_LEDGER + 3;
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** The fixture ledger's transactions, with the hashes recomputed from their envelopes by the SDK. */
let fixtureCache: ReturnType<typeof readFixtureTransactions> | undefined;
const fixtureTransactions = () => (fixtureCache ??= readFixtureTransactions());
function readFixtureTransactions() {
  const envelopes = envelopesByHash(LEDGER);
  return ledgerMeta(LEDGER).txProcessing.map((p, i) => {
    const hash = Buffer.from(p.result.transactionHash).toString('hex');
    const env = envelopes.get(hash);
    assert.ok(env, `envelope of ${hash} found by its recomputed hash`);
    return { applicationOrder: i + 1, hash, code: p.result.result.result.code, processing: p, ...env };
  });
}

function detailShape(result: Record<string, unknown>): Record<string, JsonType> {
  const shape: Record<string, JsonType> = {
    latestLedger: 'number', latestLedgerCloseTime: 'string', oldestLedger: 'number', oldestLedgerCloseTime: 'string',
    status: 'string', txHash: 'string', applicationOrder: 'number', feeBump: 'boolean',
    envelopeXdr: 'string', resultXdr: 'string', resultMetaXdr: 'string', events: 'object', ledger: 'number', createdAt: 'string',
  };
  if ('diagnosticEventsXdr' in result) shape.diagnosticEventsXdr = 'array';
  return shape;
}

/** The SDK's own hashing of an envelope: [hash, inner hash of a fee bump]. */
function sdkHashes(envelopeXdr: string): [string, string | undefined] {
  const tx = TransactionBuilder.fromXdr(envelopeXdr, PUBNET_PASSPHRASE);
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  return [hex(tx.hash()), tx instanceof FeeBumpTransaction ? hex(tx.innerTransaction.hash()) : undefined];
}

test('a successful transaction, found by the hash recomputed from its envelope', async () => {
  const tx = fixtureTransactions().find((t) => t.code === 0 && t.innerHash === undefined)!;
  assert.deepEqual(sdkHashes(tx.envelopeXdr), [tx.hash, undefined]);
  const result = await call(getTransaction, { hash: tx.hash }, ctx);
  assertShape(result, detailShape(result), 'getTransaction result');
  const header = ledgerMeta(LEDGER).ledgerHeader.header;
  assert.equal(result.status, 'SUCCESS');
  assert.equal(result.txHash, tx.hash);
  assert.equal(result.ledger, LEDGER);
  assert.equal(result.applicationOrder, tx.applicationOrder);
  assert.equal(result.feeBump, false);
  assert.equal(result.createdAt, header.scpValue.closeTime.toString());
  assert.equal(result.latestLedger, LAST_LEDGER);
  assert.equal(result.oldestLedger, FIRST_LEDGER);
  for (const k of ['latestLedgerCloseTime', 'oldestLedgerCloseTime', 'createdAt']) assertDecimalString(result[k], k);
  assert.equal(result.envelopeXdr, tx.envelopeXdr);
  assert.equal(result.resultXdr, b64(xdr.TransactionResult.schema.encode(tx.processing.result.result)));
  assert.equal(result.resultMetaXdr, b64(xdr.TransactionMeta.schema.encode(tx.processing.txApplyProcessing)));
  // the SDK decodes what it gets
  xdr.TransactionEnvelope.fromXdr(result.envelopeXdr, 'base64');
  const meta = xdr.TransactionMeta.fromXdr(result.resultMetaXdr, 'base64');
  assert.equal(meta.type, 'v4');
});

test('events: transaction events and per-operation contract events from meta V4', async () => {
  const txs = fixtureTransactions();
  const withEvents = txs.find((t) => t.processing.txApplyProcessing.v === 4
    && t.processing.txApplyProcessing.v4.operations.some((o) => o.events.length > 0))!;
  assert.ok(withEvents, 'the fixture has a transaction with contract events');
  const result = await call(getTransaction, { hash: withEvents.hash }, ctx);
  const m = withEvents.processing.txApplyProcessing;
  assert.equal(m.v, 4);
  assert.deepEqual(result.events.contractEventsXdr,
    m.v4.operations.map((o) => o.events.map((e) => b64(xdr.ContractEvent.schema.encode(e)))));
  assert.deepEqual(result.events.transactionEventsXdr, m.v4.events.map((e) => b64(xdr.TransactionEvent.schema.encode(e))));
  assertShape(result.events, { transactionEventsXdr: 'array', contractEventsXdr: 'array' }, 'events');
});

test('a failed transaction', async () => {
  const tx = fixtureTransactions().find((t) => t.code < 0 && t.code !== -13 && t.innerHash === undefined)!;
  const result = await call(getTransaction, { hash: tx.hash }, ctx);
  assertShape(result, detailShape(result), 'failed result');
  assert.equal(result.status, 'FAILED');
  assert.equal(result.applicationOrder, tx.applicationOrder);
  assert.equal(xdr.TransactionResult.schema.decode(Buffer.from(result.resultXdr, 'base64')).result.code, tx.code);
});

test('a fee bump, by its outer and by its inner hash; txHash echoes the request', async () => {
  const tx = fixtureTransactions().find((t) => t.innerHash !== undefined)!;
  assert.deepEqual(sdkHashes(tx.envelopeXdr), [tx.hash, tx.innerHash]);
  const outer = await call(getTransaction, { hash: tx.hash }, ctx);
  const inner = await call(getTransaction, { hash: tx.innerHash }, ctx);
  assert.equal(outer.feeBump, true);
  assert.equal(inner.feeBump, true);
  assert.equal(outer.txHash, tx.hash);
  assert.equal(inner.txHash, tx.innerHash);
  assert.equal(inner.envelopeXdr, tx.envelopeXdr);
  assert.equal(inner.applicationOrder, outer.applicationOrder);
  assert.equal(xdr.TransactionEnvelope.fromXdr(inner.envelopeXdr, 'base64').type, 'envelopeTypeTxFeeBump');
});

test('an upper-case hash is found and echoed as sent', async () => {
  const tx = fixtureTransactions()[0];
  const result = await call(getTransaction, { hash: tx.hash.toUpperCase() }, ctx);
  assert.equal(result.status === 'SUCCESS' || result.status === 'FAILED', true);
  assert.equal(result.txHash, tx.hash.toUpperCase());
});

test('NOT_FOUND is a result carrying the range and zero-valued details', async () => {
  const hash = '00'.repeat(32);
  const result = await call(getTransaction, { hash }, ctx);
  assert.deepEqual(result, {
    latestLedger: LAST_LEDGER,
    latestLedgerCloseTime: ledgerMeta(LAST_LEDGER).ledgerHeader.header.scpValue.closeTime.toString(),
    oldestLedger: FIRST_LEDGER,
    oldestLedgerCloseTime: ledgerMeta(FIRST_LEDGER).ledgerHeader.header.scpValue.closeTime.toString(),
    status: 'NOT_FOUND', txHash: hash, applicationOrder: 0, feeBump: false, events: {}, ledger: 0, createdAt: '0',
  });
});

test('bad hashes and formats are -32602; an empty store is -32603', async () => {
  await assertRpcError(getTransaction, { hash: 'abc' }, ctx, -32602, 'unexpected hash length (3)');
  await assertRpcError(getTransaction, {}, ctx, -32602, 'unexpected hash length (0)');
  await assertRpcError(getTransaction, { hash: 'g'.repeat(64) }, ctx, -32602, "incorrect hash: encoding/hex: invalid byte: U+0067 'g'");
  await assertRpcError(getTransaction, { hash: 'a'.repeat(65) }, ctx, -32602, 'incorrect hash: encoding/hex: odd length hex string');
  await assertRpcError(getTransaction, { hash: '00'.repeat(32), xdrFormat: 'hex' }, ctx, -32602,
    "got 'hex': expected base64, json for optional 'xdrFormat'");
  const empty = openEmptyStore();
  try {
    await assertRpcError(getTransaction, { hash: '00'.repeat(32) }, contextFor(empty.store), -32603,
      'unable to get ledger range: DB is empty');
  } finally {
    empty.close();
  }
});

test('xdrFormat json', async () => {
  const tx = fixtureTransactions().find((t) => t.processing.txApplyProcessing.v === 4
    && t.processing.txApplyProcessing.v4.events.length > 0)!;
  const result = await call(getTransaction, { hash: tx.hash, xdrFormat: 'json' }, ctx);
  for (const k of ['envelopeXdr', 'resultXdr', 'resultMetaXdr', 'diagnosticEventsXdr']) assert.equal(k in result, false, k);
  assert.equal(typeof result.envelopeJson, 'object');
  assert.equal(typeof result.resultJson, 'object');
  assert.equal(typeof result.resultMetaJson, 'object');
  assert.ok(Array.isArray(result.events.transactionEventsJson));
  assert.equal(result.events.transactionEventsXdr, undefined);
  assert.equal(typeof result.createdAt, 'string');
});
