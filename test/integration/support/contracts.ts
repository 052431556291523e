// Smart-contract helpers for the integration tests: the node as a process, funded accounts, Wasm
// upload and deploy, and invocations through the official JS SDK's own flows (simulateTransaction +
// assembleTransaction, prepareTransaction, contract.Client), returning the value and the fee numbers.
import { readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import {
  Address, Keypair, Operation, contract, nativeToScVal, rpc, scValToNative, xdr,
  type FeeBumpTransaction, type Transaction,
} from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './nodeProcess.ts';
import { PASSPHRASE, builder, server } from './sdk.ts';

export { PASSPHRASE };

/** The protocol-28 test contracts (every network this node runs accepts them). */
export const CONTRACT_NAMES = ['counter', 'auth', 'caller', 'errors', 'storage', 'registry'] as const;
/** Those, and contracts of later protocols: `mldsa` (protocol 30, CAP-87's host functions). */
export type ContractName = typeof CONTRACT_NAMES[number] | 'mldsa';

const WASM_DIR = new URL('../../../contracts/wasm/', import.meta.url);

export function wasm(name: ContractName): Buffer {
  return readFileSync(new URL(`${name}.wasm`, WASM_DIR));
}

/** `base` grown to exactly `size` bytes by a custom section (still valid Wasm): code of any size, each size its own hash. */
export function paddedWasm(base: Uint8Array, size: number): Uint8Array {
  const name = Buffer.from('padding');
  // section id 0, size (5-byte LEB128), name length (1 byte), name, payload
  const payloadLen = size - base.length - 1 - 5 - 1 - name.length;
  const sectionLen = 1 + name.length + payloadLen;
  const leb = [0, 1, 2, 3, 4].map((i) => ((sectionLen >>> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0));
  const out = Buffer.concat([Buffer.from(base), Buffer.from([0, ...leb, name.length]), name, Buffer.alloc(payloadLen, 0x61)]);
  assert.equal(out.length, size);
  return out;
}

export function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/** A node for contract tests: instant closes unless told otherwise. */
export async function startContractNode(args: string[] = [], opts: { dbPath?: string; port?: number } = {}): Promise<NodeProcess> {
  return startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn', ...args], dbPath: opts.dbPath, port: opts.port });
}

/**
 * Moves the network forward to ledger `target` (at least): stops `node`, runs the same database with
 * a 1 ms ledger cadence until `target` is closed, and starts it again in instant mode on the same
 * port. Expiry needs as many closed ledgers as the network's minimum TTLs (see --min-persistent-ttl).
 */
export async function advanceTo(node: NodeProcess, target: number, args: string[] = []): Promise<NodeProcess> {
  const port = Number(new URL(node.url).port);
  await node.stop();
  const fast = await startNodeProcess({ port, dbPath: node.dbPath, args: ['--close-mode', 'interval', '--ledger-close-interval', '1ms', '--log-level', 'warn', ...args] });
  try {
    for (;;) {
      const latest = (await fast.rpc('getLatestLedger')).result.sequence as number;
      if (latest >= target) break;
      await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(20, (target - latest) / 2))));
    }
  } finally {
    await fast.stop();
  }
  return startContractNode(args, { dbPath: node.dbPath, port });
}

/** A fresh account funded by the node's faucet (GET /friendbot). */
export async function fundedAccount(url: string): Promise<Keypair> {
  const kp = Keypair.random();
  const res = await fetch(`${url}/friendbot?addr=${kp.publicKey()}`);
  assert.equal(res.status, 200, `friendbot: ${await res.text()}`);
  return kp;
}

// ---- values ---------------------------------------------------------------------------------------

export const u32 = (n: number) => nativeToScVal(n, { type: 'u32' });
export const u64 = (n: number | bigint) => nativeToScVal(BigInt(n), { type: 'u64' });
export const i64 = (n: number | bigint) => nativeToScVal(BigInt(n), { type: 'i64' });
export const i128 = (n: number | bigint) => nativeToScVal(BigInt(n), { type: 'i128' });
export const sym = (s: string) => nativeToScVal(s, { type: 'symbol' });
export const addr = (a: string) => Address.fromString(a).toScVal();

export function invokeOp(contractId: string, fn: string, ...args: xdr.ScVal[]): xdr.Operation {
  return Operation.invokeContractFunction({ contract: contractId, function: fn, args }) as unknown as xdr.Operation;
}

export function contractDataKey(contractId: string, key: xdr.ScVal, durability: 'temporary' | 'persistent'): xdr.LedgerKey {
  return xdr.LedgerKey.fromXdrObject({
    type: 6,
    contractData: {
      contract: Address.fromString(contractId).toScAddress().toXdrObject(),
      key: key.toXdrObject(),
      durability: durability === 'temporary' ? 0 : 1,
    },
  } as xdr.LedgerKeyWire);
}

export function contractCodeKey(wasmHash: Uint8Array): xdr.LedgerKey {
  return xdr.LedgerKey.fromXdrObject({ type: 7, contractCode: { hash: new Uint8Array(wasmHash) } } as xdr.LedgerKeyWire);
}

export function instanceKey(contractId: string): xdr.LedgerKey {
  return contractDataKey(contractId, xdr.ScVal.fromXdrObject({ type: 20 } as xdr.ScValWire), 'persistent');
}

/** The resource fee declared in a Soroban transaction's SorobanTransactionData. */
export function resourceFeeOf(tx: Transaction): bigint {
  const env = tx.toEnvelope() as any;
  const ext = env.value.tx.ext;
  if (ext.type !== 'sorobanData') throw new Error('not a Soroban transaction');
  return BigInt(ext.value.resourceFee);
}

/** Indexes of read-write footprint entries to restore first (SorobanTransactionDataExt v1). */
export function archivedIndexes(data: xdr.SorobanTransactionData): number[] {
  const w = data.toXdrObject() as any;
  return w.ext?.v === 1 ? [...w.ext.resourceExt.archivedSorobanEntries] : [];
}

// ---- diagnostics ----------------------------------------------------------------------------------

function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

export function eventsJson(events: readonly { toJson(): unknown }[] | undefined): string {
  return json((events ?? []).map((e) => e.toJson()));
}

/** True when some diagnostic event carries the ScVal Error(Contract, #code). */
export function eventsHaveContractError(events: readonly { toJson(): unknown }[] | undefined, code: number): boolean {
  return eventsJson(events).includes(json({ error: { contract: code } }));
}

export function describeTxResult(result: xdr.TransactionResult | undefined): string {
  return result ? json(result.toJson()) : '(no result)';
}

export function describeResponse(done: rpc.Api.GetTransactionResponse): string {
  if (done.status === 'NOT_FOUND') return 'NOT_FOUND';
  return `${done.status} result ${describeTxResult(done.resultXdr)} diagnostic events ${eventsJson(done.diagnosticEventsXdr)}`;
}

/** The wire code of a TransactionResult's first operation's inner result (e.g. INVOKE_HOST_FUNCTION_TRAPPED = -2). */
export function opInnerCode(result: xdr.TransactionResult): { tx: number; op?: number; inner?: number } {
  const w = result.toXdrObject() as any;
  const r = 'innerResultPair' in w.result ? w.result.innerResultPair.result.result : w.result;
  if (!('results' in r)) return { tx: r.code };
  const op = r.results[0];
  if (op.code !== 0) return { tx: r.code, op: op.code };
  const arm = Object.keys(op.tr).find((k) => k !== 'type')!;
  return { tx: r.code, op: 0, inner: op.tr[arm].code };
}

// ---- sending --------------------------------------------------------------------------------------

export interface Invocation {
  hash: string;
  /** The transaction as sent (simulated, assembled, signed). */
  tx: Transaction;
  done: rpc.Api.GetSuccessfulTransactionResponse;
  returnValue: xdr.ScVal | undefined;
  /** scValToNative of the return value. */
  value: any;
  /** TransactionResult.feeCharged of the applied transaction. */
  feeCharged: bigint;
  /** The fee the assembled transaction offers: inclusion fee + the simulation's minResourceFee. */
  simulatedFee: bigint;
  minResourceFee: bigint;
  inclusionFee: bigint;
  simulation?: rpc.Api.SimulateTransactionSuccessResponse;
}

export interface SentResult {
  sent: rpc.Api.SendTransactionResponse;
  done?: rpc.Api.GetTransactionResponse;
}

/** Sends and, when PENDING, polls until the transaction leaves NOT_FOUND. */
export async function sendAndPoll(s: rpc.Server, tx: Transaction | FeeBumpTransaction): Promise<SentResult> {
  const sent = await s.sendTransaction(tx);
  if (sent.status !== 'PENDING') return { sent };
  const done = await s.pollTransaction(sent.hash, { attempts: 200, sleepStrategy: () => 50 });
  return { sent, done };
}

export function expectSuccess(r: SentResult): rpc.Api.GetSuccessfulTransactionResponse {
  if (r.sent.status !== 'PENDING') {
    throw new Error(`sendTransaction ${r.sent.status}: ${describeTxResult(r.sent.errorResult)} diagnostic events ${eventsJson(r.sent.diagnosticEvents)}`);
  }
  assert.ok(r.done, 'no getTransaction response');
  if (r.done.status !== 'SUCCESS') throw new Error(`transaction ${r.sent.hash}: ${describeResponse(r.done)}`);
  return r.done;
}

export interface InvokeOptions {
  /** 'simulate': simulateTransaction + assembleTransaction; 'prepare': server.prepareTransaction. */
  flow?: 'simulate' | 'prepare';
  /** Extra signers of the envelope. */
  signers?: Keypair[];
  /** Inclusion fee bid (stroops). */
  fee?: string;
  /** SorobanTransactionData to simulate with (the footprint of ExtendFootprintTTL / RestoreFootprint). */
  sorobanData?: xdr.SorobanTransactionData;
}

/**
 * Builds a one-operation Soroban transaction, simulates and assembles it with the SDK, sends it
 * unchanged, polls, and checks it succeeded with a fee charged no higher than the simulated one.
 */
export async function invoke(s: rpc.Server, source: Keypair, op: xdr.Operation, opts: InvokeOptions = {}): Promise<Invocation> {
  const fee = opts.fee ?? '100';
  const b = await builder(s, source, fee);
  if (opts.sorobanData) b.setSorobanData(opts.sorobanData);
  const raw = b.addOperation(op).build();
  let prepared: Transaction;
  let simulation: rpc.Api.SimulateTransactionSuccessResponse | undefined;
  if (opts.flow === 'prepare') {
    prepared = await s.prepareTransaction(raw);
  } else {
    const sim = await s.simulateTransaction(raw);
    if (rpc.Api.isSimulationError(sim)) throw new Error(`simulation failed: ${sim.error} events ${eventsJson(sim.events)}`);
    simulation = sim;
    prepared = rpc.assembleTransaction(raw, sim).build();
    assert.equal(resourceFeeOf(prepared), BigInt(sim.minResourceFee));
  }
  const minResourceFee = resourceFeeOf(prepared);
  const simulatedFee = BigInt(prepared.fee);
  assert.equal(simulatedFee, BigInt(fee) + minResourceFee, 'assembled fee = inclusion fee + minResourceFee');
  prepared.sign(source, ...(opts.signers ?? []));
  const done = expectSuccess(await sendAndPoll(s, prepared));
  const feeCharged = done.resultXdr.feeCharged;
  assert.ok(feeCharged <= simulatedFee, `fee charged ${feeCharged} > simulated fee ${simulatedFee}`);
  return {
    hash: done.txHash, tx: prepared, done, returnValue: done.returnValue,
    value: done.returnValue === undefined ? undefined : scValToNative(done.returnValue),
    feeCharged, simulatedFee, minResourceFee, inclusionFee: BigInt(fee), simulation,
  };
}

/** Uploads Wasm (InvokeHostFunction UploadContractWasm); returns its hash, checked against sha256. */
export async function uploadWasm(s: rpc.Server, source: Keypair, code: Uint8Array, opts: InvokeOptions = {}): Promise<Buffer> {
  const r = await invoke(s, source, Operation.uploadContractWasm({ wasm: code }) as unknown as xdr.Operation, opts);
  const hash = Buffer.from(r.value as Uint8Array);
  assert.deepEqual(hash, sha256(code));
  return hash;
}

/** Deploys an uploaded Wasm (CreateContractV2 from `source`'s address); returns the contract id (C...). */
export async function deployContract(s: rpc.Server, source: Keypair, wasmHash: Uint8Array, opts: InvokeOptions = {}): Promise<string> {
  const op = Operation.createCustomContract({
    address: Address.fromString(source.publicKey()), wasmHash: new Uint8Array(wasmHash), salt: randomBytes(32),
  }) as unknown as xdr.Operation;
  const r = await invoke(s, source, op, opts);
  assert.equal(typeof r.value, 'string');
  assert.match(r.value, /^C[A-Z2-7]{55}$/);
  return r.value as string;
}

export async function uploadAndDeploy(s: rpc.Server, source: Keypair, name: ContractName, opts: InvokeOptions = {}): Promise<{ contractId: string; wasmHash: Buffer }> {
  const wasmHash = await uploadWasm(s, source, wasm(name), opts);
  const contractId = await deployContract(s, source, wasmHash, opts);
  return { contractId, wasmHash };
}

/** Client options for `kp` over `url`, with the SDK's own node signer. */
export function clientOptions(url: string, kp: Keypair) {
  return {
    rpcUrl: url, allowHttp: true, networkPassphrase: PASSPHRASE, publicKey: kp.publicKey(),
    ...contract.basicNodeSigner(kp, PASSPHRASE),
  };
}

/** contract.Client.from: reads the contract instance and its Wasm over getLedgerEntries for the spec. */
export async function clientFor(url: string, contractId: string, kp: Keypair): Promise<contract.Client & Record<string, any>> {
  return await contract.Client.from({ ...clientOptions(url, kp), contractId }) as contract.Client & Record<string, any>;
}

/** Fee numbers of an AssembledTransaction that was signed and sent. */
export function sentFees(sent: contract.SentTransaction<unknown>): { feeCharged: bigint; simulatedFee: bigint; minResourceFee: bigint } {
  const res = sent.getTransactionResponse;
  assert.ok(res && res.status === 'SUCCESS', `transaction not successful: ${res ? describeResponse(res) : 'no response'}`);
  const tx = sent.assembled.signed as Transaction;
  return { feeCharged: res.resultXdr.feeCharged, simulatedFee: BigInt(tx.fee), minResourceFee: resourceFeeOf(tx) };
}

export { server, scValToNative };
