// The addon carries a host line per protocol it runs (native/src/protocols.rs: 28, 29, 30), and
// simulation and apply pick the line by the ledger's protocol; any other protocol is an error result.
// `hostProtocol` is the addon's own label of the line it picked; the evidence that each protocol's
// host really ran comes from the hosts themselves: a host refuses ledgers of any other protocol
// outright ("ledger protocol version too old/new for host"), so a simulation at 28, 29 or 30 can
// only succeed on that protocol's line; and only a protocol-28 host refuses a protocol-29 contract
// as "newer than host".
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { Simulator, genesisConfigSettingEntries, hostInfo, loadNative } from '../../../src/host/index.ts';
import { DEFAULT_PROTOCOL } from '../../../src/ledger/protocols.ts';
import { sha256, toBase64, type LedgerEntry } from '../../../src/xdr/codec.ts';
import {
  PASSPHRASE, ROOT, codeKey, contractId, createTestDb, decodeScVal, instanceEntry, instanceKey, invokeOp,
  testContractWasm, ttlEntry, uploadOp, type TestDb,
} from './support.ts';

const SEED = new Uint8Array(32).fill(9);
const PROTOCOLS = [28, 29, 30];

test('the addon runs protocols 28, 29 and 30, each on its own host line; new networks start at 30', () => {
  const info = hostInfo();
  assert.deepEqual(info.protocols, PROTOCOLS);
  assert.deepEqual(info.simulationProtocols, PROTOCOLS);
  assert.equal(info.protocolVersion, 30);
  assert.equal(DEFAULT_PROTOCOL, 30, 'new networks start at the newest protocol');
  assert.equal(info.sorobanEnvHostVersion, '28.0.2, 29.0.2, 30.0.0');
  assert.equal(info.stellarXdrVersion, '30.0.0');
});

for (const protocol of PROTOCOLS) {
  describe(`a protocol-${protocol} ledger`, () => {
    let db: TestDb;
    let sim: Simulator;
    before(() => {
      db = createTestDb(protocol);
      sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
    });
    after(() => {
      sim?.close();
      db?.dispose();
    });

    test(`is simulated by the protocol-${protocol} host: upload, invoke, footprint`, async () => {
      const wasm = testContractWasm(protocol);
      const wasmHash = sha256(wasm);
      const upload = await sim.invoke({ operationXdr: uploadOp(wasm), sourceAccount: ROOT }, { prngSeed: SEED });
      assert.equal(upload.error, undefined, upload.error);
      assert.equal(upload.hostProtocol, protocol);
      assert.deepEqual(decodeScVal(upload.result!.xdr), { type: 13, bytes: wasmHash });
      const created = upload.stateChanges.find((c) => c.type === 'created');
      assert.ok(created?.after, 'upload creates the code entry');
      const codeEntry: LedgerEntry = xdr.LedgerEntry.schema.decode(Buffer.from(created.after, 'base64'));
      const live = 100_000;
      const seq = db.closeLedger([
        codeEntry, ttlEntry(codeKey(wasmHash), live),
        instanceEntry(contractId, wasmHash), ttlEntry(instanceKey(contractId), live),
      ]);

      const hello = await sim.invoke({ operationXdr: invokeOp(contractId, 'hello', []), sourceAccount: ROOT });
      assert.equal(hello.error, undefined, hello.error);
      assert.equal(hello.hostProtocol, protocol);
      assert.equal(hello.latestLedger, seq);
      assert.deepEqual(decodeScVal(hello.result!.xdr), { type: 3, u32: 42 });
      assert.ok(Number(hello.minResourceFee) > 0);

      const extendOp = toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 25, extendFootprintTtlOp: { ext: { v: 0 }, extendTo: 200_000 } } } as xdr.OperationWire));
      const footprintXdr = toBase64(xdr.LedgerFootprint.schema.encode({ readOnly: [codeKey(wasmHash)], readWrite: [] }));
      const extended = await sim.footprint({ operationXdr: extendOp, footprintXdr });
      assert.equal(extended.error, undefined, extended.error);
      assert.equal(extended.hostProtocol, protocol);
      assert.ok(Number(extended.minResourceFee) > 0);
    });
  });
}

test('the protocol-28 host refuses a protocol-29 contract, as only it would', async () => {
  const db = createTestDb(28);
  const sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  try {
    const r = await sim.invoke({ operationXdr: uploadOp(testContractWasm(29)), sourceAccount: ROOT });
    assert.equal(r.hostProtocol, 28);
    assert.match(r.error ?? '', /contract protocol number is newer than host/);
  } finally {
    sim.close();
    db.dispose();
  }
});

test('a ledger at a protocol no host line runs is an error result naming the supported ones', async () => {
  const db = createTestDb(27);
  const sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  try {
    const invoke = await sim.invoke({ operationXdr: invokeOp(contractId, 'hello', []), sourceAccount: ROOT });
    assert.equal(invoke.error, 'unsupported protocol version: 27 (this build simulates protocols 28 to 30)');
    assert.equal(invoke.latestLedger, 1);
    assert.equal(invoke.hostProtocol, undefined);
    const restoreOp = toBase64(xdr.Operation.schema.encode({ sourceAccount: null, body: { type: 26, restoreFootprintOp: { ext: { v: 0 } } } } as xdr.OperationWire));
    const footprintXdr = toBase64(xdr.LedgerFootprint.schema.encode({ readOnly: [], readWrite: [codeKey(sha256(Buffer.from('x')))] }));
    const restore = await sim.footprint({ operationXdr: restoreOp, footprintXdr });
    assert.match(restore.error ?? '', /^unsupported protocol version: 27 /);
  } finally {
    sim.close();
    db.dispose();
  }
});

test('a protocol-30 network starts with the nine ML-DSA cost types; an upgrade to 30 appends them, keeping the rest', () => {
  const costCounts = (entries: Uint8Array[]) => entries.map((b) => xdr.LedgerEntry.schema.decode(b))
    .flatMap((e) => (e.data.type === 8 && (e.data.configSetting.configSettingID === 6 || e.data.configSetting.configSettingID === 7)
      ? [(e.data.configSetting as any)[e.data.configSetting.configSettingID === 6 ? 'contractCostParamsCpuInsns' : 'contractCostParamsMemBytes'].length]
      : []));
  const at28 = genesisConfigSettingEntries(1, 28);
  assert.deepEqual(costCounts(at28), [86, 86]);
  assert.deepEqual(costCounts(genesisConfigSettingEntries(1, 29)), [86, 86]);
  const at30 = genesisConfigSettingEntries(1, 30);
  assert.deepEqual(costCounts(at30), [95, 95]);
  const native = loadNative();
  assert.deepEqual(native.protocolUpgradeConfigEntries(at28, 29), [], 'protocol 29 adds no cost type');
  const upgraded = native.protocolUpgradeConfigEntries(at28, 30).map((b) => new Uint8Array(b));
  assert.equal(upgraded.length, 2);
  assert.deepEqual(costCounts(upgraded), [95, 95]);
  // the genesis of a protocol-30 network and an upgraded protocol-28 one agree on every cost entry
  const byId = (entries: Uint8Array[]) => new Map(entries.map((b) => [xdr.LedgerEntry.schema.decode(b), b] as const)
    .filter(([e]) => e.data.type === 8).map(([e, b]) => [e.data.type === 8 ? e.data.configSetting.configSettingID : -1, Buffer.from(b).toString('hex')]));
  const genesis30 = byId(at30);
  for (const [id, hex] of byId(upgraded)) assert.equal(hex, genesis30.get(id), `config setting ${id}`);
  assert.throws(() => native.protocolUpgradeConfigEntries(at28, 31), /protocol 31 is not one this build runs \(protocols 28 to 30\)/);
});
