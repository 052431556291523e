import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import { sendTransaction } from '../../../src/rpc/methods/sendTransaction.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import type { SubmitResult, TransactionSubmitter } from '../../../src/submit/transactionSubmitter.ts';
import {
  LAST_LEDGER, assertDecimalString, assertRpcError, assertShape, call, contextFor, envelopesByHash, ledgerMeta,
  openEmptyStore, openStore, type TestStore,
} from './support/pubnet.ts';

/** The seam to the network, scripted per test; it records what it was given. */
class ScriptedSubmitter implements TransactionSubmitter {
  readonly received: Uint8Array[] = [];
  next: SubmitResult | Error;
  constructor(next: SubmitResult | Error) { this.next = next; }
  async submit(envelopeXdr: Uint8Array): Promise<SubmitResult> {
    this.received.push(envelopeXdr);
    if (this.next instanceof Error) throw this.next;
    return this.next;
  }
}

let db: TestStore;
let envelopeXdr: string;
let hash: Uint8Array;
before(() => {
  db = openStore(LAST_LEDGER - 1, LAST_LEDGER);
  const [[hex, env]] = envelopesByHash(LAST_LEDGER);
  envelopeXdr = env.envelopeXdr;
  hash = Buffer.from(hex, 'hex');
});
after(() => db.close());

const contextWith = (submitter: TransactionSubmitter): MethodContext => contextFor(db.store, { submitter });
const closeTime = String(ledgerMeta(LAST_LEDGER).ledgerHeader.header.scpValue.closeTime);

test('PENDING: the decoded envelope goes to the submitter; hash and latest ledger come back', async () => {
  const submitter = new ScriptedSubmitter({ status: 'PENDING', hash });
  const result = await call(sendTransaction, { transaction: envelopeXdr }, contextWith(submitter));
  assert.deepEqual(result, { status: 'PENDING', hash: Buffer.from(hash).toString('hex'), latestLedger: LAST_LEDGER, latestLedgerCloseTime: closeTime });
  assertDecimalString(result.latestLedgerCloseTime, 'latestLedgerCloseTime');
  assert.equal(submitter.received.length, 1);
  assert.equal(Buffer.from(submitter.received[0]).toString('base64'), envelopeXdr);
});

test('DUPLICATE and TRY_AGAIN_LATER carry no error fields', async () => {
  for (const status of ['DUPLICATE', 'TRY_AGAIN_LATER'] as const) {
    const result = await call(sendTransaction, { transaction: envelopeXdr }, contextWith(new ScriptedSubmitter({
      status, hash, errorResult: new Uint8Array(8), diagnosticEvents: [],
    })));
    assertShape(result, { status: 'string', hash: 'string', latestLedger: 'number', latestLedgerCloseTime: 'string' }, status);
    assert.equal(result.status, status);
  }
});

const txBadSeq: xdr.TransactionResultWire = { feeCharged: 100n, result: { code: -5 }, ext: { v: 0 } };
const diagnostic: xdr.DiagnosticEventWire = {
  inSuccessfulContractCall: false,
  event: { ext: { v: 0 }, contractId: null, type: 2, body: { v: 0, v0: { topics: [{ type: 3, u32: 1 }], data: { type: 1 } } } },
};

test('ERROR: errorResultXdr and one base64 DiagnosticEvent per event', async () => {
  const errorResult = xdr.TransactionResult.schema.encode(txBadSeq);
  const event = xdr.DiagnosticEvent.schema.encode(diagnostic);
  const result = await call(sendTransaction, { transaction: envelopeXdr }, contextWith(new ScriptedSubmitter({
    status: 'ERROR', hash, errorResult, diagnosticEvents: [event, event],
  })));
  assertShape(result, {
    errorResultXdr: 'string', diagnosticEventsXdr: 'array', status: 'string', hash: 'string', latestLedger: 'number', latestLedgerCloseTime: 'string',
  }, 'ERROR result');
  assert.equal(xdr.TransactionResult.fromXdr(result.errorResultXdr, 'base64').result.type, 'txBadSeq');
  assert.equal(result.diagnosticEventsXdr.length, 2);
  xdr.DiagnosticEvent.fromXdr(result.diagnosticEventsXdr[0], 'base64');

  const bare = await call(sendTransaction, { transaction: envelopeXdr }, contextWith(new ScriptedSubmitter({ status: 'ERROR', hash, errorResult })));
  assert.equal('diagnosticEventsXdr' in bare, false, 'no events: the field is omitted');
});

test('ERROR with xdrFormat json', async () => {
  const result = await call(sendTransaction, { transaction: envelopeXdr, xdrFormat: 'json' }, contextWith(new ScriptedSubmitter({
    status: 'ERROR', hash, errorResult: xdr.TransactionResult.schema.encode(txBadSeq),
    diagnosticEvents: [xdr.DiagnosticEvent.schema.encode(diagnostic)],
  })));
  assertShape(result, {
    errorResultJson: 'object', diagnosticEventsJson: 'array', status: 'string', hash: 'string', latestLedger: 'number', latestLedgerCloseTime: 'string',
  }, 'json ERROR result');
  assert.equal(result.errorResultJson.fee_charged, '100');
});

/** A well-formed V1 envelope uploading `size` bytes of wasm. */
function uploadEnvelope(size: number): string {
  const [[, fixture]] = envelopesByHash(LAST_LEDGER);
  const env = fixture.envelope.type === 2 ? fixture.envelope : assert.fail('a V1 envelope');
  const op: xdr.OperationWire = {
    sourceAccount: null,
    body: { type: 24, invokeHostFunctionOp: { hostFunction: { type: 2, wasm: new Uint8Array(size) }, auth: [] } },
  };
  const big: xdr.TransactionEnvelopeWire = { type: 2, v1: { ...env.v1, tx: { ...env.v1.tx, operations: [op] } } };
  return Buffer.from(xdr.TransactionEnvelope.schema.encode(big)).toString('base64');
}

test('the 1 MiB cap on the decoded envelope', async () => {
  const submitter = new ScriptedSubmitter({ status: 'PENDING', hash });
  const ctx = contextWith(submitter);
  assert.equal((await call(sendTransaction, { transaction: uploadEnvelope(900 * 1024) }, ctx)).status, 'PENDING');
  await assertRpcError(sendTransaction, { transaction: uploadEnvelope(1024 * 1024) }, ctx, -32602, 'invalid_xdr');
  assert.equal(submitter.received.length, 1);
});

test('invalid_xdr: not base64, not an envelope, trailing bytes, truncated', async () => {
  const submitter = new ScriptedSubmitter({ status: 'PENDING', hash });
  const ctx = contextWith(submitter);
  const bytes = Buffer.from(envelopeXdr, 'base64');
  for (const transaction of ['not base64', 'AAAA', Buffer.concat([bytes, Buffer.alloc(4)]).toString('base64'),
    envelopeXdr.slice(0, -4), '']) {
    await assertRpcError(sendTransaction, { transaction }, ctx, -32602, 'invalid_xdr');
  }
  await assertRpcError(sendTransaction, {}, ctx, -32602, 'invalid_xdr');
  assert.equal(submitter.received.length, 0, 'nothing undecodable is submitted');
  await assertRpcError(sendTransaction, { transaction: envelopeXdr, xdrFormat: 'b64' }, ctx, -32602,
    "got 'b64': expected base64, json for optional 'xdrFormat'");
});

test('submitter failures are -32603', async () => {
  await assertRpcError(sendTransaction, { transaction: envelopeXdr }, contextWith(new ScriptedSubmitter(new Error('connection refused'))),
    -32603, 'could not submit transaction to stellar-core');
  await assertRpcError(sendTransaction, { transaction: envelopeXdr },
    contextWith(new ScriptedSubmitter({ status: 'SOMETHING' as 'PENDING', hash })), -32603, 'invalid status from stellar-core');
});

test('an empty store reports ledger 0', async () => {
  const empty = openEmptyStore();
  try {
    const result = await call(sendTransaction, { transaction: envelopeXdr },
      contextFor(empty.store, { submitter: new ScriptedSubmitter({ status: 'PENDING', hash }) }));
    assert.equal(result.latestLedger, 0);
    assert.equal(result.latestLedgerCloseTime, '0');
  } finally {
    empty.close();
  }
});
