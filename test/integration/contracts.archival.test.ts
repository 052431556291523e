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
  resourceFeeOf, sendAndPoll, server, sha256, startContractNode, sym, u64, uploadAndDeploy,
} from './support/contracts.ts';
import { ledgerKeyOf } from '../../src/xdr/ledgerKeys.ts';
import { xdr as nodeXdr } from '../../src/xdr/xdr.ts';

const MIN_TEMPORARY_TTL = 30;
const MIN_PERSISTENT_TTL = 60;
const ARGS = ['--min-temporary-ttl', String(MIN_TEMPORARY_TTL), '--min-persistent-ttl', String(MIN_PERSISTENT_TTL)];

const keyB64 = (k: xdr.LedgerKey) => k.toXdr('base64');
const wireKeyB64 = (k: nodeXdr.LedgerKeyWire) => Buffer.from(nodeXdr.LedgerKey.schema.encode(k)).toString('base64');
const ttlKeyB64 = (k: xdr.LedgerKey) => wireKeyB64({ type: 9, ttl: { keyHash: sha256(k.toXdr()) } });

/** LedgerCloseMetaV2.evictedKeys of ledger `seq`, read back through getLedgers. */
async function evictedKeys(node: NodeProcess, seq: number): Promise<string[]> {
  const res = await node.rpc('getLedgers', { startLedger: seq, pagination: { limit: 1 } });
  const ledger = res.result.ledgers[0];
  assert.equal(ledger.sequence, seq);
  const lcm = xdr.LedgerCloseMeta.schema.decode(Buffer.from(ledger.metadataXdr, 'base64'));
  assert.equal(lcm.v, 2);
  return lcm.v === 2 ? lcm.v2.evictedKeys.map(wireKeyB64) : [];
}

/** The first operation's entry changes in a transaction's meta, as [change type, key (base64)] pairs. */
function opChanges(done: rpc.Api.GetSuccessfulTransactionResponse): Array<{ type: number; key: string; entry?: nodeXdr.LedgerEntryWire }> {
  const meta = nodeXdr.TransactionMeta.schema.decode(done.resultMetaXdr.toXdr());
  assert.equal(meta.v, 4);
  if (meta.v !== 4) return [];
  return meta.v4.operations[0].changes.map((c) => {
    const entry = c.type === 0 ? c.created : c.type === 1 ? c.updated : c.type === 3 ? c.state : c.type === 4 ? c.restored : undefined;
    const key = c.type === 2 ? c.removed : ledgerKeyOf(entry!.data);
    return { type: c.type, key: wireKeyB64(key), entry };
  });
}

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
    const tempKey = contractDataKey(storageId, sym('t'), 'temporary');
    const entries = await s.getLedgerEntries(tempKey);
    assert.equal(entries.entries.length, 0, 'an expired temporary entry is not returned');
    // evicted in the first ledger it is expired for: the entry, then its TTL
    const evicted = await evictedKeys(node, tempLiveUntil + 1);
    const at = evicted.indexOf(keyB64(tempKey));
    assert.ok(at >= 0, `ledger ${tempLiveUntil + 1} evicted ${evicted.length} keys, not the temporary entry`);
    assert.equal(evicted[at + 1], ttlKeyB64(tempKey));
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

    // each was evicted to the hot archive the ledger after its TTL ended, listed as core lists it:
    // its TTL among the deleted keys, then the entry itself after every deleted key
    for (const e of live.entries) {
      const evicted = await evictedKeys(node, e.liveUntilLedgerSeq! + 1);
      const key = keyB64(e.key);
      const ttlAt = evicted.indexOf(ttlKeyB64(e.key));
      const keyAt = evicted.indexOf(key);
      assert.ok(ttlAt >= 0 && keyAt > ttlAt, `ledger ${e.liveUntilLedgerSeq! + 1} evicted ${JSON.stringify(evicted)}`);
      assert.ok(evicted.slice(keyAt).every((k) => !k.startsWith('AAAACQ')), 'archived entries come after every deleted TTL');
    }

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
    assert.equal(p1Now.lastModifiedLedgerSeq, restored.done.ledger, 'back from the hot archive, written in the restoring ledger');
    // the meta marks each restored entry and its TTL LEDGER_ENTRY_RESTORED, as core does
    const autoRestored = opChanges(restored.done);
    for (const k of [p1, instanceKey(storageId), contractCodeKey(wasmHash)]) {
      for (const id of [keyB64(k), ttlKeyB64(k)]) {
        const changes = autoRestored.filter((c) => c.key === id);
        assert.deepEqual(changes.map((c) => c.type), [4], `changes of ${id}: ${JSON.stringify(changes.map((c) => c.type))}`);
        assert.equal(changes[0].entry!.lastModifiedLedgerSeq, restored.done.ledger);
      }
    }
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
    assert.deepEqual(opChanges(restoreDone).map((c) => [c.type, c.key]).sort(), [[4, keyB64(p2)], [4, ttlKeyB64(p2)]].sort());

    // now the extension simulates plainly and applies
    const extended = await invoke(s, user, extend(), { flow: 'prepare', sorobanData: new SorobanDataBuilder().setReadOnly([p2]).build() });
    const p2Extended = await s.getContractData(storageId, sym('p2'), rpc.Durability.Persistent);
    assert.equal(p2Extended.liveUntilLedgerSeq, extended.done.ledger + 200_000);
    assert.equal(await get('get_persistent', 'p2'), 22n);
  });
});
