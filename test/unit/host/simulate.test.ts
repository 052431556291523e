// The native host against a real node database: simulations of a hand-assembled contract, host
// errors as the host's own text, footprint operations, and simulations running off the event loop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { Simulator, loadNative } from '../../../src/host/index.ts';
import { encodeLedgerKey, sha256, toBase64, type LedgerEntry } from '../../../src/xdr/codec.ts';
import {
  PASSPHRASE, ROOT, codeKey, contractId, counterEntry, counterKey, createTestDb, decodeScVal, envelope, instanceEntry,
  instanceKey, invokeOp, rootAccount, testContractWasm, ttlEntry, u32, uploadOp, type TestDb,
} from './support.ts';

const SEED = new Uint8Array(32).fill(7);

let db: TestDb;
let sim: Simulator;
let wasm: Uint8Array;
let wasmHash: Uint8Array;
let codeEntry: LedgerEntry;

const txData = (b64: string): xdr.SorobanTransactionDataWire => xdr.SorobanTransactionData.schema.decode(Buffer.from(b64, 'base64'));
const keyB64 = (k: Parameters<typeof encodeLedgerKey>[0]): string => toBase64(encodeLedgerKey(k));

before(async () => {
  db = createTestDb();
  sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  wasm = testContractWasm();
  wasmHash = sha256(wasm);
  // Upload through the host itself: the created ContractCode entry is what apply would write.
  const upload = await sim.invoke({ operationXdr: uploadOp(wasm), sourceAccount: ROOT }, { prngSeed: SEED });
  assert.equal(upload.error, undefined, upload.error);
  const created = upload.stateChanges.find((c) => c.type === 'created');
  assert.ok(created?.after, 'upload creates the code entry');
  codeEntry = xdr.LedgerEntry.schema.decode(Buffer.from(created.after, 'base64'));
  const live = 100_000;
  db.closeLedger([
    codeEntry, ttlEntry(codeKey(wasmHash), live),
    instanceEntry(contractId, wasmHash), ttlEntry(instanceKey(contractId), live),
  ]);
});

after(() => {
  sim?.close();
  db?.dispose();
});

test('the genesis network configuration has every ConfigSetting, with the testnet values', () => {
  const entries = loadNative().genesisConfigSettingEntries(1, 28).map((b) => xdr.LedgerEntry.schema.decode(b));
  assert.deepEqual(entries.map((e) => (e.data.type === 8 ? e.data.configSetting.configSettingID : -1)), [...Array(21).keys()]);
  for (const e of entries) {
    if (e.data.type !== 8) continue;
    const s = e.data.configSetting;
    if (s.configSettingID === 6 || s.configSettingID === 7) {
      const params = s.configSettingID === 6 ? s.contractCostParamsCpuInsns : s.contractCostParamsMemBytes;
      assert.equal(params.length, 86);
    }
    if (s.configSettingID === 1) assert.equal(s.contractCompute.txMaxInstructions, 400_000_000n);
    if (s.configSettingID === 10) {
      assert.equal(s.stateArchivalSettings.minPersistentTtl, 120_960);
      assert.equal(s.stateArchivalSettings.minTemporaryTtl, 720);
    }
    if (s.configSettingID === 12) assert.equal(s.liveSorobanStateSizeWindow.length, 30);
  }
  assert.ok(loadNative().hostInfo().protocols.includes(28));
});

test('uploading Wasm simulates to a ContractCode entry, footprint and a resource fee', async () => {
  // Another module than the one already stored (a second custom section changes its hash).
  const other = new Uint8Array([...wasm, 0x00, 0x06, 0x05, ...Buffer.from('other')]);
  const otherHash = sha256(other);
  const r = await sim.invoke({ operationXdr: uploadOp(other), sourceAccount: ROOT });
  assert.equal(r.error, undefined);
  assert.deepEqual(decodeScVal(r.result!.xdr), { type: 13, bytes: otherHash });
  const data = txData(r.transactionData!);
  assert.deepEqual(data.resources.footprint.readWrite.map((k) => toBase64(encodeLedgerKey(k))), [keyB64(codeKey(otherHash))]);
  assert.ok(data.resources.writeBytes >= other.length);
  assert.ok(Number(r.minResourceFee) > 0);
  assert.equal(r.minResourceFee, String(data.resourceFee));
  assert.equal(r.latestLedger, 2);
  assert.deepEqual(r.stateChanges.map((c) => [c.type, c.key]), [['created', keyB64(codeKey(otherHash))]]);

  // The module already stored: nothing to write, the code is only read.
  const again = await sim.invoke({ operationXdr: uploadOp(wasm), sourceAccount: ROOT });
  assert.equal(again.error, undefined);
  const againData = txData(again.transactionData!);
  assert.deepEqual(againData.resources.footprint.readWrite, []);
  assert.deepEqual(againData.resources.footprint.readOnly.map((k) => toBase64(encodeLedgerKey(k))), [keyB64(codeKey(wasmHash))]);
});

test('an invocation returns its value, footprint, fee, cost and diagnostic events', async () => {
  const r = await sim.invoke({ operationXdr: invokeOp(contractId, 'add', [u32(2), u32(3)]), sourceAccount: ROOT });
  assert.equal(r.error, undefined);
  assert.deepEqual(decodeScVal(r.result!.xdr), u32(5));
  assert.deepEqual(r.result!.auth, []);
  const data = txData(r.transactionData!);
  const readOnly = data.resources.footprint.readOnly.map((k) => toBase64(encodeLedgerKey(k))).sort();
  assert.deepEqual(readOnly, [keyB64(instanceKey(contractId)), keyB64(codeKey(wasmHash))].sort());
  assert.deepEqual(data.resources.footprint.readWrite, []);
  assert.ok(data.resources.instructions > 50_000);
  assert.ok(Number(r.minResourceFee) > 0);
  assert.equal(r.minResourceFee, String(data.resourceFee));
  assert.ok(Number(r.cost.cpuInsns) > 0 && Number(r.cost.memBytes) > 0);
  assert.ok(r.events.length >= 2, 'fn_call and fn_return diagnostic events');
  assert.deepEqual(r.stateChanges, []);
});

test('a contract growing its linear memory finds the new pages zero and its data kept', async () => {
  // The addon maps large zeroed blocks (linear memories) straight from the kernel and grows them in
  // place (native/src/allocator.rs): this runs that path in simulation, twice on one host thread.
  for (let i = 0; i < 2; i++) {
    const r = await sim.invoke({ operationXdr: invokeOp(contractId, 'grow', []), sourceAccount: ROOT });
    assert.equal(r.error, undefined, r.error);
    assert.deepEqual(decodeScVal(r.result!.xdr), u32(0x1239));
  }
});

test('the whole envelope can be given instead of the operation', async () => {
  const op = invokeOp(contractId, 'hello', []);
  const fromEnvelope = await sim.invoke({ transactionXdr: envelope(op, rootAccount) }, { prngSeed: SEED });
  const fromOp = await sim.invoke({ operationXdr: op, sourceAccount: ROOT }, { prngSeed: SEED });
  assert.equal(fromEnvelope.error, undefined);
  assert.deepEqual(decodeScVal(fromEnvelope.result!.xdr), u32(42));
  assert.equal(fromEnvelope.transactionData, fromOp.transactionData);
  assert.equal(fromEnvelope.minResourceFee, fromOp.minResourceFee);
});

test('a storage write shows in the read-write footprint and the state changes', async () => {
  const r = await sim.invoke({ operationXdr: invokeOp(contractId, 'incr', [u32(5)]), sourceAccount: ROOT });
  assert.equal(r.error, undefined, r.error);
  assert.deepEqual(decodeScVal(r.result!.xdr), u32(5));
  const data = txData(r.transactionData!);
  assert.deepEqual(data.resources.footprint.readWrite.map((k) => toBase64(encodeLedgerKey(k))), [keyB64(counterKey(contractId))]);
  assert.ok(data.resources.writeBytes > 0);
  assert.equal(r.stateChanges.length, 1);
  assert.equal(r.stateChanges[0].type, 'created');
  assert.equal(r.stateChanges[0].key, keyB64(counterKey(contractId)));
});

test('a contract error comes back as the host\'s text, with events and no result', async () => {
  const r = await sim.invoke({ operationXdr: invokeOp(contractId, 'fail', []), sourceAccount: ROOT });
  assert.match(r.error ?? '', /^HostError: Error\(Contract, #1\)/);
  assert.match(r.error ?? '', /Event log \(newest first\):/);
  assert.equal(r.result, undefined);
  assert.equal(r.transactionData, undefined);
  assert.equal(r.minResourceFee, '0');
  assert.ok(r.events.length > 0);
  assert.equal(r.latestLedger, 2);
});

test('a trap, a missing contract and a missing function are host errors too', async () => {
  const trap = await sim.invoke({ operationXdr: invokeOp(contractId, 'trap', []), sourceAccount: ROOT });
  assert.match(trap.error ?? '', /^HostError: Error\(WasmVm, InvalidAction\)/);
  const missing = await sim.invoke({ operationXdr: invokeOp(sha256(Buffer.from('nobody')), 'hello', []), sourceAccount: ROOT });
  assert.match(missing.error ?? '', /^HostError: Error\(Storage, MissingValue\)/);
  const noFn = await sim.invoke({ operationXdr: invokeOp(contractId, 'nope', []), sourceAccount: ROOT });
  assert.match(noFn.error ?? '', /^HostError: Error\(WasmVm, /);
});

test('readKeys: every key the host asked the database for, found or not, failures included (a fork fetches them)', async () => {
  const ok = await sim.invoke({ operationXdr: invokeOp(contractId, 'incr', [u32(1)]), sourceAccount: ROOT });
  assert.equal(ok.error, undefined, ok.error);
  for (const k of [instanceKey(contractId), codeKey(wasmHash), counterKey(contractId)]) assert.ok(ok.readKeys?.includes(keyB64(k)), 'read');
  const nobody = sha256(Buffer.from('nobody'));
  const missing = await sim.invoke({ operationXdr: invokeOp(nobody, 'hello', []), sourceAccount: ROOT });
  assert.match(missing.error ?? '', /MissingValue/);
  assert.ok(missing.readKeys?.includes(keyB64(instanceKey(nobody))), 'the missing instance is reported');
  assert.equal(new Set(missing.readKeys).size, missing.readKeys!.length, 'once each');
});

test('a loop that exhausts the budget fails with a budget error', async () => {
  const r = await sim.invoke({ operationXdr: invokeOp(contractId, 'spin', []), sourceAccount: ROOT });
  assert.match(r.error ?? '', /^HostError: Error\(Budget, ExceededLimit\)/);
  assert.ok(Number(r.cost.cpuInsns) >= 400_000_000);
});

test('bad input becomes an error result, not a rejection', async () => {
  const garbage = await sim.invoke({ operationXdr: 'AAAA////', sourceAccount: ROOT });
  assert.match(garbage.error ?? '', /could not decode the operation/);
  const noSource = await sim.invoke({ operationXdr: invokeOp(contractId, 'hello', []) });
  assert.match(noSource.error ?? '', /source account/);
  const wrongOp = await sim.invoke({ transactionXdr: envelope(toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 11, bumpSequenceOp: { bumpTo: 5n } } } as xdr.OperationWire)), rootAccount) });
  assert.match(wrongOp.error ?? '', /unsupported operation type BumpSequence/);
  const noDb = await new Simulator({ dbPath: '/nonexistent/node.sqlite', networkPassphrase: PASSPHRASE })
    .invoke({ operationXdr: invokeOp(contractId, 'hello', []), sourceAccount: ROOT });
  assert.match(noDb.error ?? '', /does not exist/);
  assert.equal(noDb.latestLedger, 0);
  assert.throws(() => loadNative().simulateInvoke({ dbPath: db.path, networkPassphrase: PASSPHRASE, authMode: 'bogus' as 'record', operationXdr: 'x' }), /invalid auth mode/);
  await assert.rejects(sim.invoke({ operationXdr: 'x' }, { authMode: 'bogus' as 'record' }), /invalid auth mode/);
});

test('recording auth for a contract created from the source account records its authorization', async () => {
  const create: xdr.OperationWire = {
    sourceAccount: null,
    body: {
      type: 24,
      invokeHostFunctionOp: {
        hostFunction: {
          type: 3,
          createContractV2: {
            contractIdPreimage: { type: 0, fromAddress: { address: { type: 0, accountId: rootAccount }, salt: new Uint8Array(32).fill(1) } },
            executable: { type: 0, wasmHash },
            constructorArgs: [],
          },
        },
        auth: [],
      },
    },
  };
  const opB64 = toBase64(xdr.Operation.schema.encode(create));
  const r = await sim.invoke({ operationXdr: opB64, sourceAccount: ROOT });
  assert.equal(r.error, undefined, r.error);
  assert.equal(decodeScVal(r.result!.xdr).type, 18, 'returns the new contract address');
  assert.equal(r.result!.auth.length, 1);
  const auth = xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(r.result!.auth[0], 'base64'));
  assert.equal(auth.credentials.type, 0, 'the source account authorizes with source-account credentials');
  assert.ok(r.stateChanges.some((c) => c.type === 'created'), 'the instance is created');
  // Enforcing needs the entries: without them the call is unauthorized; with the recorded one it passes.
  const unauthorized = await sim.invoke({ operationXdr: opB64, sourceAccount: ROOT }, { authMode: 'enforce' });
  assert.match(unauthorized.error ?? '', /^HostError: Error\(Auth, InvalidAction\)/);
  const signed: xdr.OperationWire = { ...create, body: { type: 24, invokeHostFunctionOp: { ...(create.body as { invokeHostFunctionOp: xdr.InvokeHostFunctionOpWire }).invokeHostFunctionOp, auth: [auth] } } };
  const enforced = await sim.invoke({ operationXdr: toBase64(xdr.Operation.schema.encode(signed)), sourceAccount: ROOT });
  assert.equal(enforced.error, undefined, enforced.error);
  assert.deepEqual(enforced.result!.auth, r.result!.auth, 'enforcing passes the entries through');
});

test('extending a TTL and restoring: resources, fee, and a restore preamble for archived entries', async () => {
  const extendOp = toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 25, extendFootprintTtlOp: { ext: { v: 0 }, extendTo: 500_000 } } } as xdr.OperationWire));
  const restoreOp = toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 26, restoreFootprintOp: { ext: { v: 0 } } } } as xdr.OperationWire));
  const footprint = (readOnly: Parameters<typeof encodeLedgerKey>[0][], readWrite: Parameters<typeof encodeLedgerKey>[0][]) =>
    toBase64(xdr.LedgerFootprint.schema.encode({ readOnly, readWrite }));

  const extend = await sim.footprint({ operationXdr: extendOp, footprintXdr: footprint([codeKey(wasmHash)], []) });
  assert.equal(extend.error, undefined, extend.error);
  assert.ok(Number(extend.minResourceFee) > 0);
  assert.equal(extend.restorePreamble, undefined);

  // An archived counter: its TTL ended before the current ledger.
  const seq = db.closeLedger([counterEntry(sha256(Buffer.from('archived')), 9), ttlEntry(counterKey(sha256(Buffer.from('archived'))), 2)]);
  const archived = counterKey(sha256(Buffer.from('archived')));
  const extendArchived = await sim.footprint({ operationXdr: extendOp, footprintXdr: footprint([archived], []) });
  assert.equal(extendArchived.error, undefined, extendArchived.error);
  assert.equal(extendArchived.latestLedger, seq);
  assert.ok(extendArchived.restorePreamble, 'restore first');
  assert.ok(Number(extendArchived.restorePreamble.minResourceFee) > 0);
  const preamble = txData(extendArchived.restorePreamble.transactionData);
  assert.deepEqual(preamble.resources.footprint.readWrite.map((k) => toBase64(encodeLedgerKey(k))), [keyB64(archived)]);

  const restore = await sim.footprint({ transactionXdr: envelope(restoreOp, rootAccount, {
    ext: { v: 0 }, resourceFee: 0n, resources: { footprint: { readOnly: [], readWrite: [archived] }, instructions: 0, diskReadBytes: 0, writeBytes: 0 },
  }) });
  assert.equal(restore.error, undefined, restore.error);
  assert.ok(Number(restore.minResourceFee) > 0);
  assert.ok(txData(restore.transactionData!).resources.writeBytes > 0);
});

test('8 concurrent simulations finish while the event loop keeps running', async () => {
  // timers run while the simulations are in flight: had they run on this thread, every result would
  // settle (in microtasks) before the first timer callback
  let ticksBeforeResults = -1;
  let ticks = 0;
  const timer = setInterval(() => { ticks++; }, 1);
  try {
    const calls = Array.from({ length: 8 }, (_, i) => i % 2 === 0
      ? sim.invoke({ operationXdr: invokeOp(contractId, 'spin', []), sourceAccount: ROOT })
      : sim.invoke({ operationXdr: invokeOp(contractId, 'add', [u32(i), u32(1)]), sourceAccount: ROOT }));
    assert.ok(sim.load.running <= 3, 'the simulator bounds how many run at once');
    const results = await Promise.all(calls);
    ticksBeforeResults = ticks;
    results.forEach((r, i) => {
      if (i % 2 === 0) assert.match(r.error ?? '', /Budget, ExceededLimit/);
      else assert.deepEqual(decodeScVal(r.result!.xdr), u32(i + 1));
    });
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticksBeforeResults >= 2, `the timer ran ${ticksBeforeResults} times while the simulations ran`);
});

test('a panic on a host thread becomes an error and the process carries on', async () => {
  assert.equal(await loadNative().selfTestPanic('boom'), 'panic during self-test: boom');
  const r = await sim.invoke({ operationXdr: invokeOp(contractId, 'hello', []), sourceAccount: ROOT });
  assert.deepEqual(decodeScVal(r.result!.xdr), u32(42));
});
