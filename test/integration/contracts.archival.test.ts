// State expiry over HTTP with the official JS SDK: a temporary entry disappears once its TTL ends;
// persistent entries (and the contract's instance and code) are archived, and come back through the
// SDK's restore flows: an invocation whose simulation marks them for automatic restore
// (SorobanTransactionData ext v1 archivedSorobanEntries), and RestoreFootprint built from the
// restorePreamble a simulated ExtendFootprintTTL returns.
//
// The node's network is created with short minimum TTLs (--min-temporary-ttl 30, --min-persistent-ttl
// 60 instead of testnet's 720 and 120,960) and moved forward by running its database with a 1 ms
// ledger cadence (advanceTo), so expiry takes a few dozen ledgers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Operation, SorobanDataBuilder, rpc, scValToNative, xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { builder } from './support/sdk.ts';
import {
  advanceTo, archivedIndexes, eventsJson, opInnerCode, clientFor, contractCodeKey, contractDataKey, expectSuccess, fundedAccount, instanceKey, invoke, invokeOp,
  resourceFeeOf, sendAndPoll, server, startContractNode, sym, u64, uploadAndDeploy,
} from './support/contracts.ts';

const MIN_TEMPORARY_TTL = 30;
const MIN_PERSISTENT_TTL = 60;
const ARGS = ['--min-temporary-ttl', String(MIN_TEMPORARY_TTL), '--min-persistent-ttl', String(MIN_PERSISTENT_TTL)];

const keyB64 = (k: xdr.LedgerKey) => k.toXdr('base64');

describe('state expiry and restore (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let user: Keypair;
  let storageId: string;
  let wasmHash: Buffer;
  let tempLiveUntil: number;

  before(async () => {
    node = await startContractNode(ARGS);
    s = server(node.url);
    user = await fundedAccount(node.url);
    ({ contractId: storageId, wasmHash } = await uploadAndDeploy(s, user, 'storage'));
    await invoke(s, user, invokeOp(storageId, 'put_temporary', sym('t'), u64(7)));
    await invoke(s, user, invokeOp(storageId, 'put_persistent', sym('p1'), u64(11)));
    await invoke(s, user, invokeOp(storageId, 'put_persistent', sym('p2'), u64(22)));
    tempLiveUntil = (await s.getContractData(storageId, sym('t'), rpc.Durability.Temporary)).liveUntilLedgerSeq!;
  });
  after(async () => { await node?.stop(); });

  const get = async (fn: 'get_temporary' | 'get_persistent', key: string) =>
    (await (await clientFor(node.url, storageId, user))[fn]({ key })).result as bigint | undefined | null;

  it('a temporary entry is gone once its TTL ends; writing it again creates a new one', async () => {
    const latest = (await s.getLatestLedger()).sequence;
    assert.ok(tempLiveUntil >= latest && tempLiveUntil < latest + MIN_TEMPORARY_TTL, `temporary live until ${tempLiveUntil}, latest ${latest}`);
    assert.equal(await get('get_temporary', 't'), 7n);
    node = await advanceTo(node, tempLiveUntil + 1, ARGS);
    assert.ok((await s.getLatestLedger()).sequence > tempLiveUntil);

    assert.equal(await get('get_temporary', 't') ?? undefined, undefined);
    const entries = await s.getLedgerEntries(contractDataKey(storageId, sym('t'), 'temporary'));
    assert.equal(entries.entries.length, 0, 'an expired temporary entry is not returned');
    // the persistent entries are still live
    assert.equal(await get('get_persistent', 'p1'), 11n);

    const again = await invoke(s, user, invokeOp(storageId, 'put_temporary', sym('t'), u64(8)));
    assert.equal(await get('get_temporary', 't'), 8n);
    const entry = await s.getContractData(storageId, sym('t'), rpc.Durability.Temporary);
    assert.equal(entry.lastModifiedLedgerSeq, again.done.ledger);
    assert.ok(entry.liveUntilLedgerSeq! > tempLiveUntil);
  });

  it('archived persistent entries: restored automatically by an invocation, or with RestoreFootprint from a restore preamble', async () => {
    const p1 = contractDataKey(storageId, sym('p1'), 'persistent');
    const p2 = contractDataKey(storageId, sym('p2'), 'persistent');
    const keys = [p1, p2, instanceKey(storageId), contractCodeKey(wasmHash)];
    const live = await s.getLedgerEntries(...keys);
    assert.equal(live.entries.length, 4);
    const lastLiveUntil = Math.max(...live.entries.map((e) => e.liveUntilLedgerSeq!));
    node = await advanceTo(node, lastLiveUntil + 1, ARGS);

    // archived entries are still returned by getLedgerEntries, with liveUntilLedgerSeq 0 (as the reference's)
    const archived = await s.getLedgerEntries(p1, p2);
    assert.equal(archived.entries.length, 2);
    for (const e of archived.entries) assert.equal(e.liveUntilLedgerSeq, 0);

    // 1. an invocation reading p1: its simulation marks the archived entries for automatic restore
    const raw = (await builder(s, user)).addOperation(invokeOp(storageId, 'get_persistent', sym('p1'))).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation: ${(sim as any).error}`);
    assert.ok(!rpc.Api.isSimulationRestore(sim), 'protocol 23+: no restore preamble for an invocation');
    assert.equal(scValToNative(sim.result!.retval), 11n);
    const data = sim.transactionData.build();
    const readWrite = sim.transactionData.getReadWrite().map(keyB64);
    const toRestore = archivedIndexes(data).map((i) => readWrite[i]).sort();
    assert.deepEqual(toRestore, [p1, instanceKey(storageId), contractCodeKey(wasmHash)].map(keyB64).sort());

    // sent without the restore marks: fails when applied (ENTRY_ARCHIVED) with core's diagnostic
    // error naming the archived entry (Error(Value, InvalidInput))
    const unmarked = xdr.SorobanTransactionData.fromXdr(xdr.SorobanTransactionData.schema.encode({
      ...(data.toXdrObject() as xdr.SorobanTransactionDataWire), ext: { v: 0 },
    }));
    const plainTx = (await builder(s, user)).setSorobanData(unmarked).addOperation(invokeOp(storageId, 'get_persistent', sym('p1'))).build();
    plainTx.sign(user);
    const plain = await sendAndPoll(s, plainTx);
    assert.equal(plain.done?.status, 'FAILED', `unmarked archived read: ${plain.sent.status}`);
    if (plain.done?.status === 'FAILED') {
      assert.equal(opInnerCode(plain.done.resultXdr).inner, -4 /* ENTRY_ARCHIVED */);
      const events = plain.done.diagnosticEventsXdr ?? [];
      const archivedEvent = events.map((e) => (e.toXdrObject() as xdr.DiagnosticEventWire).event.body).find((b) => {
        const d = b.v === 0 ? b.v0.data : undefined;
        return d?.type === 16 && d.vec?.[0]?.type === 14 && String(d.vec[0].str).startsWith('trying to access an archived contract');
      });
      assert.ok(archivedEvent && archivedEvent.v === 0, `diagnostic events: ${eventsJson(events)}`);
      const err = archivedEvent.v0.topics[1];
      assert.deepEqual(err.type === 2 && err.error, { type: 8, code: 2 } /* Value, InvalidInput */);
    }

    const restored = await invoke(s, user, invokeOp(storageId, 'get_persistent', sym('p1')));
    assert.equal(restored.value, 11n);
    const p1Now = await s.getContractData(storageId, sym('p1'), rpc.Durability.Persistent);
    assert.ok(p1Now.liveUntilLedgerSeq! > restored.done.ledger);
    assert.equal(await get('get_persistent', 'p1'), 11n);

    // 2. extending p2 (still archived): the simulation answers with a restore preamble
    const extend = () => Operation.extendFootprintTtl({ extendTo: 200_000 }) as unknown as xdr.Operation;
    const extendRaw = (await builder(s, user)).setSorobanData(new SorobanDataBuilder().setReadOnly([p2]).build()).addOperation(extend()).build();
    const extendSim = await s.simulateTransaction(extendRaw);
    assert.ok(rpc.Api.isSimulationRestore(extendSim), `expected a restore preamble: ${JSON.stringify(extendSim)}`);
    const preamble = extendSim.restorePreamble;
    assert.deepEqual(preamble.transactionData.getReadWrite().map(keyB64), [keyB64(p2)]);

    const restoreTx = (await builder(s, user)).setSorobanData(preamble.transactionData.build())
      .addOperation(Operation.restoreFootprint({}) as unknown as xdr.Operation).build();
    assert.equal(resourceFeeOf(restoreTx), BigInt(preamble.minResourceFee));
    restoreTx.sign(user);
    const restoreDone = expectSuccess(await sendAndPoll(s, restoreTx));
    assert.ok(restoreDone.resultXdr.feeCharged <= BigInt(restoreTx.fee));
    const p2Restored = await s.getContractData(storageId, sym('p2'), rpc.Durability.Persistent);
    assert.ok(p2Restored.liveUntilLedgerSeq! >= restoreDone.ledger);

    // now the extension simulates plainly and applies
    const extended = await invoke(s, user, extend(), { flow: 'prepare', sorobanData: new SorobanDataBuilder().setReadOnly([p2]).build() });
    const p2Extended = await s.getContractData(storageId, sym('p2'), rpc.Durability.Persistent);
    assert.equal(p2Extended.liveUntilLedgerSeq, extended.done.ledger + 200_000);
    assert.equal(await get('get_persistent', 'p2'), 22n);
  });
});
