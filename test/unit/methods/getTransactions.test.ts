import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getTransactions } from '../../../src/rpc/methods/getTransactions.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, assertRpcError, assertShape, call, contextFor, envelopesByHash, ledgerMeta,
  openEmptyStore, openStore, type TestStore,
} from './support/pubnet.ts';

let db: TestStore;
let ctx: MethodContext;
before(() => { db = openStore(); ctx = contextFor(db.store); });
after(() => db.close());

interface Expected { ledger: number; applicationOrder: number; txHash: string; status: string; closeTime: number }

/** Every transaction of the fixture ledgers in application order, read with the SDK alone. */
function expectedTransactions(): Expected[] {
  const out: Expected[] = [];
  for (let seq = FIRST_LEDGER; seq <= LAST_LEDGER; seq++) {
    const meta = ledgerMeta(seq);
    meta.txProcessing.forEach((p, i) => {
      const code = p.result.result.result.code;
      out.push({
        ledger: seq, applicationOrder: i + 1, txHash: Buffer.from(p.result.transactionHash).toString('hex'),
        status: code === 0 || code === 1 ? 'SUCCESS' : 'FAILED', closeTime: Number(meta.ledgerHeader.header.scpValue.closeTime),
      });
    });
  }
  return out;
}

const cursorOf = (ledger: number, tx: number): string => ((BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | 1n).toString();

test('pages across all ledgers with cursors to the end', async () => {
  const expected = expectedTransactions();
  assert.equal(expected.length, 2650);
  const got: Array<Record<string, any>> = [];
  let page = await call(getTransactions, { startLedger: FIRST_LEDGER, pagination: { limit: 200 } }, ctx);
  for (;;) {
    assertShape(page, {
      transactions: 'array', latestLedger: 'number', latestLedgerCloseTimestamp: 'number',
      oldestLedger: 'number', oldestLedgerCloseTimestamp: 'number', cursor: 'string',
    }, 'getTransactions result');
    assert.equal(page.latestLedger, LAST_LEDGER);
    assert.equal(page.oldestLedger, FIRST_LEDGER);
    assert.equal(page.latestLedgerCloseTimestamp, expected[expected.length - 1].closeTime);
    assert.equal(page.oldestLedgerCloseTimestamp, expected[0].closeTime);
    got.push(...page.transactions);
    const last = page.transactions[page.transactions.length - 1];
    if (page.transactions.length > 0) assert.equal(page.cursor, cursorOf(last.ledger, last.applicationOrder));
    if (page.transactions.length < 200) break;
    page = await call(getTransactions, { pagination: { cursor: page.cursor, limit: 200 } }, ctx);
  }
  assert.equal(got.length, expected.length, 'no transaction skipped or repeated');
  got.forEach((tx, i) => {
    const e = expected[i];
    assert.deepEqual(
      { ledger: tx.ledger, applicationOrder: tx.applicationOrder, txHash: tx.txHash, status: tx.status, createdAt: tx.createdAt },
      { ledger: e.ledger, applicationOrder: e.applicationOrder, txHash: e.txHash, status: e.status, createdAt: e.closeTime },
    );
  });
  assert.equal(page.transactions.length, 50, '2650 = 13 full pages + 50');
  assert.equal(page.cursor, cursorOf(LAST_LEDGER, 239));

  // Past the end: an empty page whose cursor points at the start of the latest ledger.
  const end = await call(getTransactions, { pagination: { cursor: page.cursor, limit: 200 } }, ctx);
  assert.deepEqual(end.transactions, []);
  assert.equal(end.cursor, cursorOf(LAST_LEDGER, 0));
});

test('item fields and JSON types (createdAt is a number here)', async () => {
  const { transactions } = await call(getTransactions, { startLedger: FIRST_LEDGER, pagination: { limit: 40 } }, ctx);
  const envelopes = envelopesByHash(FIRST_LEDGER);
  for (const tx of transactions) {
    const shape: Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array'> = {
      status: 'string', txHash: 'string', applicationOrder: 'number', feeBump: 'boolean', envelopeXdr: 'string',
      resultXdr: 'string', resultMetaXdr: 'string', events: 'object', ledger: 'number', createdAt: 'number',
    };
    if ('diagnosticEventsXdr' in tx) shape.diagnosticEventsXdr = 'array';
    assertShape(tx, shape, `tx ${tx.applicationOrder}`);
    const env = envelopes.get(tx.txHash);
    assert.ok(env, 'txHash is the envelope\'s (outer) network hash');
    assert.equal(tx.envelopeXdr, env.envelopeXdr);
    assert.equal(tx.feeBump, env.innerHash !== undefined);
  }
});

test('a page that ends mid-ledger continues with the next transaction', async () => {
  const first = await call(getTransactions, { startLedger: FIRST_LEDGER + 2, pagination: { limit: 5 } }, ctx);
  assert.equal(first.cursor, cursorOf(FIRST_LEDGER + 2, 5));
  const next = await call(getTransactions, { pagination: { cursor: first.cursor, limit: 2 } }, ctx);
  assert.deepEqual(next.transactions.map((t: any) => [t.ledger, t.applicationOrder]), [[FIRST_LEDGER + 2, 6], [FIRST_LEDGER + 2, 7]]);
  // the last transaction of a ledger: the next page starts in the following ledger
  const lastOfFirst = ledgerMeta(FIRST_LEDGER).txProcessing.length;
  const cross = await call(getTransactions, { pagination: { cursor: cursorOf(FIRST_LEDGER, lastOfFirst), limit: 1 } }, ctx);
  assert.deepEqual(cross.transactions.map((t: any) => [t.ledger, t.applicationOrder]), [[FIRST_LEDGER + 1, 1]]);
});

test('default limit, and a start ledger whose page reaches the latest ledger', async () => {
  const dflt = await call(getTransactions, { startLedger: LAST_LEDGER }, contextFor(db.store, { config: { defaultTransactionsLimit: 7 } }));
  assert.equal(dflt.transactions.length, 7);
  const tail = await call(getTransactions, { startLedger: LAST_LEDGER }, ctx);
  assert.equal(tail.transactions.length, 50, 'default limit is 50');
  const rest = await call(getTransactions, { startLedger: LAST_LEDGER, pagination: { limit: 200 } }, ctx);
  const count = ledgerMeta(LAST_LEDGER).txProcessing.length;
  assert.equal(count, 239);
  assert.equal(rest.transactions.length, 200);
  const end = await call(getTransactions, { pagination: { cursor: rest.cursor, limit: 200 } }, ctx);
  assert.equal(end.transactions.length, 39);
  assert.equal(end.cursor, cursorOf(LAST_LEDGER, 239), 'limit not hit: the last transaction of the latest ledger');
});

test('cursors outside the stored range', async () => {
  const beyond = await call(getTransactions, { pagination: { cursor: cursorOf(LAST_LEDGER + 1, 0) } }, ctx);
  assert.deepEqual({ transactions: beyond.transactions, cursor: beyond.cursor }, { transactions: [], cursor: '0' });
  await assertRpcError(getTransactions, { pagination: { cursor: cursorOf(FIRST_LEDGER - 1, 3) } }, ctx, -32602,
    `database does not contain metadata for ledger: ${FIRST_LEDGER - 1}`);
  await assertRpcError(getTransactions, { pagination: { cursor: '-5' } }, ctx, -32602, 'cursor ledger sequence cannot be negative');
});

test('validation errors: -32600 for the request, -32602 for the cursor text', async () => {
  const tail = `the oldest ledger: ${FIRST_LEDGER} and the latest ledger: ${LAST_LEDGER} for this rpc instance`;
  await assertRpcError(getTransactions, { startLedger: 2 }, ctx, -32600, `start ledger (2) must be between ${tail}`);
  await assertRpcError(getTransactions, { startLedger: FIRST_LEDGER, pagination: { limit: 201 } }, ctx, -32600, 'limit must not exceed 200');
  await assertRpcError(getTransactions, { startLedger: FIRST_LEDGER, pagination: { cursor: '5' } }, ctx, -32600,
    `startLedger (${FIRST_LEDGER}) and cursor (5) cannot both be set`);
  await assertRpcError(getTransactions, { startLedger: FIRST_LEDGER, xdrFormat: 'XDR' }, ctx, -32600,
    "got 'XDR': expected base64, json for optional 'xdrFormat'");
  await assertRpcError(getTransactions, { pagination: { cursor: 'abc' } }, ctx, -32602, 'strconv.ParseInt: parsing "abc": invalid syntax');
  await assertRpcError(getTransactions, { pagination: { cursor: '99999999999999999999' } }, ctx, -32602,
    'strconv.ParseInt: parsing "99999999999999999999": value out of range');
  const empty = openEmptyStore();
  try {
    await assertRpcError(getTransactions, { startLedger: 1 }, contextFor(empty.store), -32603, 'DB is empty');
  } finally {
    empty.close();
  }
});

test('xdrFormat json replaces the XDR fields', async () => {
  const { transactions: [tx] } = await call(getTransactions, { startLedger: FIRST_LEDGER, pagination: { limit: 1 }, xdrFormat: 'json' }, ctx);
  assert.equal(tx.envelopeXdr, undefined);
  assert.equal(typeof tx.envelopeJson, 'object');
  assert.equal(typeof tx.resultJson, 'object');
  assert.equal(typeof tx.resultMetaJson, 'object');
  assert.equal(tx.resultJson.fee_charged !== undefined, true);
  assert.equal(typeof tx.createdAt, 'number');
});
