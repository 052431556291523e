// CAP-87's ML-DSA host functions, called by a real contract (contracts/wasm/mldsa.wasm, soroban-sdk 30)
// on the real addon: simulated on a protocol-30 database and applied by the ledger engine's host, with
// keys and signatures from Node's own ML-DSA (OpenSSL 3.5). A valid signature verifies and is charged
// by the protocol-30 cost types; another message or context fails as the host does; a protocol-29
// host refuses the contract at upload.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { xdr } from '../../../src/xdr/xdr.ts';
import { Simulator, genesisConfigSettingEntries, loadNative } from '../../../src/host/index.ts';
import type { InvokeApplyResult } from '../../../src/host/native.ts';
import { encodeLedgerEntry, encodeLedgerKey, networkIdOf, sha256, toBase64, type LedgerEntry, type ScVal } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { boolVal } from '../../../src/xdr/scVals.ts';
import {
  CLOSE_TIME, PASSPHRASE, ROOT, codeKey, createTestDb, decodeScVal, instanceEntry, instanceKey, invokeOp, rootAccount,
  testContractWasm, ttlEntry, uploadOp, type TestDb,
} from './support.ts';

const PROTOCOL = 30;
const MLDSA_WASM = new Uint8Array(readFileSync(new URL('../../../contracts/wasm/mldsa.wasm', import.meta.url)));
const mlDsaContract = sha256(Buffer.from('mldsa contract'));
/** The hand-assembled contract of support.ts: its `hello` is the trivial call costs are compared with. */
const trivialContract = sha256(Buffer.from('trivial contract'));
const LIVE_UNTIL = 100_000;
const SEED = new Uint8Array(32).fill(3);

/**
 * The parameter sets and the ContractCostType of each step a verification charges: decoding the
 * verifying key, decoding the signature, verifying (linear in message + context length).
 */
const PARAMETER_SETS = [
  { name: 'ml-dsa-44', fn: 'verify_44', costTypes: { decodeKey: 86, decodeSignature: 89, verify: 92 } },
  { name: 'ml-dsa-65', fn: 'verify_65', costTypes: { decodeKey: 87, decodeSignature: 90, verify: 93 } },
  { name: 'ml-dsa-87', fn: 'verify_87', costTypes: { decodeKey: 88, decodeSignature: 91, verify: 94 } },
] as const;
type ParameterSet = typeof PARAMETER_SETS[number];

const CPU_COST_PARAMS = 6; // ConfigSettingID CONFIG_SETTING_CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS
const genesis30 = (): LedgerEntry[] => genesisConfigSettingEntries(1, PROTOCOL).map((b) => xdr.LedgerEntry.schema.decode(b));
/** The network's cpu cost parameters (one per ContractCostType) in these config entries. */
function cpuCostParams(entries: LedgerEntry[]): xdr.ContractCostParamEntryWire[] {
  for (const e of entries) {
    if (e.data.type === 8 && e.data.configSetting.configSettingID === CPU_COST_PARAMS) return e.data.configSetting.contractCostParamsCpuInsns;
  }
  throw new Error('no cpu cost parameters');
}

const bytes = (b: Uint8Array): ScVal => ({ type: 13, bytes: b });
const MESSAGE = Buffer.from('pay 10 XLM to the bearer of this note');
const CONTEXT = Buffer.from('lumen-rpc ML-DSA test');
const INVALID_INPUT = /Error\(Crypto, InvalidInput\)/;

/** A fresh key pair of `set`: the raw FIPS 204 public key (the JWK's `pub`) and a signer. */
function keyPair(set: ParameterSet) {
  const { publicKey, privateKey } = generateKeyPairSync(set.name);
  const { pub } = publicKey.export({ format: 'jwk' });
  assert.equal(typeof pub, 'string', 'an ML-DSA JWK carries the raw public key in `pub`');
  return {
    publicKey: Buffer.from(pub as string, 'base64url'),
    sign: (message: Uint8Array, context: Uint8Array) => sign(null, message, { key: privateKey, context }),
  };
}
const keys = new Map(PARAMETER_SETS.map((set) => [set.name, keyPair(set)]));
const keysOf = (set: ParameterSet) => keys.get(set.name)!;

/** The contract call `verify_NN(public_key, MESSAGE, signature, CONTEXT)` with `set`'s key, as an Operation (base64). */
const verifyOp = (set: ParameterSet, signature: Uint8Array): string =>
  invokeOp(mlDsaContract, set.fn, [bytes(keysOf(set).publicKey), bytes(MESSAGE), bytes(signature), bytes(CONTEXT)]);

const simulate = (sim: Simulator, operationXdr: string) => sim.invoke({ operationXdr, sourceAccount: ROOT }, { prngSeed: SEED });

/** A database at protocol 30 with the ML-DSA contract and the trivial one deployed, and what it stores. */
interface Deployment {
  db: TestDb;
  sim: Simulator;
  /** The contracts' code and instance entries and their live-until ledgers, by LedgerKey XDR (base64). */
  entries: Map<string, { entry: LedgerEntry; liveUntil: number }>;
  latestLedger: number;
}

/** Deploys both contracts: each upload simulated, its code entry and an instance stored in a new ledger. */
async function deploy(configEntries?: LedgerEntry[]): Promise<Deployment> {
  const db = createTestDb(PROTOCOL);
  const sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  const entries = new Map<string, { entry: LedgerEntry; liveUntil: number }>();
  const ttls: LedgerEntry[] = [];
  for (const [id, wasm] of [[mlDsaContract, MLDSA_WASM], [trivialContract, testContractWasm(PROTOCOL)]] as const) {
    const upload = await simulate(sim, uploadOp(wasm));
    assert.equal(upload.error, undefined, upload.error);
    assert.equal(upload.hostProtocol, PROTOCOL);
    const created = upload.stateChanges.find((c) => c.type === 'created');
    assert.ok(created?.after, 'the upload creates the code entry');
    const hash = sha256(wasm);
    for (const entry of [xdr.LedgerEntry.schema.decode(Buffer.from(created.after, 'base64')), instanceEntry(id, hash)]) {
      entries.set(toBase64(encodeLedgerKey(ledgerKeyOf(entry.data))), { entry, liveUntil: LIVE_UNTIL });
    }
    ttls.push(ttlEntry(codeKey(hash), LIVE_UNTIL), ttlEntry(instanceKey(id), LIVE_UNTIL));
  }
  const latestLedger = db.closeLedger([...[...entries.values()].map((e) => e.entry), ...ttls, ...(configEntries ?? [])]);
  return { db, sim, entries, latestLedger };
}

/**
 * Applies the invocation `operationXdr` as the ledger engine does (src/ledger/ops/invokeHostFunction.ts)
 * in the ledger after the deployment's, declaring the footprint and resources of `transactionData`.
 */
function apply(d: Deployment, operationXdr: string, transactionData: string): InvokeApplyResult {
  const op = xdr.Operation.schema.decode(Buffer.from(operationXdr, 'base64'));
  assert.equal(op.body.type, 24);
  const { resources } = xdr.SorobanTransactionData.schema.decode(Buffer.from(transactionData, 'base64'));
  const footprint = [...resources.footprint.readOnly, ...resources.footprint.readWrite];
  const host = new (loadNative().SorobanApplier)(genesisConfigSettingEntries(1, PROTOCOL), PROTOCOL);
  const sequence = d.latestLedger + 1;
  return host.invoke({
    hostFunction: xdr.HostFunction.schema.encode(op.body.invokeHostFunctionOp.hostFunction),
    resources: xdr.SorobanResources.schema.encode(resources),
    restoredRwEntryIndices: [],
    sourceAccount: xdr.AccountId.schema.encode(rootAccount),
    authEntries: [],
    ledger: {
      sequence, timestamp: Number(CLOSE_TIME) + sequence * 5, protocolVersion: PROTOCOL, baseReserve: 5_000_000,
      networkId: networkIdOf(PASSPHRASE),
    },
    entries: footprint.map((key) => {
      const stored = d.entries.get(toBase64(encodeLedgerKey(key)));
      assert.ok(stored, 'the footprint reads only the contract entries');
      return { entry: encodeLedgerEntry(stored.entry), liveUntil: stored.liveUntil };
    }),
    prngSeed: SEED,
    enableDiagnostics: true,
  });
}

let deployment: Deployment;
before(async () => {
  deployment = await deploy();
});
after(() => {
  deployment?.sim.close();
  deployment?.db.dispose();
});

for (const set of PARAMETER_SETS) {
  describe(`${set.name} (${set.fn})`, () => {
    test('a valid signature with a context verifies, charged well above a trivial call', async (t) => {
      const { sim } = deployment;
      const r = await simulate(sim, verifyOp(set, keysOf(set).sign(MESSAGE, CONTEXT)));
      assert.equal(r.error, undefined, r.error);
      assert.equal(r.hostProtocol, PROTOCOL);
      assert.deepEqual(decodeScVal(r.result!.xdr), boolVal(true));
      const trivial = await simulate(sim, invokeOp(trivialContract, 'hello', []));
      assert.equal(trivial.error, undefined, trivial.error);
      // The verification's own charges (the three cost types' constant terms alone) come on top of
      // what any call costs: without them the difference would be the argument handling only.
      const params = cpuCostParams(genesis30());
      const fixedCharge = Object.values(set.costTypes).reduce((sum, type) => sum + params[type].constTerm, 0n);
      const cpu = BigInt(r.cost.cpuInsns);
      const trivialCpu = BigInt(trivial.cost.cpuInsns);
      assert.ok(cpu - trivialCpu >= fixedCharge, `${cpu} cpu vs ${trivialCpu} for hello: under the ML-DSA charges (${fixedCharge})`);
      t.diagnostic(`${set.name}: ${cpu} cpu instructions, ${r.cost.memBytes} memory bytes (a trivial call: ${trivialCpu}; the cost types' constant terms: ${fixedCharge})`);
    });

    test('a signature over another message, or with another context, fails with Error(Crypto, InvalidInput)', async () => {
      const { sim } = deployment;
      const { sign: signWith } = keysOf(set);
      const otherMessage = await simulate(sim, verifyOp(set, signWith(Buffer.from('pay 99 XLM to the bearer of this note'), CONTEXT)));
      assert.match(otherMessage.error ?? '', INVALID_INPUT);
      assert.match(otherMessage.error ?? '', new RegExp(`"failed verification", ML_DSA_${set.name.slice(-2)}`));
      assert.equal(otherMessage.result, undefined);
      const otherContext = await simulate(sim, verifyOp(set, signWith(MESSAGE, Buffer.from('another context'))));
      assert.match(otherContext.error ?? '', INVALID_INPUT);
      assert.equal(otherContext.result, undefined);
    });

    test('applied with the simulated footprint and resources: verifies; a tampered signature traps', async () => {
      const signature = keysOf(set).sign(MESSAGE, CONTEXT);
      const simulated = await simulate(deployment.sim, verifyOp(set, signature));
      assert.equal(simulated.error, undefined, simulated.error);
      const applied = apply(deployment, verifyOp(set, signature), simulated.transactionData!);
      assert.equal(applied.failure ?? undefined, undefined, applied.error ?? '');
      assert.deepEqual(xdr.ScVal.schema.decode(applied.returnValue!), boolVal(true));
      // apply also charges the verification: the simulation's measure (apply adds a few hundred
      // instructions of its own, e.g. for the footprint), within the instructions declared
      const { resources } = xdr.SorobanTransactionData.schema.decode(Buffer.from(simulated.transactionData!, 'base64'));
      assert.ok(applied.cpuInsns >= Number(simulated.cost.cpuInsns), `${applied.cpuInsns} cpu applied, ${simulated.cost.cpuInsns} simulated`);
      assert.ok(applied.cpuInsns <= resources.instructions, `${applied.cpuInsns} cpu applied, ${resources.instructions} declared`);

      const tampered = Buffer.from(signature);
      tampered[0] ^= 1;
      const rejected = apply(deployment, verifyOp(set, tampered), simulated.transactionData!);
      assert.equal(rejected.failure, 'trapped');
      assert.match(rejected.error ?? '', INVALID_INPUT);
      assert.equal(rejected.returnValue ?? undefined, undefined);
    });
  });
}

test("the verification is charged by the network's ML-DSA cost parameters", async () => {
  const set = PARAMETER_SETS[0];
  const raise = 1_000_000n;
  const config = genesis30().filter((e) => e.data.type === 8 && e.data.configSetting.configSettingID === CPU_COST_PARAMS);
  cpuCostParams(config)[set.costTypes.verify].constTerm += raise;
  const raised = await deploy(config);
  try {
    const signature = keysOf(set).sign(MESSAGE, CONTEXT);
    const normal = await simulate(deployment.sim, verifyOp(set, signature));
    const dearer = await simulate(raised.sim, verifyOp(set, signature));
    assert.equal(normal.error, undefined, normal.error);
    assert.equal(dearer.error, undefined, dearer.error);
    assert.equal(BigInt(dearer.cost.cpuInsns) - BigInt(normal.cost.cpuInsns), raise);
  } finally {
    raised.sim.close();
    raised.db.dispose();
  }
});

test('the module says protocol 30, and a protocol-29 host refuses to upload it', async () => {
  // The custom section contractenvmetav0 holds one SCEnvMetaEntry (12 bytes, right after the name):
  // SC_ENV_META_KIND_INTERFACE_VERSION { protocol 30, preRelease 0 }.
  const name = Buffer.from('contractenvmetav0');
  const at = Buffer.from(MLDSA_WASM).indexOf(name);
  assert.ok(at > 0, 'the module has env meta');
  // the section's size (the name's length byte, the name, one entry) and the name's length precede it
  assert.deepEqual([...MLDSA_WASM.subarray(at - 2, at)], [1 + name.length + 12, name.length], 'one entry');
  assert.deepEqual([...MLDSA_WASM.subarray(at + name.length, at + name.length + 12)], [0, 0, 0, 0, 0, 0, 0, 30, 0, 0, 0, 0]);
  const db = createTestDb(29);
  const sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  try {
    const r = await simulate(sim, uploadOp(MLDSA_WASM));
    assert.equal(r.hostProtocol, 29);
    assert.match(r.error ?? '', /contract protocol number is newer than host/);
    assert.equal(r.result, undefined);
  } finally {
    sim.close();
    db.dispose();
  }
});
