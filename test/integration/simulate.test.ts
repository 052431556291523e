// simulateTransaction over HTTP against a real node process (the native host reading the node's
// SQLite file): the reference's error results, a Wasm upload checked for internal consistency and
// parsed by the official JS SDK, json mode, fee bumps, footprint operations, oversized Wasm, the
// preflight queue limit, and the server staying responsive while simulations run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  Account, Address, Asset, Contract, Keypair, Memo, Operation, SorobanDataBuilder, TransactionBuilder, nativeToScVal, rpc,
  scValToNative, xdr, type FeeBumpTransaction, type Transaction,
} from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder, funded, server } from './support/sdk.ts';
import { sha256, wasm, type ContractName } from './support/contracts.ts';

const counterWasm = wasm('counter');
const source = Keypair.random();
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** A transaction from `source` (which need not exist: simulation does not load it). */
function build(ops: xdr.Operation[] | ReturnType<typeof Operation.payment>[], opts: { memo?: Memo; data?: xdr.SorobanTransactionData } = {}): Transaction {
  const b = new TransactionBuilder(new Account(source.publicKey(), '7'), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60);
  for (const op of ops) b.addOperation(op as xdr.Operation);
  if (opts.memo) b.addMemo(opts.memo);
  if (opts.data) b.setSorobanData(opts.data);
  return b.build();
}
const upload = (wasm: Uint8Array) => Operation.uploadContractWasm({ wasm });

/** `wasm` grown to `size` bytes with a custom section (cheap to parse, counts fully as contract size). */
function padded(wasm: Uint8Array, size: number): Buffer {
  const uleb = (n: number): number[] => { const o: number[] = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; o.push(b); } while (n); return o; };
  const name = Buffer.from('pad');
  const bodyLength = size - wasm.length - 1 - uleb(size).length; // section id and length before the body
  const body = Buffer.concat([Buffer.from([name.length]), name, Buffer.alloc(bodyLength - 1 - name.length, 7)]);
  const out = Buffer.concat([wasm, Buffer.from([0, ...uleb(body.length)]), body]);
  assert.equal(out.length, size);
  return out;
}

const codeKeyB64 = (wasm: Uint8Array): string => xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: sha256(wasm) })).toXdr('base64');
const txDataOf = (b64: string): xdr.SorobanTransactionDataWire => xdr.SorobanTransactionData.schema.decode(Buffer.from(b64, 'base64'));

describe('simulateTransaction over JSON-RPC', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  const simulate = async (params: Record<string, unknown>) => {
    const r = await node.rpc('simulateTransaction', params);
    assert.ok(r.result, `expected a result, got ${JSON.stringify(r)}`);
    return r.result;
  };
  const simulateTx = (tx: Transaction | FeeBumpTransaction, extra: Record<string, unknown> = {}) => simulate({ transaction: tx.toXdr(), ...extra });

  before(async () => {
    // a larger body limit than the default, for the 600 KB module below
    node = await startNodeProcess({ args: ['--log-level', 'warn', '--max-request-body-bytes', '2000000'] });
    s = server(node.url);
  });
  after(async () => { await node?.stop(); });

  it('answers request problems as results with the reference strings and latestLedger 0', async () => {
    const err = (error: string) => ({ error, latestLedger: 0 });
    assert.deepEqual(await simulate({ transaction: 'AAAA' }), err('Could not unmarshal transaction'));
    assert.deepEqual(await simulate({ transaction: 'not base64 at all' }), err('Could not unmarshal transaction'));
    assert.deepEqual(await simulate({}), err('Could not unmarshal transaction'));
    const good = build([upload(counterWasm)]);
    assert.deepEqual(await simulateTx(good, { xdrFormat: 'xdr' }), err("got 'xdr': expected base64, json for optional 'xdrFormat'"));
    assert.deepEqual(await simulate({ transaction: good.toXdr().slice(0, -12) }), err('Could not unmarshal transaction'));
    assert.deepEqual(await simulateTx(build([upload(counterWasm), upload(counterWasm)])), err('Transaction contains more than one operation'));
    assert.deepEqual(await simulateTx(build([upload(counterWasm)], { memo: Memo.text('hello') })),
      err('Transaction contains a memo. Soroban transactions do not support memos.'));
    const pay = Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' });
    assert.deepEqual(await simulateTx(build([pay])), err('transaction contains unsupported operation type: OperationTypePayment'));
    assert.deepEqual(await simulateTx(build([pay]), { authMode: 'sometimes' }),
      err("optional 'authMode' must be one of enforce,record,record_allow_nonroot when included"));
    assert.deepEqual(await simulateTx(good, { authMode: 'RECORD' }),
      err("optional 'authMode' must be one of enforce,record,record_allow_nonroot when included"));
    const restore = Operation.restoreFootprint({});
    assert.deepEqual(await simulateTx(build([restore])),
      err('To perform a SimulateTransaction for ExtendFootprintTtl or RestoreFootprint operations, SorobanTransactionData must be provided'));
    const data = new SorobanDataBuilder().build();
    assert.deepEqual(await simulateTx(build([restore], { data }), { authMode: 'record' }), err('cannot set authMode with non-InvokeHostFunction operations'));
    const bumped = TransactionBuilder.buildFeeBumpTransaction(source, '1000', build([Operation.extendFootprintTtl({ extendTo: 1000 })]), PASSPHRASE);
    assert.deepEqual(await simulateTx(bumped),
      err('To perform a SimulateTransaction for ExtendFootprintTtl or RestoreFootprint operations, SorobanTransactionData must be provided'));
  });

  it('refuses recording auth modes when the operation carries auth entries', async () => {
    const contract = new Uint8Array(32).fill(5);
    const entry: xdr.SorobanAuthorizationEntryWire = {
      credentials: { type: 0 },
      rootInvocation: {
        function: { type: 0, contractFn: { contractAddress: { type: 1, contractId: contract }, functionName: new xdr.XdrString('f'), args: [] } },
        subInvocations: [],
      },
    };
    const op: xdr.OperationWire = {
      sourceAccount: null,
      body: {
        type: 24,
        invokeHostFunctionOp: {
          hostFunction: { type: 0, invokeContract: { contractAddress: { type: 1, contractId: contract }, functionName: new xdr.XdrString('f'), args: [] } },
          auth: [entry],
        },
      },
    };
    const tx = build([xdr.Operation.fromXdrObject(op)]);
    assert.deepEqual(await simulateTx(tx, { authMode: 'record' }), { error: "cannot set authMode to 'record' with an auth footprint", latestLedger: 0 });
    assert.deepEqual(await simulateTx(tx, { authMode: 'record_allow_nonroot' }),
      { error: "cannot set authMode to 'record_allow_nonroot' with an auth footprint", latestLedger: 0 });
    // enforce (the default with auth entries) reaches the host: the contract does not exist
    const enforced = await simulateTx(tx);
    assert.match(enforced.error, /^HostError: Error\(Storage, MissingValue\)/);
    assert.ok(enforced.latestLedger > 0);
  });

  it('params of the wrong JSON type are -32602', async () => {
    for (const params of [{ transaction: 5 }, { transaction: 'AAAA', authMode: 1 }, { transaction: 'AAAA', resourceConfig: { instructionLeeway: -1 } },
      { transaction: 'AAAA', useUpgradedAuth: 'yes' }]) {
      const r = await node.rpc('simulateTransaction', params);
      assert.equal(r.error?.code, -32602, JSON.stringify(params));
      assert.equal(r.error.message, 'invalid parameters');
    }
  });

  it('simulates a Wasm upload: footprint, fee and cost agree; the SDK parses and assembles it', async () => {
    const tx = build([upload(counterWasm)]);
    const raw = await simulateTx(tx);
    assert.equal(raw.error, undefined, raw.error);
    const data = txDataOf(raw.transactionData);
    assert.equal(typeof raw.minResourceFee, 'string');
    assert.equal(raw.minResourceFee, String(data.resourceFee), 'minResourceFee == transactionData.resourceFee');
    assert.ok(data.resourceFee > 0n);
    const rw = data.resources.footprint.readWrite.map((k) => xdr.LedgerKey.fromXdrObject(k).toXdr('base64'));
    assert.deepEqual(rw, [codeKeyB64(counterWasm)], 'the ContractCode key of sha256(wasm)');
    assert.deepEqual(data.resources.footprint.readOnly, []);
    assert.ok(data.resources.writeBytes >= counterWasm.length);
    assert.ok(data.resources.instructions > 0);
    assert.match(raw.cost.cpuInsns, DECIMAL);
    assert.match(raw.cost.memBytes, DECIMAL);
    assert.ok(BigInt(raw.cost.cpuInsns) > 0n && BigInt(raw.cost.memBytes) > 0n);
    assert.ok(data.resources.instructions >= Number(raw.cost.cpuInsns), 'instructions are the adjusted cost');
    assert.equal(raw.results.length, 1);
    assert.deepEqual(raw.results[0].auth, []);
    assert.deepEqual(xdr.ScVal.schema.decode(Buffer.from(raw.results[0].xdr, 'base64')), { type: 13, bytes: new Uint8Array(sha256(counterWasm)) });
    assert.equal(raw.stateChanges.length, 1);
    assert.equal(raw.stateChanges[0].type, 'created');
    assert.equal(raw.stateChanges[0].key, codeKeyB64(counterWasm));
    assert.ok('before' in raw.stateChanges[0] && raw.stateChanges[0].before === null, 'before is present and null');
    const created = xdr.LedgerEntry.schema.decode(Buffer.from(raw.stateChanges[0].after, 'base64'));
    assert.equal(created.data.type, 7);
    assert.ok(Number.isInteger(raw.latestLedger) && raw.latestLedger > 0);
    assert.equal(raw.restorePreamble, undefined);

    // the official client: parse, classify, assemble
    const sim = await s.simulateTransaction(tx);
    assert.ok(rpc.Api.isSimulationSuccess(sim));
    assert.ok(!rpc.Api.isSimulationError(sim));
    assert.ok(!rpc.Api.isSimulationRestore(sim));
    assert.equal(sim.minResourceFee, raw.minResourceFee);
    assert.equal(sim.result?.retval.toXdr('base64'), raw.results[0].xdr);
    assert.equal(sim.stateChanges?.[0].type, 'created');
    const assembled = rpc.assembleTransaction(tx, sim).build();
    assert.equal(assembled.fee, String(100n + data.resourceFee));
    const assembledData = assembled.toEnvelope().toXdrObject();
    assert.ok(assembledData.type === 2 && assembledData.v1.tx.ext.v === 1);
    assert.equal(assembledData.v1.tx.ext.sorobanData.resourceFee, data.resourceFee);
  });

  it('simulates a fee-bump envelope as its inner transaction', async () => {
    const inner = build([upload(counterWasm)]);
    const bumped = TransactionBuilder.buildFeeBumpTransaction(Keypair.random(), '10000', inner, PASSPHRASE);
    const r = await simulateTx(bumped);
    assert.equal(r.error, undefined, r.error);
    assert.deepEqual(txDataOf(r.transactionData).resources.footprint, txDataOf((await simulateTx(inner)).transactionData).resources.footprint);
    const sim = await s.simulateTransaction(bumped);
    assert.ok(rpc.Api.isSimulationSuccess(sim));
  });

  it('xdrFormat json: …Json fields in the stellar-xdr serde shape', async () => {
    const r = await simulateTx(build([upload(counterWasm)]), { xdrFormat: 'json' });
    assert.equal(r.transactionData, undefined);
    const hash = sha256(counterWasm).toString('hex');
    assert.deepEqual(r.transactionDataJson.resources.footprint, { read_only: [], read_write: [{ contract_code: { hash } }] });
    assert.equal(r.transactionDataJson.resource_fee, r.minResourceFee);
    assert.deepEqual(r.results, [{ returnValueJson: { bytes: hash } }]);
    assert.equal(r.stateChanges[0].type, 'created');
    assert.deepEqual(r.stateChanges[0].keyJson, { contract_code: { hash } });
    assert.equal(r.stateChanges[0].before, null);
    assert.equal(r.stateChanges[0].after, null);
    assert.equal(r.stateChanges[0].afterJson.data.contract_code.hash, hash);
    assert.match(r.cost.cpuInsns, DECIMAL);
  });

  it('simulates ExtendFootprintTTL and RestoreFootprint from the envelope footprint', async () => {
    const key = xdr.LedgerKey.fromXdr(codeKeyB64(padded(counterWasm, 9000)), 'base64');
    const extendTx = build([Operation.extendFootprintTtl({ extendTo: 10_000 })], { data: new SorobanDataBuilder().setReadOnly([key]).build() });
    const extended = await simulateTx(extendTx);
    assert.equal(extended.error, undefined, extended.error);
    assert.equal(extended.minResourceFee, String(txDataOf(extended.transactionData).resourceFee));
    assert.ok(BigInt(extended.minResourceFee) > 0n);
    assert.equal(extended.results, undefined, 'no results for footprint operations');
    assert.equal(extended.cost, undefined);
    assert.ok(extended.latestLedger > 0);
    const sim = await s.simulateTransaction(extendTx);
    assert.ok(rpc.Api.isSimulationSuccess(sim));
    // nothing to restore under that key: the host's error text, with the ledger
    const restoreTx = build([Operation.restoreFootprint({})], { data: new SorobanDataBuilder().setReadWrite([key]).build() });
    const restored = await simulateTx(restoreTx);
    assert.match(restored.error, /^Missing entry to restore for key ContractCode/);
    assert.ok(restored.latestLedger > 0);
    assert.ok(rpc.Api.isSimulationError(await s.simulateTransaction(restoreTx)));
  });

  it('Wasm over the 128 KiB contract size still simulates (apply enforces it); one too costly to parse is a host error', async () => {
    // The reference's simulation does not check ContractMaxSizeBytes either: core refuses the
    // entry when the transaction is applied.
    const big = padded(counterWasm, 128 * 1024 + 100);
    const ok = await simulateTx(build([upload(big)]));
    assert.equal(ok.error, undefined, ok.error);
    assert.ok(txDataOf(ok.transactionData).resources.writeBytes > 128 * 1024);
    // bytes over the limit that are no Wasm: the host cannot parse them
    const garbage = await simulateTx(build([upload(Buffer.alloc(128 * 1024 + 100, 0x42))]));
    assert.match(garbage.error, /^HostError: Error\(WasmVm, InvalidAction\)/);
    assert.ok(garbage.latestLedger > 0);
    // 600 KB costs more than the 400M-instruction budget to instantiate.
    const huge = padded(counterWasm, 600_000);
    const failed = await simulateTx(build([upload(huge)]));
    assert.match(failed.error, /^HostError: Error\(Budget, ExceededLimit\)/);
    assert.ok(failed.latestLedger > 0);
    assert.equal(failed.transactionData, undefined);
    assert.equal(failed.results, undefined);
    assert.ok(BigInt(failed.cost.cpuInsns) > 400_000_000n);
    const sim = await s.simulateTransaction(build([upload(huge)]));
    assert.ok(rpc.Api.isSimulationError(sim));
    assert.match(sim.error, /Error\(Budget, ExceededLimit\)/);
  });
});

describe('simulateTransaction under load', () => {
  let node: NodeProcess;
  before(async () => {
    node = await startNodeProcess({
      args: ['--log-level', 'warn', '--max-request-body-bytes', '2000000', '--preflight-worker-count', '1', '--preflight-worker-queue-size', '1'],
    });
  });
  after(async () => { await node?.stop(); });

  // Each of these takes the host tens of milliseconds (600 KB of Wasm to instantiate).
  const heavy = build([upload(padded(counterWasm, 600_000))]).toXdr();

  it('refuses simulations beyond the workers and the queue with "preflight queue full"', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => node.rpc('simulateTransaction', { transaction: heavy })));
    const errors = answers.map((a) => a.result.error as string);
    const full = answers.filter((a) => a.result.error === 'preflight queue full');
    assert.ok(full.length >= 1, `expected a full queue, got ${JSON.stringify(errors)}`);
    for (const a of full) {
      assert.deepEqual(Object.keys(a.result), ['error', 'latestLedger']);
      assert.ok(a.result.latestLedger > 0);
    }
    assert.ok(errors.some((e) => /^HostError: Error\(Budget, ExceededLimit\)/.test(e)), 'the first ones ran');
  });

  it('keeps answering getHealth while simulations run', async () => {
    let outstanding = 0;
    let done = 0;
    const results: string[] = [];
    // 12 simulations, at most 2 in flight (the worker and the queue slot)
    const runner = async () => {
      while (done + outstanding < 12) {
        outstanding++;
        const r = await node.rpc('simulateTransaction', { transaction: heavy });
        outstanding--;
        done++;
        results.push(r.result.error);
      }
    };
    const sims = Promise.all([runner(), runner()]);
    let healthWhileBusy = 0;
    while (done < 12) {
      const h = await node.rpc('getHealth');
      assert.equal(h.result?.status, 'healthy', JSON.stringify(h));
      if (outstanding > 0) healthWhileBusy++;
    }
    await sims;
    assert.equal(results.length, 12);
    for (const e of results) assert.match(e, /^HostError: Error\(Budget, ExceededLimit\)/, 'no simulation was refused or lost');
    assert.ok(healthWhileBusy >= 5, `getHealth answered ${healthWhileBusy} times while simulations were in flight`);
  });
});

describe('simulateTransaction of deployed contracts', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let kp: Keypair;
  let errors: string;
  let counter: string;
  let owned: string;

  /** Simulates, assembles, signs, sends and waits: the client flow of every Soroban transaction. */
  async function apply(tx: Transaction): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
    const prepared = await s.prepareTransaction(tx);
    prepared.sign(kp);
    const sent = await s.sendTransaction(prepared);
    assert.equal(sent.status, 'PENDING');
    const done = await s.pollTransaction(sent.hash, { attempts: 100, sleepStrategy: () => 50 });
    assert.equal(done.status, 'SUCCESS');
    return done as rpc.Api.GetSuccessfulTransactionResponse;
  }
  async function deploy(name: ContractName): Promise<string> {
    const code = wasm(name);
    const uploaded = await apply((await builder(s, kp)).addOperation(Operation.uploadContractWasm({ wasm: code })).build());
    const wasmHash = Buffer.from(scValToNative(uploaded.returnValue!) as Uint8Array);
    assert.deepEqual(wasmHash, sha256(code));
    const created = await apply((await builder(s, kp)).addOperation(Operation.createCustomContract({
      address: new Address(kp.publicKey()), wasmHash, salt: randomBytes(32),
    })).build());
    return Address.fromScVal(created.returnValue!).toString();
  }
  const call = async (id: string, fn: string, ...args: xdr.ScVal[]) => (await builder(s, kp)).addOperation(new Contract(id).call(fn, ...args)).build();
  const simulate = async (tx: Transaction) => {
    const r = await node.rpc('simulateTransaction', { transaction: tx.toXdr() });
    assert.ok(r.result, JSON.stringify(r));
    return r.result;
  };

  before(async () => {
    node = await startNodeProcess({ args: ['--log-level', 'warn', '--close-mode', 'instant'] });
    s = server(node.url);
    kp = await funded(s);
    errors = await deploy('errors');
    counter = await deploy('counter');
    owned = await deploy('auth');
  });
  after(async () => { await node?.stop(); });

  it('a contract error comes back as the host text with Error(Contract, #N) and the diagnostic events', async () => {
    const r = await simulate(await call(errors, 'fail'));
    assert.match(r.error, /^HostError: Error\(Contract, #3\)/);
    assert.match(r.error, /Event log \(newest first\):/);
    assert.ok(r.events.length > 0);
    for (const e of r.events) xdr.DiagnosticEvent.fromXdr(e, 'base64');
    assert.equal(r.transactionData, undefined);
    assert.equal(r.minResourceFee, undefined);
    assert.equal(r.results, undefined);
    assert.match(r.cost.cpuInsns, DECIMAL);
    assert.ok(r.latestLedger > 0);
    // what the JS contract client does with it
    const sim = await s.simulateTransaction(await call(errors, 'fail'));
    assert.ok(rpc.Api.isSimulationError(sim));
    assert.equal(/Error\(Contract, #(\d+)\)/.exec(sim.error)?.[1], '3');
    assert.ok(sim.events.length > 0);

    const negative = await simulate(await call(errors, 'check', nativeToScVal(-1, { type: 'i64' })));
    assert.match(negative.error, /^HostError: Error\(Contract, #1\)/);
    const ok = await simulate(await call(errors, 'check', nativeToScVal(42, { type: 'i64' })));
    assert.equal(ok.error, undefined);
    assert.equal(scValToNative(xdr.ScVal.fromXdr(ok.results[0].xdr, 'base64')), 42n);
  });

  it('a call that runs out of budget is a host error, and the node keeps serving meanwhile', async () => {
    let pending = true;
    const spin = simulate(await call(errors, 'spin', nativeToScVal(7, { type: 'u64' }))).finally(() => { pending = false; });
    let whileSpinning = 0;
    while (pending) {
      const h = await node.rpc('getHealth');
      assert.equal(h.result?.status, 'healthy');
      if (pending) whileSpinning++;
    }
    const r = await spin;
    assert.match(r.error, /^HostError: Error\(Budget, ExceededLimit\)/);
    assert.ok(BigInt(r.cost.cpuInsns) >= 400_000_000n, 'ran to the 400M-instruction limit');
    assert.ok(whileSpinning >= 1, 'getHealth was answered while the simulation ran');
    // the host is still fine afterwards
    const after = await simulate(await call(errors, 'check', nativeToScVal(1, { type: 'i64' })));
    assert.equal(after.error, undefined);
  });

  it('simulates a state change that the applied transaction then makes', async () => {
    const tx = await call(counter, 'increment', nativeToScVal(5, { type: 'u32' }));
    const r = await simulate(tx);
    assert.equal(r.error, undefined, r.error);
    assert.equal(scValToNative(xdr.ScVal.fromXdr(r.results[0].xdr, 'base64')), 5);
    assert.deepEqual(r.stateChanges.map((c: { type: string }) => c.type), ['updated']);
    assert.ok(r.stateChanges[0].before && r.stateChanges[0].after);
    const data = txDataOf(r.transactionData);
    assert.equal(data.resources.footprint.readWrite.length, 1, 'the instance');
    assert.equal(data.resources.footprint.readOnly.length, 1, 'the code');
    // the contract event is among the diagnostic events
    const topics = r.events.map((e: string) => xdr.DiagnosticEvent.schema.decode(Buffer.from(e, 'base64')))
      .filter((e: xdr.DiagnosticEventWire) => e.event.type === 1) // CONTRACT (fn_call and fn_return are DIAGNOSTIC)
      .map((e: xdr.DiagnosticEventWire) => (e.event.body.v0.topics as xdr.ScValWire[]).map((t) => (t.type === 15 ? String(t.sym) : '?')));
    assert.deepEqual(topics, [['counter', 'incr']]);

    const applied = await apply(tx);
    assert.equal(scValToNative(applied.returnValue!), 5);
    const again = await simulate(await call(counter, 'increment', nativeToScVal(5, { type: 'u32' })));
    assert.equal(scValToNative(xdr.ScVal.fromXdr(again.results[0].xdr, 'base64')), 10, 'simulation sees the applied state');
    assert.ok(again.latestLedger > r.latestLedger);
  });

  it('auth modes: recorded entries (v2 credentials with useUpgradedAuth), non-root recording, enforcement', async () => {
    const owner = Keypair.random(); // another account than the source: its auth is an entry to sign
    const setTx = await call(owned, 'set', new Address(owner.publicKey()).toScVal(), nativeToScVal(9, { type: 'u32' }));
    const credentialTypes = (r: { results: Array<{ auth: string[] }> }) =>
      r.results[0].auth.map((a) => xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(a, 'base64')).credentials.type);
    const recorded = await simulate(setTx);
    assert.equal(recorded.error, undefined, recorded.error);
    assert.deepEqual(credentialTypes(recorded), [1], 'SOROBAN_CREDENTIALS_ADDRESS');
    const upgraded = (await node.rpc('simulateTransaction', { transaction: setTx.toXdr(), useUpgradedAuth: true })).result;
    assert.deepEqual(credentialTypes(upgraded), [2], 'SOROBAN_CREDENTIALS_ADDRESS_V2');
    const entry = xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(upgraded.results[0].auth[0], 'base64'));
    assert.ok(entry.credentials.type === 2);
    assert.deepEqual(entry.credentials.addressV2.signature, { type: 1 }, 'recorded entries carry no signature (ScVal void)');
    // the JS SDK sends useUpgradedAuth: true by default
    const sim = await s.simulateTransaction(setTx);
    assert.ok(rpc.Api.isSimulationSuccess(sim));
    assert.equal(sim.result?.auth[0].toXdrObject().credentials.type, 2);
    const nonRoot = (await node.rpc('simulateTransaction', { transaction: setTx.toXdr(), authMode: 'record_allow_nonroot' })).result;
    assert.equal(nonRoot.error, undefined);
    assert.deepEqual(credentialTypes(nonRoot), [1]);
    // enforcing an empty auth list: the owner's require_auth fails in the host
    const enforced = (await node.rpc('simulateTransaction', { transaction: setTx.toXdr(), authMode: 'enforce' })).result;
    assert.match(enforced.error, /^HostError: Error\(Auth, InvalidAction\)/);
    // the source account's own authorization needs no entry beyond the source credentials
    const own = await simulate(await call(owned, 'set', new Address(kp.publicKey()).toScVal(), nativeToScVal(3, { type: 'u32' })));
    assert.equal(own.error, undefined, own.error);
    assert.deepEqual(credentialTypes(own), [0], 'SOROBAN_CREDENTIALS_SOURCE_ACCOUNT');
  });

  it('extends and restores the footprint of a deployed contract', async () => {
    const sim = await simulate(await call(counter, 'get'));
    const fp = txDataOf(sim.transactionData).resources.footprint;
    const keys = [...fp.readOnly, ...fp.readWrite].map((k) => xdr.LedgerKey.fromXdrObject(k));
    assert.equal(keys.length, 2);
    const extend = (await builder(s, kp)).addOperation(Operation.extendFootprintTtl({ extendTo: 500_000 }))
      .setSorobanData(new SorobanDataBuilder().setReadOnly(keys).build()).build();
    const r = await simulate(extend);
    assert.equal(r.error, undefined, r.error);
    const data = txDataOf(r.transactionData);
    assert.equal(data.resources.footprint.readOnly.length, 2);
    assert.ok(data.resourceFee > 0n);
    assert.equal(r.minResourceFee, String(data.resourceFee));
    assert.equal(r.restorePreamble, undefined, 'nothing is archived');
    const extended = await apply(extend);
    assert.equal(extended.status, 'SUCCESS');
    // live entries: nothing to restore, an empty footprint
    const restore = (await builder(s, kp)).addOperation(Operation.restoreFootprint({}))
      .setSorobanData(new SorobanDataBuilder().setReadWrite(keys).build()).build();
    const rr = await simulate(restore);
    assert.equal(rr.error, undefined, rr.error);
    assert.deepEqual(txDataOf(rr.transactionData).resources.footprint, { readOnly: [], readWrite: [] });
  });
});
