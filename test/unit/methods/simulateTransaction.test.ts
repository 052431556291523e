// simulateTransaction's own logic, without the native host: the reference's request checks (order
// and exact strings), the response shape (field order, omissions, json mode), the handler's wiring
// (auth mode defaults, queue full, leeway range, time-limit abort) and the Simulator's bounded queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { defaultConfig } from '../../../src/config/config.ts';
import { PreflightQueueFullError, Simulator, type Simulation } from '../../../src/host/simulator.ts';
import type { NativeAddon, NativeSimulationResult } from '../../../src/host/native.ts';
import { simulateTransaction } from '../../../src/rpc/methods/simulateTransaction.ts';
import {
  ERR_AUTH_MODE, ERR_AUTH_MODE_NON_INVOKE, ERR_FOOTPRINT_DATA, ERR_MEMO, ERR_OPERATION_COUNT, ERR_UNMARSHAL,
  GO_OPERATION_TYPE_NAMES, planSimulation, simulationResult,
} from '../../../src/rpc/methods/shared/simulation.ts';
import type { MethodContext, TransactionSimulator } from '../../../src/rpc/methods/types.ts';
import type { StoreReader } from '../../../src/store/types.ts';
import { toBase64 } from '../../../src/xdr/codec.ts';
import { testCall, testHeavy, testNode, rejectingSubmitter } from './support/pubnet.ts';

type Op = xdr.OperationWire;
const SOURCE = new Uint8Array(32).fill(9);
const CONTRACT = new Uint8Array(32).fill(3);

const uploadOp = (auth: xdr.SorobanAuthorizationEntryWire[] = []): Op =>
  ({ sourceAccount: null, body: { type: 24, invokeHostFunctionOp: { hostFunction: { type: 2, wasm: new Uint8Array([0, 97, 115, 109]) }, auth } } });
const sourceAuth: xdr.SorobanAuthorizationEntryWire = {
  credentials: { type: 0 },
  rootInvocation: {
    function: { type: 0, contractFn: { contractAddress: { type: 1, contractId: CONTRACT }, functionName: new xdr.XdrString('f'), args: [] } },
    subInvocations: [],
  },
};
const paymentOp: Op = {
  sourceAccount: null,
  body: { type: 1, paymentOp: { destination: { type: 0, ed25519: SOURCE }, asset: { type: 0 }, amount: 1n } },
};
const manageDataOp: Op = { sourceAccount: null, body: { type: 10, manageDataOp: { dataName: new xdr.XdrString('a'), dataValue: null } } };
const extendOp: Op = { sourceAccount: null, body: { type: 25, extendFootprintTtlOp: { ext: { v: 0 }, extendTo: 100 } } };
const restoreOp: Op = { sourceAccount: null, body: { type: 26, restoreFootprintOp: { ext: { v: 0 } } } };
const sorobanData: xdr.SorobanTransactionDataWire = {
  ext: { v: 0 },
  resources: { footprint: { readOnly: [], readWrite: [] }, instructions: 0, diskReadBytes: 0, writeBytes: 0 },
  resourceFee: 0n,
};

function v1(ops: Op[], opts: { memo?: xdr.MemoWire; data?: xdr.SorobanTransactionDataWire } = {}): xdr.TransactionV1EnvelopeWire {
  return {
    tx: {
      sourceAccount: { type: 0, ed25519: SOURCE }, fee: 100, seqNum: 1n, cond: { type: 0 },
      memo: opts.memo ?? { type: 0 }, operations: ops, ext: opts.data ? { v: 1, sorobanData: opts.data } : { v: 0 },
    },
    signatures: [],
  };
}
const encode = (env: xdr.TransactionEnvelopeWire): string => toBase64(xdr.TransactionEnvelope.schema.encode(env));
const tx = (ops: Op[], opts?: Parameters<typeof v1>[1]): string => encode({ type: 2, v1: v1(ops, opts) });
const feeBump = (ops: Op[], opts?: Parameters<typeof v1>[1]): string => encode({
  type: 5,
  feeBump: { tx: { feeSource: { type: 0, ed25519: SOURCE }, fee: 1000n, innerTx: { type: 2, v1: v1(ops, opts) }, ext: { v: 0 } }, signatures: [] },
});
const v0 = (ops: Op[]): string => encode({
  type: 0,
  v0: { tx: { sourceAccountEd25519: SOURCE, fee: 100, seqNum: 1n, timeBounds: null, memo: { type: 0 }, operations: ops, ext: { v: 0 } }, signatures: [] },
});
const plan = (params: Record<string, unknown>) => planSimulation(params);

test('Go names of the operation types are the SDK enum names with the Go prefix', () => {
  const names = Object.keys(xdr.OperationType).filter((k) => k !== 'schema');
  assert.equal(names.length, GO_OPERATION_TYPE_NAMES.length);
  names.forEach((n, i) => {
    assert.equal((xdr.OperationType as any)[n].value, i);
    assert.equal(GO_OPERATION_TYPE_NAMES[i], `OperationType${n[0].toUpperCase()}${n.slice(1)}`);
  });
});

test('request checks: the reference strings, in the reference order', () => {
  const good = tx([uploadOp()]);
  assert.deepEqual(plan({ transaction: good, xdrFormat: 'xml' }), { error: "got 'xml': expected base64, json for optional 'xdrFormat'" });
  // the format is checked before the envelope
  assert.deepEqual(plan({ transaction: 'garbage', xdrFormat: 'XML' }), { error: "got 'XML': expected base64, json for optional 'xdrFormat'" });
  for (const transaction of [undefined, '', 'not base64!', 'AAAA', Buffer.from('hello world').toString('base64'), good.slice(0, -8), `${good}AAAA`]) {
    assert.deepEqual(plan({ transaction }), { error: ERR_UNMARSHAL }, String(transaction));
  }
  assert.deepEqual(plan({ transaction: tx([]) }), { error: ERR_OPERATION_COUNT });
  assert.deepEqual(plan({ transaction: tx([uploadOp(), uploadOp()]) }), { error: ERR_OPERATION_COUNT });
  // more than one operation wins over a memo
  assert.deepEqual(plan({ transaction: tx([uploadOp(), uploadOp()], { memo: { type: 2, id: 5n } }) }), { error: ERR_OPERATION_COUNT });
  assert.deepEqual(plan({ transaction: tx([uploadOp()], { memo: { type: 1, text: new xdr.XdrString('hi') } }) }), { error: ERR_MEMO });
  assert.deepEqual(plan({ transaction: feeBump([uploadOp()], { memo: { type: 2, id: 1n } }) }), { error: ERR_MEMO });
  // authMode values are checked before the operation type
  assert.deepEqual(plan({ transaction: tx([paymentOp]), authMode: 'bogus' }), { error: ERR_AUTH_MODE });
  assert.equal(ERR_AUTH_MODE, "optional 'authMode' must be one of enforce,record,record_allow_nonroot when included");
  assert.deepEqual(plan({ transaction: tx([paymentOp]) }), { error: 'transaction contains unsupported operation type: OperationTypePayment' });
  assert.deepEqual(plan({ transaction: tx([manageDataOp]), authMode: 'record' }), { error: 'transaction contains unsupported operation type: OperationTypeManageData' });
  assert.deepEqual(plan({ transaction: tx([uploadOp([sourceAuth])]), authMode: 'record' }), { error: "cannot set authMode to 'record' with an auth footprint" });
  assert.deepEqual(plan({ transaction: tx([uploadOp([sourceAuth])]), authMode: 'record_allow_nonroot' }),
    { error: "cannot set authMode to 'record_allow_nonroot' with an auth footprint" });
  assert.deepEqual(plan({ transaction: tx([extendOp], { data: sorobanData }), authMode: 'enforce' }), { error: ERR_AUTH_MODE_NON_INVOKE });
  assert.deepEqual(plan({ transaction: tx([extendOp]) }), { error: ERR_FOOTPRINT_DATA });
  assert.deepEqual(plan({ transaction: tx([restoreOp]) }), { error: ERR_FOOTPRINT_DATA });
  assert.deepEqual(plan({ transaction: feeBump([restoreOp]) }), { error: ERR_FOOTPRINT_DATA });
  assert.deepEqual(plan({ transaction: v0([extendOp]) }), { error: ERR_FOOTPRINT_DATA });
});

test('accepted requests: auth mode defaults, fee bumps, V0 envelopes, line breaks in base64', () => {
  const upload = tx([uploadOp()]);
  assert.deepEqual(plan({ transaction: upload }), { kind: 'invoke', transactionXdr: upload, authMode: 'record', format: 'base64' });
  assert.deepEqual(plan({ transaction: upload, authMode: 'record_allow_nonroot', xdrFormat: 'json' }),
    { kind: 'invoke', transactionXdr: upload, authMode: 'record_allow_nonroot', format: 'json' });
  const withAuth = tx([uploadOp([sourceAuth])]);
  assert.equal((plan({ transaction: withAuth }) as { authMode: string }).authMode, 'enforce');
  assert.equal((plan({ transaction: withAuth, authMode: 'enforce' }) as { authMode: string }).authMode, 'enforce');
  assert.equal((plan({ transaction: feeBump([uploadOp()]) }) as { kind: string }).kind, 'invoke');
  assert.equal((plan({ transaction: v0([uploadOp()]) }) as { kind: string }).kind, 'invoke');
  assert.equal((plan({ transaction: feeBump([restoreOp], { data: sorobanData }) }) as { kind: string }).kind, 'footprint');
  assert.equal((plan({ transaction: tx([extendOp], { data: sorobanData }), xdrFormat: '' }) as { kind: string }).kind, 'footprint');
  const wrapped = upload.replace(/(.{40})/g, '$1\r\n');
  assert.deepEqual(plan({ transaction: wrapped }), { kind: 'invoke', transactionXdr: upload, authMode: 'record', format: 'base64' });
});

// ------------------------------------------------------------------------------------------------
// Response shape

const b64 = (cls: { schema: { encode(v: any): Uint8Array } }, v: unknown): string => toBase64(cls.schema.encode(v));
const retval = b64(xdr.ScVal, { type: 3, u32: 7 });
const txData = b64(xdr.SorobanTransactionData, { ...sorobanData, resourceFee: 1234n });
const key = b64(xdr.LedgerKey, { type: 7, contractCode: { hash: CONTRACT } });
const entry = b64(xdr.LedgerEntry, {
  lastModifiedLedgerSeq: 0, ext: { v: 0 },
  data: { type: 7, contractCode: { ext: { v: 0 }, hash: CONTRACT, code: new Uint8Array([1, 2]) } },
});
const event = b64(xdr.DiagnosticEvent, {
  inSuccessfulContractCall: true,
  event: { ext: { v: 0 }, contractId: null, type: 2, body: { v: 0, v0: { topics: [], data: { type: 0, b: true } } } },
});
const authEntry = b64(xdr.SorobanAuthorizationEntry, sourceAuth);

const success: Simulation = {
  result: { xdr: retval, auth: [] }, transactionData: txData, minResourceFee: '1234', events: [event], contractEvents: [],
  stateChanges: [{ type: 'created', key, after: entry }, { type: 'updated', key, before: entry, after: entry }],
  cost: { cpuInsns: '100', memBytes: '200' }, latestLedger: 9,
};

test('success, base64: Go field order, minResourceFee and cost as strings, before/after null when absent', () => {
  const out = simulationResult(success, { kind: 'invoke', format: 'base64' }, 9);
  assert.deepEqual(Object.keys(out), ['transactionData', 'events', 'minResourceFee', 'results', 'cost', 'stateChanges', 'latestLedger']);
  assert.deepEqual(out.results, [{ auth: [], xdr: retval }]);
  assert.deepEqual(out.cost, { cpuInsns: '100', memBytes: '200' });
  assert.equal(JSON.stringify(out.stateChanges),
    JSON.stringify([{ type: 'created', key, before: null, after: entry }, { type: 'updated', key, before: entry, after: entry }]));
  assert.equal(out.latestLedger, 9);
});

test('success, json: …Json fields, authJson left out when empty, before/after stay null', () => {
  const out = simulationResult({ ...success, result: { xdr: retval, auth: [authEntry] } }, { kind: 'invoke', format: 'json' }, 9);
  assert.deepEqual(Object.keys(out), ['transactionDataJson', 'eventsJson', 'minResourceFee', 'results', 'cost', 'stateChanges', 'latestLedger']);
  assert.deepEqual((out.transactionDataJson as any).resource_fee, '1234');
  const [r] = out.results as any[];
  assert.deepEqual(Object.keys(r), ['authJson', 'returnValueJson']);
  assert.deepEqual(r.returnValueJson, { u32: 7 });
  const noAuth = simulationResult(success, { kind: 'invoke', format: 'json' }, 9);
  assert.deepEqual(Object.keys((noAuth.results as any[])[0]), ['returnValueJson']);
  const [created, updated] = out.stateChanges as any[];
  assert.deepEqual(Object.keys(created), ['type', 'keyJson', 'before', 'after', 'afterJson']);
  assert.equal(created.before, null);
  assert.equal(created.after, null);
  assert.deepEqual(created.keyJson, { contract_code: { hash: Buffer.from(CONTRACT).toString('hex') } });
  assert.deepEqual(Object.keys(updated), ['type', 'keyJson', 'before', 'beforeJson', 'after', 'afterJson']);
});

test('host error: error, events, cost, latestLedger only; footprint results carry no cost', () => {
  const failed: Simulation = {
    error: 'HostError: Error(Contract, #1)', minResourceFee: '0', events: [event], contractEvents: [], stateChanges: [],
    cost: { cpuInsns: '5', memBytes: '6' }, latestLedger: 4,
  };
  const out = simulationResult(failed, { kind: 'invoke', format: 'base64' }, 4);
  assert.deepEqual(out, { error: 'HostError: Error(Contract, #1)', events: [event], cost: { cpuInsns: '5', memBytes: '6' }, latestLedger: 4 });
  const footprint: Simulation = {
    transactionData: txData, minResourceFee: '1234', events: [], contractEvents: [], stateChanges: [],
    cost: { cpuInsns: '0', memBytes: '0' }, restorePreamble: { transactionData: txData, minResourceFee: '99' }, latestLedger: 4,
  };
  const f = simulationResult(footprint, { kind: 'footprint', format: 'base64' }, 4);
  assert.deepEqual(f, { transactionData: txData, minResourceFee: '1234', restorePreamble: { transactionData: txData, minResourceFee: '99' }, latestLedger: 4 });
  const fj = simulationResult(footprint, { kind: 'footprint', format: 'json' }, 4);
  assert.deepEqual(Object.keys(fj.restorePreamble as object), ['transactionDataJson', 'minResourceFee']);
});

// ------------------------------------------------------------------------------------------------
// The handler with a scripted simulator

class ScriptedSimulator implements TransactionSimulator {
  calls: Array<{ kind: string; input: unknown; opts: any }> = [];
  answer: () => Promise<Simulation> = async () => success;
  invoke(input: { transactionXdr: string }, opts: any): Promise<Simulation> {
    this.calls.push({ kind: 'invoke', input, opts });
    return this.answer();
  }
  footprint(input: { transactionXdr: string }, opts: any): Promise<Simulation> {
    this.calls.push({ kind: 'footprint', input, opts });
    return this.answer();
  }
}

function ctxWith(simulator: TransactionSimulator, latest: number | null = 12, enableDebug = true): MethodContext {
  const store = { ledgerRange: () => (latest === null ? undefined : { latest: { sequence: latest, closeTime: 0 } }) } as unknown as StoreReader;
  return { store, config: { ...defaultConfig, preflightEnableDebug: enableDebug }, node: testNode, submitter: rejectingSubmitter, simulator, heavy: testHeavy };
}
const run = (params: Record<string, unknown>, ctx: MethodContext, signal = new AbortController().signal) =>
  simulateTransaction.handler(params, ctx, testCall(signal)) as Promise<Record<string, unknown>>;

test('handler: request errors are results with latestLedger 0; the simulator is not asked', async () => {
  const sim = new ScriptedSimulator();
  assert.deepEqual(await run({ transaction: 'x' }, ctxWith(sim)), { error: ERR_UNMARSHAL, latestLedger: 0 });
  assert.deepEqual(await run({ transaction: tx([uploadOp()]) }, ctxWith(sim, null)), { error: 'DB is empty', latestLedger: 0 });
  assert.equal(sim.calls.length, 0);
});

test('handler: what reaches the simulator (auth mode, upgraded auth, leeway, debug flag, footprint path)', async () => {
  const sim = new ScriptedSimulator();
  const upload = tx([uploadOp()]);
  const r = await run({ transaction: upload, useUpgradedAuth: true, resourceConfig: { instructionLeeway: 1000 } }, ctxWith(sim, 12, false));
  assert.equal(r.latestLedger, 9, 'the ledger the host ran against');
  const c = sim.calls[0];
  assert.equal(c.kind, 'invoke');
  assert.deepEqual(c.input, { transactionXdr: upload });
  assert.deepEqual({ ...c.opts, signal: undefined }, { authMode: 'record', useUpgradedAuth: true, instructionLeeway: 1000, enableDebug: false, signal: undefined });
  await run({ transaction: tx([uploadOp([sourceAuth])]) }, ctxWith(sim));
  assert.equal(sim.calls[1].opts.authMode, 'enforce');
  assert.equal(sim.calls[1].opts.useUpgradedAuth, false);
  assert.equal(sim.calls[1].opts.instructionLeeway, 0);
  await run({ transaction: tx([restoreOp], { data: sorobanData }) }, ctxWith(sim));
  assert.equal(sim.calls[2].kind, 'footprint');
  // a leeway beyond u32 fails as the reference's u32::try_from does, without simulating
  assert.deepEqual(await run({ transaction: upload, resourceConfig: { instructionLeeway: 2 ** 32 } }, ctxWith(sim)),
    { error: 'out of range integral type conversion attempted', latestLedger: 12 });
  assert.equal(sim.calls.length, 3);
});

test('handler: queue full is a result; other simulator failures too, unless the request timed out', async () => {
  const sim = new ScriptedSimulator();
  sim.answer = () => Promise.reject(new PreflightQueueFullError());
  assert.deepEqual(await run({ transaction: tx([uploadOp()]) }, ctxWith(sim)), { error: 'preflight queue full', latestLedger: 12 });
  sim.answer = () => Promise.reject(new Error('boom'));
  assert.deepEqual(await run({ transaction: tx([uploadOp()]) }, ctxWith(sim)), { error: 'boom', latestLedger: 12 });
  const ac = new AbortController();
  ac.abort(new Error('timed out'));
  await assert.rejects(run({ transaction: tx([uploadOp()]) }, ctxWith(sim), ac.signal), /boom/);
});

// ------------------------------------------------------------------------------------------------
// The Simulator's bounded queue (a scripted addon: each call resolves when the test says so)

function scriptedAddon() {
  const pending: Array<(r: NativeSimulationResult) => void> = [];
  const result: NativeSimulationResult = {
    auth: [], minResourceFee: 0, events: [], contractEvents: [], stateChanges: [], cpuInstructions: 1, memoryBytes: 1, latestLedger: 3,
  };
  const addon = {
    simulateInvoke: () => new Promise<NativeSimulationResult>((resolve) => pending.push(resolve)),
    simulateFootprint: () => new Promise<NativeSimulationResult>((resolve) => pending.push(resolve)),
    closeDatabase: () => {},
  } as unknown as NativeAddon;
  return { addon, pending, finishOne: () => pending.shift()!(result) };
}
const tick = () => new Promise((r) => setImmediate(r));

test('Simulator: maxConcurrent run, maxWaiting wait, one more is PreflightQueueFullError; an aborted waiter leaves the line', async () => {
  const { addon, pending, finishOne } = scriptedAddon();
  const s = new Simulator({ dbPath: 'x', networkPassphrase: 'p', maxConcurrent: 1, maxWaiting: 1, addon });
  const a = s.invoke({ transactionXdr: 'a' });
  const ac = new AbortController();
  const b = s.invoke({ transactionXdr: 'b' }, { signal: ac.signal });
  await tick();
  assert.deepEqual(s.load, { running: 1, waiting: 1 });
  await assert.rejects(s.footprint({ transactionXdr: 'c' }), PreflightQueueFullError);
  assert.equal(s.queueFullErrors, 1);
  ac.abort(new Error('gave up'));
  await assert.rejects(b, /gave up/);
  assert.deepEqual(s.load, { running: 1, waiting: 0 });
  const d = s.invoke({ transactionXdr: 'd' });
  await tick();
  assert.equal(pending.length, 1, 'd waits for a');
  finishOne();
  assert.equal((await a).latestLedger, 3);
  await tick();
  assert.equal(pending.length, 1, 'd runs now');
  finishOne();
  assert.equal((await d).cost.cpuInsns, '1');
  assert.deepEqual(s.load, { running: 0, waiting: 0 });
});
