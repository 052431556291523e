// The test contracts in contracts/ (soroban-sdk 28, built Wasm committed under contracts/wasm/)
// simulated against a real node database: events, a cross-contract call, contract errors, recorded
// authorization of a second account, temporary and persistent data.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-sdk';
import { Simulator } from '../../../src/host/index.ts';
import { encodeLedgerKey, sha256, toBase64, type AccountId, type LedgerEntry, type LedgerKey, type ScVal } from '../../../src/xdr/codec.ts';
import {
  PASSPHRASE, ROOT, account, codeKey, createTestDb, decodeScVal, instanceEntry, instanceKey, invokeOp, ttlEntry,
  u32, uploadOp, type TestDb,
} from './support.ts';

const CONTRACTS = ['counter', 'auth', 'caller', 'errors', 'storage'] as const;
type Name = typeof CONTRACTS[number];
const wasmOf = (name: Name): Uint8Array => new Uint8Array(readFileSync(new URL(`../../../contracts/wasm/${name}.wasm`, import.meta.url)));
const idOf = (name: Name): Uint8Array => sha256(Buffer.from(`contract ${name}`));

const second: AccountId = { type: 0, ed25519: sha256(Buffer.from('second account')) };

const sym = (s: string): ScVal => ({ type: 15, sym: new xdr.XdrString(s) });
const i64 = (n: bigint): ScVal => ({ type: 6, i64: n });
const u64 = (n: bigint): ScVal => ({ type: 5, u64: n });
const accountAddress = (id: AccountId): ScVal => ({ type: 18, address: { type: 0, accountId: id } });
const contractAddress = (id: Uint8Array): ScVal => ({ type: 18, address: { type: 1, contractId: id } });
const keyB64 = (k: LedgerKey): string => toBase64(encodeLedgerKey(k));
const txData = (b64: string) => xdr.SorobanTransactionData.schema.decode(Buffer.from(b64, 'base64'));
const dataKey = (contract: Uint8Array, key: ScVal, durability: 0 | 1): LedgerKey =>
  ({ type: 6, contractData: { contract: { type: 1, contractId: contract }, key, durability } });

let db: TestDb;
let sim: Simulator;
const call = (name: Name, fn: string, args: ScVal[], opts: Parameters<Simulator['invoke']>[1] = {}) =>
  sim.invoke({ operationXdr: invokeOp(idOf(name), fn, args), sourceAccount: ROOT }, opts);

before(async () => {
  db = createTestDb();
  sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  const entries: LedgerEntry[] = [account(second)];
  for (const name of CONTRACTS) {
    const wasm = wasmOf(name);
    const upload = await sim.invoke({ operationXdr: uploadOp(wasm), sourceAccount: ROOT });
    assert.equal(upload.error, undefined, `${name}: ${upload.error}`);
    const code = upload.stateChanges.find((c) => c.type === 'created');
    assert.ok(code?.after);
    entries.push(
      xdr.LedgerEntry.schema.decode(Buffer.from(code.after, 'base64')), ttlEntry(codeKey(sha256(wasm)), 500_000),
      instanceEntry(idOf(name), sha256(wasm)), ttlEntry(instanceKey(idOf(name)), 500_000),
    );
  }
  db.closeLedger(entries);
});

after(() => {
  sim?.close();
  db?.dispose();
});

test('counter: increment returns the count, emits its event and writes the instance', async () => {
  const r = await call('counter', 'increment', [u32(3)]);
  assert.equal(r.error, undefined, r.error);
  assert.deepEqual(decodeScVal(r.result!.xdr), u32(3));
  assert.equal(r.contractEvents.length, 1);
  const event = xdr.ContractEvent.schema.decode(Buffer.from(r.contractEvents[0], 'base64'));
  assert.deepEqual(event.contractId, idOf('counter'));
  assert.equal(event.body.v, 0);
  assert.deepEqual(event.body.v0.topics, [sym('counter'), sym('incr')]);
  assert.deepEqual(event.body.v0.data, u32(3));
  const data = txData(r.transactionData!);
  assert.deepEqual(data.resources.footprint.readWrite.map(keyB64), [keyB64(instanceKey(idOf('counter')))]);
  assert.deepEqual(r.stateChanges.map((c) => c.type), ['updated']);
  assert.ok(Number(r.minResourceFee) > 0);
});

test('caller: a cross-contract call reaches the counter', async () => {
  const r = await call('caller', 'call_increment', [contractAddress(idOf('counter')), u32(2)]);
  assert.equal(r.error, undefined, r.error);
  assert.deepEqual(decodeScVal(r.result!.xdr), u32(2));
  const data = txData(r.transactionData!);
  assert.deepEqual(data.resources.footprint.readWrite.map(keyB64), [keyB64(instanceKey(idOf('counter')))]);
  const readOnly = data.resources.footprint.readOnly.map(keyB64);
  assert.ok(readOnly.includes(keyB64(instanceKey(idOf('caller')))));
  assert.ok(readOnly.includes(keyB64(codeKey(sha256(wasmOf('counter'))))));
  assert.equal(r.contractEvents.length, 1, "the counter's event");
});

test('errors: contract errors by code, a panic with an error, and budget exhaustion', async () => {
  assert.deepEqual(decodeScVal((await call('errors', 'check', [i64(7n)])).result!.xdr), i64(7n));
  assert.match((await call('errors', 'check', [i64(-5n)])).error ?? '', /^HostError: Error\(Contract, #1\)/);
  assert.match((await call('errors', 'check', [i64(500n)])).error ?? '', /^HostError: Error\(Contract, #2\)/);
  assert.match((await call('errors', 'fail', [])).error ?? '', /^HostError: Error\(Contract, #3\)/);
  const spin = await call('errors', 'spin', [u64(1n)]);
  assert.match(spin.error ?? '', /^HostError: Error\(Budget, ExceededLimit\)/);
});

test("auth: a second account's authorization is recorded, as Address or AddressV2 credentials", async () => {
  const args = [accountAddress(second), u32(9)];
  const r = await call('auth', 'set', args);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.result!.auth.length, 1);
  const entry = xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(r.result!.auth[0], 'base64'));
  assert.equal(entry.credentials.type, 1);
  if (entry.credentials.type === 1) {
    assert.deepEqual(entry.credentials.address.address, { type: 0, accountId: second });
    assert.deepEqual(entry.credentials.address.signature, { type: 1 }, 'unsigned (void signature)');
  }
  assert.equal(entry.rootInvocation.function.type, 0);

  const v2 = await call('auth', 'set', args, { useUpgradedAuth: true });
  assert.equal(v2.error, undefined, v2.error);
  assert.equal(xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(v2.result!.auth[0], 'base64')).credentials.type, 2);

  const enforced = await call('auth', 'set', args, { authMode: 'enforce' });
  assert.match(enforced.error ?? '', /^HostError: Error\(Auth, InvalidAction\)/);
});

test('storage: temporary and persistent writes, and an expired temporary entry reads as absent', async () => {
  const temp = await call('storage', 'put_temporary', [sym('t'), u64(5n)]);
  assert.equal(temp.error, undefined, temp.error);
  assert.deepEqual(txData(temp.transactionData!).resources.footprint.readWrite.map(keyB64), [keyB64(dataKey(idOf('storage'), sym('t'), 0))]);
  assert.deepEqual(temp.stateChanges.map((c) => c.type), ['created']);

  const persistent = await call('storage', 'put_persistent', [sym('p'), u64(6n)]);
  assert.equal(persistent.error, undefined, persistent.error);
  assert.deepEqual(txData(persistent.transactionData!).resources.footprint.readWrite.map(keyB64), [keyB64(dataKey(idOf('storage'), sym('p'), 1))]);
  // Persistent entries pay more rent than temporary ones for the same data.
  assert.ok(Number(persistent.minResourceFee) > Number(temp.minResourceFee));

  // Stored entries: a live persistent one and a temporary one whose TTL has ended.
  const entry = (key: ScVal, durability: 0 | 1, val: ScVal): LedgerEntry => ({
    lastModifiedLedgerSeq: 3,
    data: { type: 6, contractData: { ext: { v: 0 }, contract: { type: 1, contractId: idOf('storage') }, key, durability, val } },
    ext: { v: 0 },
  });
  db.closeLedger([
    entry(sym('p'), 1, u64(6n)), ttlEntry(dataKey(idOf('storage'), sym('p'), 1), 500_000),
    entry(sym('old'), 0, u64(1n)), ttlEntry(dataKey(idOf('storage'), sym('old'), 0), 2),
  ]);
  assert.deepEqual(decodeScVal((await call('storage', 'get_persistent', [sym('p')])).result!.xdr), u64(6n));
  assert.deepEqual(decodeScVal((await call('storage', 'get_temporary', [sym('old')])).result!.xdr), { type: 1 });
  const removed = await call('storage', 'remove_persistent', [sym('p')]);
  assert.equal(removed.error, undefined, removed.error);
  assert.deepEqual(removed.stateChanges.map((c) => c.type), ['deleted']);
});
