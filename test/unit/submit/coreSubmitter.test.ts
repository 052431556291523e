// sendTransaction on a followed network: the real CoreSubmitter against an HTTP server that answers
// as stellar-core's /tx does, and the method's mapping of each answer (reference-node.md section 6).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type Server } from 'node:http';
import { xdr } from '@stellar/stellar-sdk';
import { sendTransaction } from '../../../src/rpc/methods/sendTransaction.ts';
import { CoreSubmitter, joinDiagnosticEvents, splitDiagnosticEvents } from '../../../src/submit/coreSubmitter.ts';
import {
  LAST_LEDGER, PUBNET_PASSPHRASE, assertRpcError, call, contextFor, envelopesByHash, ledgerMeta, openStore, type TestStore,
} from '../methods/support/pubnet.ts';

let db: TestStore;
let core: Server;
let coreUrl: string;
/** What the stand-in core answers next, and the blobs it was sent. */
let answer: unknown = {};
let delayMs = 0;
const blobs: string[] = [];

const diagnostic = (n: number): Uint8Array => xdr.DiagnosticEvent.schema.encode({
  inSuccessfulContractCall: false,
  event: { ext: { v: 0 }, contractId: null, type: 2, body: { v: 0, v0: { topics: [{ type: 3, u32: n }], data: { type: 1 } } } },
});

before(async () => {
  db = openStore(LAST_LEDGER - 1, LAST_LEDGER);
  core = createServer((req, res) => {
    const url = new URL(req.url!, 'http://core');
    if (url.pathname !== '/tx') { res.statusCode = 404; res.end(); return; }
    blobs.push(url.searchParams.get('blob')!);
    setTimeout(() => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(answer)); }, delayMs);
  });
  await new Promise<void>((r) => core.listen(0, '127.0.0.1', r));
  coreUrl = `http://127.0.0.1:${(core.address() as { port: number }).port}`;
});
after(() => { db.close(); core.close(); });

const [[hashHex, fixture]] = envelopesByHash(LAST_LEDGER);
const ctx = () => contextFor(db.store, { submitter: new CoreSubmitter({ coreUrl, timeoutSeconds: 0.5, networkPassphrase: PUBNET_PASSPHRASE }) });
const closeTime = String(ledgerMeta(LAST_LEDGER).ledgerHeader.header.scpValue.closeTime);

test('PENDING, DUPLICATE, TRY_AGAIN_LATER pass through with the hash recomputed here; the envelope is sent as core expects', async () => {
  for (const status of ['PENDING', 'DUPLICATE', 'TRY_AGAIN_LATER']) {
    answer = { status };
    const r = await call(sendTransaction, { transaction: fixture.envelopeXdr }, ctx());
    assert.deepEqual(r, { status, hash: hashHex, latestLedger: LAST_LEDGER, latestLedgerCloseTime: closeTime });
  }
  assert.equal(blobs.at(-1), fixture.envelopeXdr, 'the blob is the base64 envelope');
});

test('ERROR: the TransactionResult and each diagnostic event of core\'s array, as XDR and as JSON', async () => {
  const result = xdr.TransactionResult.schema.encode({ feeCharged: 100n, result: { code: -5 }, ext: { v: 0 } });
  const events = [diagnostic(1), diagnostic(2)];
  answer = { status: 'ERROR', error: Buffer.from(result).toString('base64'), diagnostic_events: Buffer.from(joinDiagnosticEvents(events)).toString('base64') };
  const r = await call(sendTransaction, { transaction: fixture.envelopeXdr }, ctx());
  assert.equal(r.status, 'ERROR');
  assert.equal(r.errorResultXdr, Buffer.from(result).toString('base64'));
  assert.deepEqual(r.diagnosticEventsXdr, events.map((e) => Buffer.from(e).toString('base64')));
  const json = await call(sendTransaction, { transaction: fixture.envelopeXdr, xdrFormat: 'json' }, ctx());
  assert.equal(json.errorResultJson.result, 'tx_bad_seq');
  assert.equal(json.diagnosticEventsJson.length, 2);
});

test('an exception, an unknown status, a non-JSON answer and a timeout are -32603 with the reference\'s messages', async () => {
  answer = { exception: 'boom' };
  await assertRpcError(sendTransaction, { transaction: fixture.envelopeXdr }, ctx(), -32603, 'received exception from stellar-core');
  answer = { status: 'WHATEVER' };
  await assertRpcError(sendTransaction, { transaction: fixture.envelopeXdr }, ctx(), -32603, 'invalid status from stellar-core');
  answer = 'not an object';
  await assertRpcError(sendTransaction, { transaction: fixture.envelopeXdr }, ctx(), -32603, 'invalid status from stellar-core');
  answer = { status: 'PENDING' };
  delayMs = 1500;
  try {
    await assertRpcError(sendTransaction, { transaction: fixture.envelopeXdr }, ctx(), -32603, 'could not submit transaction to stellar-core');
  } finally { delayMs = 0; }
});

test('diagnostic_events: split and joined back byte for byte; trailing or missing bytes are errors', () => {
  const events = [diagnostic(7), diagnostic(8), diagnostic(9)];
  const joined = joinDiagnosticEvents(events);
  assert.deepEqual(splitDiagnosticEvents(joined).map((e) => Buffer.from(e)), events.map((e) => Buffer.from(e)));
  assert.deepEqual(splitDiagnosticEvents(joinDiagnosticEvents([])), []);
  assert.throws(() => splitDiagnosticEvents(Buffer.concat([joined, Buffer.alloc(4)])), /bytes after 3 events/);
  assert.throws(() => splitDiagnosticEvents(joined.subarray(0, joined.length - 2)));
});
