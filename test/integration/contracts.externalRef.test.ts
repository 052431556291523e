// Protocol 28's external contract executables (CAP-85) on the standalone network, over HTTP with
// the JS SDK 17 helpers: an owner contract (contracts/registry) keeps a Wasm hash under an executable
// tag (a persistent entry keyed by SCV_EXECUTABLE_TAG); contracts created with
// `Operation.createCustomContract({ externalRef })`, or by the owner through the host's
// create_external_ref_contract, run whatever Wasm the tag names, simulated and applied by the
// network's host; `getExternalRefWasmHash` resolves the reference from the tag entry.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Address, Keypair, Operation, nativeToScVal, rpc, xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import {
  advanceTo, clientFor, contractCodeKey, contractDataKey, fundedAccount, instanceKey, invoke, invokeOp, server, startContractNode, uploadAndDeploy, uploadWasm,
  wasm, type Invocation,
} from './support/contracts.ts';
import { ledgerKeyOf } from '../../src/xdr/ledgerKeys.ts';
import { xdr as nodeXdr } from '../../src/xdr/xdr.ts';

const tagKey = (tag: string) => xdr.ScVal.fromXdrObject({ type: 22, executableTag: new xdr.XdrString(tag) });
const externalRef = (owner: string, tag: string) =>
  new xdr.ContractExecutableExternalRef({ executableOwner: Address.fromString(owner).toScAddress(), tag });
const keyB64 = (k: xdr.LedgerKey) => k.toXdr('base64');

/** The footprint a transaction was sent with, as base64 keys. */
function footprint(r: Invocation): { readOnly: string[]; readWrite: string[] } {
  const data = (r.tx.toEnvelope().toXdrObject() as any).v1.tx.ext.sorobanData as xdr.SorobanTransactionDataWire;
  const enc = (k: xdr.LedgerKeyWire) => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64');
  return { readOnly: data.resources.footprint.readOnly.map(enc), readWrite: data.resources.footprint.readWrite.map(enc) };
}

describe('CAP-85 external contract executables (JS SDK 17)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let user: Keypair;
  let registry: string;
  let counterHash: Buffer;
  let errorsHash: Buffer;
  let byReference: string;

  const publish = async (tag: string, hash: Uint8Array) => {
    const sent = await (await (await clientFor(node.url, registry, user)).publish({ tag, wasm_hash: Buffer.from(hash) })).signAndSend();
    assert.equal(sent.getTransactionResponse?.status, 'SUCCESS');
  };
  const call = async (contractId: string, method: string, args?: Record<string, unknown>) => {
    const client = await clientFor(node.url, contractId, user);
    const tx = await client[method](args);
    return tx;
  };

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    user = await fundedAccount(node.url);
    counterHash = await uploadWasm(s, user, wasm('counter'));
    errorsHash = await uploadWasm(s, user, wasm('errors'));
    ({ contractId: registry } = await uploadAndDeploy(s, user, 'registry'));
  });
  after(async () => { await node?.stop(); });

  it('the owner publishes a tag: a persistent entry keyed by the executable tag, resolved by getExternalRefWasmHash', async () => {
    await publish('counter', counterHash);
    const key = contractDataKey(registry, tagKey('counter'), 'persistent');
    const res = await s.getLedgerEntries(key);
    assert.equal(res.entries.length, 1);
    const data = res.entries[0].val.toXdrObject() as xdr.LedgerEntryDataWire;
    assert.ok(data.type === 6 && data.contractData.val.type === 13);
    assert.deepEqual(Buffer.from(data.contractData.val.bytes), counterHash);
    assert.ok(res.entries[0].liveUntilLedgerSeq! > res.latestLedger);
    assert.deepEqual(Buffer.from(await s.getExternalRefWasmHash(externalRef(registry, 'counter'))), counterHash);
    assert.deepEqual(Buffer.from((await call(registry, 'resolve', { tag: 'counter' })).result), counterHash);

    // the host accepts only the hash of an uploaded Wasm; the simulation says so
    const refused = await call(registry, 'publish', { tag: 'nothing', wasm_hash: randomBytes(32) });
    assert.ok(rpc.Api.isSimulationError(refused.simulation!), 'publishing an unknown Wasm hash must fail');
    assert.match((refused.simulation as rpc.Api.SimulateTransactionErrorResponse).error, /Wasm does not exist/);
  });

  it('createCustomContract({ externalRef }): created and invoked, simulated and applied; the instance names the reference', async () => {
    const created = await invoke(s, user, Operation.createCustomContract({
      address: Address.fromString(user.publicKey()), externalRef: { owner: registry, tag: 'counter' }, salt: randomBytes(32),
    }) as unknown as xdr.Operation);
    byReference = created.value as string;
    assert.match(byReference, /^C[A-Z2-7]{55}$/);
    // as in core's test: the tag entry is read (the host checks it exists), the instance written
    const fp = footprint(created);
    assert.ok(fp.readOnly.includes(keyB64(contractDataKey(registry, tagKey('counter'), 'persistent'))), 'the tag entry is in the read-only footprint');
    assert.deepEqual(fp.readWrite, [keyB64(instanceKey(byReference))]);

    const instance = await s.getContractInstance(byReference);
    assert.equal(instance.executable.type, 'contractExecutableExternalRef');
    const ref = (instance.executable as any).externalRef as xdr.ContractExecutableExternalRef;
    assert.equal(Address.fromScAddress(ref.executableOwner).toString(), registry);
    assert.equal(ref.tag.toString(), 'counter');
    assert.deepEqual(Buffer.from(await s.getExternalRefWasmHash(ref)), counterHash);
    assert.deepEqual(Buffer.from(await s.getContractWasmByContractId(byReference)), wasm('counter'));

    // contract.Client.from resolves the reference for the spec; the call runs the counter's code
    const first = await (await call(byReference, 'increment', { by: 5 })).signAndSend();
    assert.equal(first.result, 5);
    const inc = await call(byReference, 'increment', { by: 2 });
    const sim = inc.simulation as rpc.Api.SimulateTransactionSuccessResponse;
    const readOnly = (sim.transactionData.build().toXdrObject() as xdr.SorobanTransactionDataWire).resources.footprint.readOnly
      .map((k) => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64'));
    assert.ok(readOnly.includes(keyB64(contractDataKey(registry, tagKey('counter'), 'persistent'))), 'invoking reads the tag entry');
    assert.ok(readOnly.includes(keyB64(contractCodeKey(counterHash))), 'and the Wasm it names');
    const second = await inc.signAndSend();
    assert.equal(second.result, 7);
    const fees = second.getTransactionResponse!;
    assert.ok(fees.status === 'SUCCESS' && fees.resultXdr.feeCharged <= BigInt((second.assembled.signed as any).fee));
  });

  it('the owner deploys by reference itself (create_external_ref_contract)', async () => {
    const tx = await call(registry, 'deploy', { tag: 'counter', salt: randomBytes(32) });
    const deployed = (await tx.signAndSend()).result as string;
    const instance = await s.getContractInstance(deployed);
    assert.equal(instance.executable.type, 'contractExecutableExternalRef');
    assert.equal((await (await call(deployed, 'increment', { by: 3 })).signAndSend()).result, 3);
  });

  it('re-publishing the tag upgrades every contract that uses it at once; their storage stays', async () => {
    const other = (await (await call(registry, 'deploy', { tag: 'counter', salt: randomBytes(32) })).signAndSend()).result as string;
    assert.equal((await (await call(other, 'increment', { by: 1 })).signAndSend()).result, 1);

    await publish('counter', errorsHash);
    for (const id of [byReference, other]) {
      assert.deepEqual(Buffer.from(await s.getContractWasmByContractId(id)), wasm('errors'));
      // a read call: its simulation runs the new code
      const checked = (await call(id, 'check', { value: 42n })).result;
      assert.equal(checked.unwrap?.() ?? checked, 42n);
    }
    await publish('counter', counterHash);
    assert.equal((await (await call(byReference, 'increment', { by: 1 })).signAndSend()).result, 8);
    assert.equal((await (await call(other, 'get')).result), 1);
  });

  it('an event whose topic is an executable tag is stored, and a getEvents topic filter finds it', async () => {
    const { done } = await invoke(s, user, invokeOp(registry, 'announce', nativeToScVal('hello', { type: 'string' })));
    const topic = tagKey('hello').toXdr('base64');
    const res = await node.rpc('getEvents', {
      startLedger: done.ledger, filters: [{ type: 'contract', contractIds: [registry], topics: [[topic]] }],
    });
    assert.equal(res.error, undefined, JSON.stringify(res.error));
    assert.equal(res.result.events.length, 1);
    assert.deepEqual(res.result.events[0].topic, [topic]);
    assert.equal(res.result.events[0].txHash, done.txHash);
  });

  it('getLedgerEntries renders the external reference and the tag key as JSON', async () => {
    const res = await node.rpc('getLedgerEntries', {
      keys: [keyB64(instanceKey(byReference)), keyB64(contractDataKey(registry, tagKey('counter'), 'persistent'))], xdrFormat: 'json',
    });
    assert.equal(res.error, undefined, JSON.stringify(res.error));
    const [instance, tag] = res.result.entries;
    const text = JSON.stringify(instance.dataJson);
    assert.match(text, /external_ref/);
    assert.match(text, new RegExp(registry));
    assert.match(JSON.stringify(tag.keyJson), /executable_tag/);
  });
});

describe('CAP-85: an archived tag entry is restored with the contract that runs through it', () => {
  const ARGS = ['--min-persistent-ttl', '40'];
  let node: NodeProcess;

  after(async () => { await node?.stop(); });

  it('once everything is archived, one invocation restores the instance, the tag entry and the Wasm it names', async () => {
    node = await startContractNode(ARGS);
    const s = server(node.url);
    const user = await fundedAccount(node.url);
    const counterHash = await uploadWasm(s, user, wasm('counter'));
    const { contractId: registry } = await uploadAndDeploy(s, user, 'registry');
    const sent = await (await (await clientFor(node.url, registry, user)).publish({ tag: 'c', wasm_hash: counterHash })).signAndSend();
    assert.equal(sent.getTransactionResponse?.status, 'SUCCESS');
    const created = await invoke(s, user, Operation.createCustomContract({
      address: Address.fromString(user.publicKey()), externalRef: { owner: registry, tag: 'c' }, salt: randomBytes(32),
    }) as unknown as xdr.Operation);
    const id = created.value as string;

    const keys = [instanceKey(id), contractDataKey(registry, tagKey('c'), 'persistent'), contractCodeKey(counterHash)];
    const live = await s.getLedgerEntries(...keys);
    node = await advanceTo(node, Math.max(...live.entries.map((e) => e.liveUntilLedgerSeq!)) + 2, ARGS);
    const archived = await s.getLedgerEntries(...keys);
    assert.deepEqual(archived.entries.map((e) => e.liveUntilLedgerSeq), [0, 0, 0]);

    const restored = await invoke(s, user, invokeOp(id, 'increment', nativeToScVal(4, { type: 'u32' })));
    assert.equal(restored.value, 4);
    const data = restored.simulation!.transactionData.build().toXdrObject() as xdr.SorobanTransactionDataWire;
    const readWrite = data.resources.footprint.readWrite.map((k) => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64'));
    const marked = data.ext.v === 1 ? data.ext.resourceExt.archivedSorobanEntries.map((i) => readWrite[i]).sort() : [];
    assert.deepEqual(marked, keys.map(keyB64).sort());
    const meta = xdr.TransactionMeta.schema.decode(restored.done.resultMetaXdr.toXdr());
    assert.ok(meta.v === 4);
    const restoredKeys = meta.v4.operations[0].changes.filter((c) => c.type === 4)
      .map((c) => c.type === 4 && c.restored.data.type !== 9 ? Buffer.from(nodeXdr.LedgerKey.schema.encode(ledgerKeyOf(c.restored.data))).toString('base64') : undefined)
      .filter((k) => k !== undefined).sort();
    assert.deepEqual(restoredKeys, keys.map(keyB64).sort());
    const back = await s.getLedgerEntries(...keys);
    for (const e of back.entries) assert.ok(e.liveUntilLedgerSeq! > restored.done.ledger);
  });
});
