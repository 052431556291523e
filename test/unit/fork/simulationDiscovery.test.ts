// The fork's simulateTransaction discovery loop (src/fork/simulationDiscovery.ts) without the native
// host: a resolver over a pretend remote and a pretend simulation that reads more keys each time the
// entries it read before are there (a contract calling a second one, which reads storage under a key
// only its own code names).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Contract, Keypair, StrKey, TransactionBuilder, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { MAX_ROUNDS, keysOfEnvelope, simulateOnFork, } from '../../../src/fork/simulationDiscovery.ts';
import type { Simulation } from '../../../src/host/simulator.ts';
import { ForkFetchError, type ForkedState } from '../../../src/fork/forkedState.ts';
import { decodeLedgerKey, encodeLedgerEntry, encodeLedgerKey, toBase64, toHex, type LedgerEntry, type LedgerKey } from '../../../src/xdr/codec.ts';
import { symVal } from '../../../src/xdr/scVals.ts';

const PASSPHRASE = 'Test SDF Network ; September 2015';
const source = Keypair.random();
const contractA = new Contract(StrKey.encodeContract(Buffer.alloc(32, 1)));
const addrA: xdr.ScAddressWire = { type: 1, contractId: new Uint8Array(32).fill(1) };
const addrB: xdr.ScAddressWire = { type: 1, contractId: new Uint8Array(32).fill(2) };
const wasmHash = new Uint8Array(32).fill(7);

type Key = LedgerKey;
const instanceKey = (contract: xdr.ScAddressWire): Key => ({ type: 6, contractData: { contract, key: { type: 20 }, durability: 1 } } as Key);
const codeKey: Key = { type: 7, contractCode: { hash: wasmHash } } as Key;
const storageKey: Key = { type: 6, contractData: { contract: addrB, key: symVal('COUNTER'), durability: 1 } } as Key;
const accountKey: Key = { type: 0, account: { accountId: { type: 0, ed25519: new Uint8Array(source.rawPublicKey()) } } } as Key;
const configKey: Key = { type: 8, configSetting: { configSettingId: 0 } } as Key;
const bytes = (k: Key): Uint8Array => encodeLedgerKey(k);
const b64 = (k: Key): string => toBase64(bytes(k));

/** A's instance entry, naming the Wasm. */
const instanceEntryA = encodeLedgerEntry({
  lastModifiedLedgerSeq: 5,
  data: { type: 6, contractData: {
    ext: { v: 0 }, contract: addrA, key: { type: 20 }, durability: 1,
    val: { type: 19, instance: { executable: { type: 0, wasmHash }, storage: null } },
  } },
  ext: { v: 0 },
} as LedgerEntry);

const envelope = new TransactionBuilder(new Account(source.publicKey(), '1'), { fee: '100', networkPassphrase: PASSPHRASE })
  .addOperation(contractA.call('call_get', nativeToScVal(StrKey.encodeContract(Buffer.alloc(32, 2)), { type: 'address' }))).setTimeout(0).build().toXDR();

/** The remote's keys; `resolve` records the batches it was asked for. */
class PretendFork implements ForkedState {
  readonly resolved = new Set<string>();
  readonly batches: string[][] = [];
  readonly onResolve: (() => void) | undefined;
  constructor(onResolve?: () => void) { this.onResolve = onResolve; }
  async resolve(keys: readonly Uint8Array[]): Promise<void> {
    this.onResolve?.();
    this.batches.push(keys.map(toHex));
    for (const k of keys) this.resolved.add(toHex(k));
  }
  isResolved(key: Uint8Array): boolean { return this.resolved.has(toHex(key)); }
  has(k: Key): boolean { return this.resolved.has(toHex(bytes(k))); }
}

/**
 * What the host would read: A (instance, code), then B's instance once A runs, B's code (the same
 * Wasm here: already there) and B's storage once B's instance is there; the footprint on success.
 */
function pretendSimulation(fork: PretendFork, calls: { n: number }): () => Promise<Simulation> {
  return async () => {
    calls.n++;
    const reads = [accountKey, configKey, instanceKey(addrA), codeKey];
    if (fork.has(instanceKey(addrA)) && fork.has(codeKey)) reads.push(instanceKey(addrB));
    if (fork.has(instanceKey(addrB))) reads.push(storageKey);
    const done = fork.has(storageKey);
    const data = sorobanData(reads.filter((k) => k !== accountKey && k !== configKey));
    return {
      ...(done ? { result: { xdr: 'AAAAAw==', auth: [] }, transactionData: data } : { error: 'HostError: Error(Storage, MissingValue)' }),
      minResourceFee: done ? '100' : '0', events: [], contractEvents: [], stateChanges: [],
      cost: { cpuInsns: '1', memBytes: '1' }, latestLedger: 10, readKeys: reads.map(b64),
    };
  };
}

test('keysOfEnvelope: the source account and the invoked contract instance', () => {
  const keys = keysOfEnvelope(envelope);
  assert.deepEqual(keys.first.map(toHex), [toHex(bytes(accountKey)), toHex(bytes(instanceKey(addrA)))]);
  assert.deepEqual(keys.instances.map(toHex), [toHex(bytes(instanceKey(addrA)))]);
  assert.deepEqual(keysOfEnvelope('not base64 xdr'), { first: [], instances: [], declared: [] });
});

test('discovery resolves the envelope keys and the code first, then what each round reveals, until nothing new', async () => {
  const fork = new PretendFork();
  const calls = { n: 0 };
  const outcome = await simulateOnFork({
    transactionXdr: envelope, simulate: pretendSimulation(fork, calls), fork,
    storedEntry: (k) => (toHex(k) === toHex(bytes(instanceKey(addrA))) ? instanceEntryA : undefined),
  });
  assert.equal(outcome.exhausted, false);
  assert.equal(outcome.simulation.result?.xdr, 'AAAAAw==');
  // before any simulation: source + A's instance, then A's code; B's instance; B's storage; a last clean run
  assert.deepEqual(fork.batches, [
    [toHex(bytes(accountKey)), toHex(bytes(instanceKey(addrA)))],
    [toHex(bytes(codeKey))],
    [toHex(bytes(instanceKey(addrB)))],
    [toHex(bytes(storageKey))],
  ]);
  assert.equal(calls.n, 3);
  assert.equal(outcome.rounds, 3);
  assert.equal(fork.has(configKey), false, 'network configuration keys are never asked for');
});

test('discovery with nothing known beforehand (no instance stored) finds the code from the reads', async () => {
  const fork = new PretendFork();
  const calls = { n: 0 };
  const outcome = await simulateOnFork({ transactionXdr: envelope, simulate: pretendSimulation(fork, calls), fork, storedEntry: () => undefined });
  assert.equal(outcome.exhausted, false);
  assert.ok(outcome.simulation.result);
  assert.equal(calls.n, 4);
});

test('resolved keys are not asked again: a second discovery runs once', async () => {
  const fork = new PretendFork();
  const calls = { n: 0 };
  const sim = pretendSimulation(fork, calls);
  await simulateOnFork({ transactionXdr: envelope, simulate: sim, fork, storedEntry: () => undefined });
  const before = fork.batches.length;
  calls.n = 0;
  const again = await simulateOnFork({ transactionXdr: envelope, simulate: sim, fork, storedEntry: () => undefined });
  assert.equal(calls.n, 1);
  assert.equal(again.resolvedKeys, 0);
  assert.equal(fork.batches.length, before);
});

test('a simulation that keeps reading new keys stops after MAX_ROUNDS, exhausted', async () => {
  const fork = new PretendFork();
  let n = 0;
  const outcome = await simulateOnFork({
    transactionXdr: envelope, fork, storedEntry: () => undefined,
    simulate: async () => {
      n++;
      const key: Key = { type: 7, contractCode: { hash: new Uint8Array(32).fill(100 + n) } } as Key;
      return { error: 'missing', minResourceFee: '0', events: [], contractEvents: [], stateChanges: [], cost: { cpuInsns: '0', memBytes: '0' }, latestLedger: 1, readKeys: [b64(key)] };
    },
  });
  assert.equal(outcome.exhausted, true);
  assert.equal(outcome.rounds, MAX_ROUNDS);
  assert.equal(n, MAX_ROUNDS);
});

test('a remote that cannot be read is a ForkFetchError naming the forked network (the method answers it -32603)', async () => {
  const failure = Object.assign(new Error('getLedgerEntries at http://remote.invalid/: no answer'), { url: 'http://remote.invalid/' });
  const fork = new PretendFork(() => { throw failure; });
  await assert.rejects(
    simulateOnFork({ transactionXdr: envelope, simulate: pretendSimulation(fork, { n: 0 }), fork, storedEntry: () => undefined }),
    (e: unknown) => e instanceof ForkFetchError
      && e.message === 'could not read ledger entries from the forked network http://remote.invalid/: getLedgerEntries at http://remote.invalid/: no answer',
  );
});

test('the fork\'s own ForkFetchError keeps its message', async () => {
  const fork = new PretendFork(() => { throw new ForkFetchError('http://remote.invalid/', new Error('no answer')); });
  await assert.rejects(
    simulateOnFork({ transactionXdr: envelope, simulate: pretendSimulation(fork, { n: 0 }), fork, storedEntry: () => undefined }),
    (e: unknown) => e instanceof ForkFetchError
      && e.message === 'could not read ledger entries from the forked network http://remote.invalid/: no answer',
  );
});

test('an aborted request is not turned into a remote failure', async () => {
  const ac = new AbortController();
  const reason = new Error('time limit');
  const fork = new PretendFork(() => { ac.abort(reason); throw reason; });
  await assert.rejects(
    simulateOnFork({ transactionXdr: envelope, simulate: pretendSimulation(fork, { n: 0 }), fork, storedEntry: () => undefined, signal: ac.signal }),
    (e: unknown) => e === reason,
  );
});

test('footprint keys of a result and the envelope declared footprint count as reads', async () => {
  // a simulation that reports no readKeys (e.g. an older addon): the footprint alone drives discovery
  const fork = new PretendFork();
  const calls = { n: 0 };
  const inner = pretendSimulation(fork, calls);
  const outcome = await simulateOnFork({
    transactionXdr: envelope, fork, storedEntry: () => undefined,
    simulate: async () => { const s = await inner(); return { ...s, readKeys: undefined, transactionData: sorobanData(s.readKeys!.map((k) => decodeLedgerKey(new Uint8Array(Buffer.from(k, 'base64'))))) }; },
  });
  assert.equal(outcome.exhausted, false);
  assert.ok(fork.has(storageKey));
});

function sorobanData(readOnly: Key[]): string {
  return toBase64(xdr.SorobanTransactionData.schema.encode({
    ext: { v: 0 }, resourceFee: 100n,
    resources: { footprint: { readOnly, readWrite: [] }, instructions: 0, diskReadBytes: 0, writeBytes: 0 },
  } as xdr.SorobanTransactionDataWire));
}

test('nonce keys: a recorded (random) nonce is never fetched nor re-run for; an envelope auth entry\'s nonce is resolved first', async () => {
  const nonceKey = (nonce: bigint): Key => ({ type: 6, contractData: { contract: { type: 0, accountId: { type: 0, ed25519: new Uint8Array(source.rawPublicKey()) } }, key: { type: 21, nonceKey: { nonce } }, durability: 0 } } as Key);
  const fork = new PretendFork();
  let n = 0;
  const outcome = await simulateOnFork({
    transactionXdr: envelope, fork, storedEntry: () => undefined,
    simulate: async () => {
      n++;
      return { result: { xdr: 'AAAAAQ==', auth: [] }, minResourceFee: '1', events: [], contractEvents: [], stateChanges: [], cost: { cpuInsns: '0', memBytes: '0' }, latestLedger: 1, readKeys: [b64(nonceKey(BigInt(n)))] };
    },
  });
  assert.equal(outcome.exhausted, false);
  assert.equal(n, 1);
  assert.equal(fork.has(nonceKey(1n)), false);

  const signed = new TransactionBuilder(new Account(source.publicKey(), '1'), { fee: '100', networkPassphrase: PASSPHRASE })
    .addOperation(xdr.Operation.fromXdrObject({ sourceAccount: null, body: { type: 24, invokeHostFunctionOp: {
      hostFunction: { type: 0, invokeContract: { contractAddress: addrA, functionName: new xdr.XdrString('f'), args: [] } },
      auth: [{
        credentials: { type: 1, address: { address: { type: 0, accountId: { type: 0, ed25519: new Uint8Array(source.rawPublicKey()) } }, nonce: 77n, signatureExpirationLedger: 100, signature: { type: 1 } } },
        rootInvocation: { function: { type: 0, contractFn: { contractAddress: addrA, functionName: new xdr.XdrString('f'), args: [] } }, subInvocations: [] },
      }],
    } } } as xdr.OperationWire)).setTimeout(0).build().toXDR();
  assert.ok(keysOfEnvelope(signed).first.some((k) => toHex(k) === toHex(bytes(nonceKey(77n)))));
});
