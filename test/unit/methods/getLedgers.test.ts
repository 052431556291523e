import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import { getLedgers } from '../../../src/rpc/methods/getLedgers.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, assertDecimalString, assertRpcError, assertShape, call, contextFor,
  ledgerBytes, ledgerMeta, openEmptyStore, openStore, type TestStore,
} from './support/pubnet.ts';

let db: TestStore;
let ctx: MethodContext;
before(() => { db = openStore(); ctx = contextFor(db.store); });
after(() => db.close());

const RANGE_TAIL = `the oldest ledger: ${FIRST_LEDGER} and the latest ledger: ${LAST_LEDGER} for this rpc instance`;

test('pages through every stored ledger with cursors, then the cursor runs out of range', async () => {
  const seen: number[] = [];
  let page = await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 3 } }, ctx);
  for (;;) {
    assertShape(page, {
      ledgers: 'array', latestLedger: 'number', latestLedgerCloseTime: 'number',
      oldestLedger: 'number', oldestLedgerCloseTime: 'number', cursor: 'string',
    }, 'getLedgers result');
    assert.equal(page.latestLedger, LAST_LEDGER);
    assert.equal(page.oldestLedger, FIRST_LEDGER);
    assert.equal(page.latestLedgerCloseTime, Number(ledgerMeta(LAST_LEDGER).ledgerHeader.header.scpValue.closeTime));
    assert.equal(page.oldestLedgerCloseTime, Number(ledgerMeta(FIRST_LEDGER).ledgerHeader.header.scpValue.closeTime));
    seen.push(...page.ledgers.map((l: { sequence: number }) => l.sequence));
    assert.equal(page.cursor, String(seen[seen.length - 1]), 'cursor = last returned sequence');
    if (page.ledgers.length < 3) break;
    if (page.cursor === String(LAST_LEDGER)) break;
    page = await call(getLedgers, { pagination: { cursor: page.cursor, limit: 3 } }, ctx);
  }
  assert.deepEqual(seen, Array.from({ length: 10 }, (_, i) => FIRST_LEDGER + i));
  await assertRpcError(getLedgers, { pagination: { cursor: String(LAST_LEDGER) } }, ctx, -32602,
    `cursor ('${LAST_LEDGER}') must be between ${RANGE_TAIL}`);
});

test('each ledger: hash, string close time, LedgerHeaderHistoryEntry header, raw meta', async () => {
  const seq = FIRST_LEDGER + 4;
  const { ledgers: [ledger] } = await call(getLedgers, { startLedger: seq, pagination: { limit: 1 } }, ctx);
  assertShape(ledger, { hash: 'string', sequence: 'number', ledgerCloseTime: 'string', headerXdr: 'string', metadataXdr: 'string' }, 'ledger');
  const expected = ledgerMeta(seq).ledgerHeader;
  assert.equal(ledger.sequence, seq);
  assert.equal(ledger.hash, Buffer.from(expected.hash).toString('hex'));
  assert.equal(ledger.ledgerCloseTime, expected.header.scpValue.closeTime.toString());
  assertDecimalString(ledger.ledgerCloseTime, 'ledgerCloseTime');
  const header = xdr.LedgerHeaderHistoryEntry.fromXdr(ledger.headerXdr, 'base64');
  assert.equal(Buffer.from(header.hash.toXdr()).toString('hex'), ledger.hash);
  assert.equal(header.header.ledgerSeq, seq);
  assert.equal(ledger.metadataXdr, Buffer.from(ledgerBytes(seq)).toString('base64'));
});

test('limits: default when absent or 0, at most the maximum', async () => {
  const all = await call(getLedgers, { startLedger: FIRST_LEDGER }, ctx);
  assert.equal(all.ledgers.length, 10, 'default limit 50 covers all ten');
  assert.equal(all.cursor, String(LAST_LEDGER));
  const zero = await call(getLedgers, { startLedger: FIRST_LEDGER + 8, pagination: { limit: 0 } }, ctx);
  assert.deepEqual(zero.ledgers.map((l: { sequence: number }) => l.sequence), [FIRST_LEDGER + 8, LAST_LEDGER]);
  const two = await call(getLedgers, { startLedger: FIRST_LEDGER + 8 }, contextFor(db.store, { config: { defaultLedgersLimit: 1 } }));
  assert.equal(two.ledgers.length, 1);
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 201 } }, ctx, -32600, 'limit must not exceed 200');
});

test('range and parameter errors use the reference codes and messages', async () => {
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER - 1 }, ctx, -32600,
    `start ledger (${FIRST_LEDGER - 1}) must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { startLedger: LAST_LEDGER + 1, pagination: { limit: 5 } }, ctx, -32600,
    `start ledger (${LAST_LEDGER + 1}) must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, {}, ctx, -32600, `start ledger (0) must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER, pagination: { cursor: String(FIRST_LEDGER) } }, ctx, -32600,
    `startLedger (${FIRST_LEDGER}) and cursor (${FIRST_LEDGER}) cannot both be set`);
  await assertRpcError(getLedgers, { pagination: { cursor: 'abc' } }, ctx, -32602, 'strconv.ParseUint: parsing "abc": invalid syntax');
  await assertRpcError(getLedgers, { pagination: { cursor: '4294967296' } }, ctx, -32602,
    'strconv.ParseUint: parsing "4294967296": value out of range');
  await assertRpcError(getLedgers, { pagination: { cursor: String(FIRST_LEDGER - 5) } }, ctx, -32602,
    `cursor ('${FIRST_LEDGER - 5}') must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER, xdrFormat: 'xml' }, ctx, -32600,
    "got 'xml': expected base64, json for optional 'xdrFormat'");
  await assertRpcError(getLedgers, { startLedger: 1, xdrFormat: 'xml' }, ctx, -32600,
    `start ledger (1) must be between ${RANGE_TAIL}\ngot 'xml': expected base64, json for optional 'xdrFormat'`);
});

test('a cursor just before the oldest ledger starts at the oldest', async () => {
  const page = await call(getLedgers, { pagination: { cursor: String(FIRST_LEDGER - 1), limit: 1 } }, ctx);
  assert.equal(page.ledgers[0].sequence, FIRST_LEDGER);
});

test('xdrFormat json: header and meta as JSON, the XDR fields left empty', async () => {
  const { ledgers: [ledger] } = await call(getLedgers, { startLedger: LAST_LEDGER, xdrFormat: 'json' }, ctx);
  assertShape(ledger, {
    hash: 'string', sequence: 'number', ledgerCloseTime: 'string',
    headerXdr: 'string', headerJson: 'object', metadataXdr: 'string', metadataJson: 'object',
  }, 'json ledger');
  assert.equal(ledger.headerXdr, '');
  assert.equal(ledger.metadataXdr, '');
  assert.equal(ledger.headerJson.header.ledger_seq, LAST_LEDGER);
  assert.equal(ledger.headerJson.hash, ledger.hash);
  assert.ok('v2' in ledger.metadataJson);
});

test('an empty store is an internal error', async () => {
  const empty = openEmptyStore();
  try {
    await assertRpcError(getLedgers, { startLedger: 1 }, contextFor(empty.store), -32603, 'DB is empty');
  } finally {
    empty.close();
  }
});
