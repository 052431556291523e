// Simulation picks the host line by the ledger's protocol: the current line (28, also apply's) or
// the previous one (27) for followed networks not yet upgraded; any other protocol is an error
// result. `hostProtocol` is the addon's own label of the line it picked; the evidence that the
// protocol-27 host really ran comes from the host itself: the current host refuses protocol-27
// ledgers outright (`HostError: Error(Context, InternalError)`, its "ledger protocol version too
// old for host" check; seen by routing 27 to the current line once), so no simulation at 27 could
// succeed without the previous line, and only a protocol-27 host refuses a protocol-28 contract as
// "newer than host".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { Simulator, hostInfo } from '../../../src/host/index.ts';
import { sha256, toBase64, type LedgerEntry } from '../../../src/xdr/codec.ts';
import {
  PASSPHRASE, ROOT, codeKey, contractId, createTestDb, decodeScVal, instanceEntry, instanceKey, invokeOp,
  testContractWasm, ttlEntry, uploadOp, type TestDb,
} from './support.ts';

const SEED = new Uint8Array(32).fill(9);

let db27: TestDb;
let sim27: Simulator;
let db26: TestDb;
let sim26: Simulator;

before(() => {
  db27 = createTestDb(27);
  sim27 = new Simulator({ dbPath: db27.path, networkPassphrase: PASSPHRASE });
  db26 = createTestDb(26);
  sim26 = new Simulator({ dbPath: db26.path, networkPassphrase: PASSPHRASE });
});

after(() => {
  sim27?.close();
  db27?.dispose();
  sim26?.close();
  db26?.dispose();
});

test('the addon simulates protocols 27 and 28 and applies 28', () => {
  const info = hostInfo();
  assert.deepEqual(info.simulationProtocols, [27, 28]);
  assert.equal(info.protocolVersion, 28);
});

test('a protocol-27 ledger is simulated by the protocol-27 host: upload, invoke, footprint', async () => {
  const wasm = testContractWasm(27);
  const wasmHash = sha256(wasm);
  const upload = await sim27.invoke({ operationXdr: uploadOp(wasm), sourceAccount: ROOT }, { prngSeed: SEED });
  assert.equal(upload.error, undefined, upload.error);
  assert.equal(upload.hostProtocol, 27);
  assert.deepEqual(decodeScVal(upload.result!.xdr), { type: 13, bytes: wasmHash });
  const created = upload.stateChanges.find((c) => c.type === 'created');
  assert.ok(created?.after, 'upload creates the code entry');
  const codeEntry: LedgerEntry = xdr.LedgerEntry.schema.decode(Buffer.from(created.after, 'base64'));
  const live = 100_000;
  const seq = db27.closeLedger([
    codeEntry, ttlEntry(codeKey(wasmHash), live),
    instanceEntry(contractId, wasmHash), ttlEntry(instanceKey(contractId), live),
  ]);

  const hello = await sim27.invoke({ operationXdr: invokeOp(contractId, 'hello', []), sourceAccount: ROOT });
  assert.equal(hello.error, undefined, hello.error);
  assert.equal(hello.hostProtocol, 27);
  assert.equal(hello.latestLedger, seq);
  assert.deepEqual(decodeScVal(hello.result!.xdr), { type: 3, u32: 42 });
  assert.ok(Number(hello.minResourceFee) > 0);

  const extendOp = toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 25, extendFootprintTtlOp: { ext: { v: 0 }, extendTo: 200_000 } } } as xdr.OperationWire));
  const footprintXdr = toBase64(xdr.LedgerFootprint.schema.encode({ readOnly: [codeKey(wasmHash)], readWrite: [] }));
  const extended = await sim27.footprint({ operationXdr: extendOp, footprintXdr });
  assert.equal(extended.error, undefined, extended.error);
  assert.equal(extended.hostProtocol, 27);
  assert.ok(Number(extended.minResourceFee) > 0);
});

test('the protocol-27 host refuses a protocol-28 contract, as only it would', async () => {
  const r = await sim27.invoke({ operationXdr: uploadOp(testContractWasm(28)), sourceAccount: ROOT });
  assert.equal(r.hostProtocol, 27);
  assert.match(r.error ?? '', /contract protocol number is newer than host/);
});

test('a ledger at a protocol no host line runs is an error result naming the supported ones', async () => {
  const invoke = await sim26.invoke({ operationXdr: invokeOp(contractId, 'hello', []), sourceAccount: ROOT });
  assert.equal(invoke.error, 'unsupported protocol version: 26 (this build simulates protocols 27 and 28)');
  assert.equal(invoke.latestLedger, 1);
  assert.equal(invoke.hostProtocol, undefined);
  const restoreOp = toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 26, restoreFootprintOp: { ext: { v: 0 } } } } as xdr.OperationWire));
  const footprintXdr = toBase64(xdr.LedgerFootprint.schema.encode({ readOnly: [], readWrite: [codeKey(sha256(Buffer.from('x')))] }));
  const restore = await sim26.footprint({ operationXdr: restoreOp, footprintXdr });
  assert.match(restore.error ?? '', /^unsupported protocol version: 26 /);
});

test('a protocol-28 ledger still runs on the current line', async () => {
  const db = createTestDb();
  const sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  try {
    const r = await sim.invoke({ operationXdr: uploadOp(testContractWasm()), sourceAccount: ROOT });
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.hostProtocol, 28);
  } finally {
    sim.close();
    db.dispose();
  }
});
