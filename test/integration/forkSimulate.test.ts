// simulateTransaction on a fork (issue 17), two processes: A, a standalone network with a contract
// that calls a second one (caller -> counter, whose count lives in its instance storage) and a
// contract holding persistent data under a key its argument names (storage); B, started with
// --fork-url A, has fetched nothing of them. Simulating on B must discover and fetch every entry the
// run reads (the called contract is named only in an argument, its code only by its instance, the
// data key only by the argument) and answer exactly what A answers. Then, with A stopped, B answers
// those entries from what it fetched and applies the invocation; a key never fetched is a clear
// JSON-RPC error, not a wrong simulation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, xdr, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { builder } from './support/sdk.ts';
import {
  addr, contractCodeKey, contractDataKey, fundedAccount, instanceKey, invoke, invokeOp, server, startContractNode, sym, u32, u64,
  uploadAndDeploy,
} from './support/contracts.ts';

describe('simulateTransaction on a fork (--fork-url)', () => {
  let a: NodeProcess;
  let b: NodeProcess | undefined;
  let sA: rpc.Server;
  let kp: Keypair;
  let counter: { contractId: string; wasmHash: Buffer };
  let caller: { contractId: string; wasmHash: Buffer };
  let storage: { contractId: string; wasmHash: Buffer };

  before(async () => {
    a = await startContractNode();
    sA = server(a.url);
    kp = await fundedAccount(a.url);
    counter = await uploadAndDeploy(sA, kp, 'counter');
    caller = await uploadAndDeploy(sA, kp, 'caller');
    storage = await uploadAndDeploy(sA, kp, 'storage');
    assert.equal((await invoke(sA, kp, invokeOp(caller.contractId, 'call_increment', addr(counter.contractId), u32(5)))).value, 5);
    await invoke(sA, kp, invokeOp(storage.contractId, 'put_persistent', sym('color'), u64(7)));
    b = await startContractNode(['--fork-url', a.url]);
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** The simulateTransaction answer without latestLedger (each node reports its own). */
  async function simulate(node: NodeProcess, transaction: string): Promise<Record<string, unknown>> {
    const r = await node.rpc('simulateTransaction', { transaction });
    assert.ok(r.result, `simulateTransaction: ${JSON.stringify(r.error)}`);
    const { latestLedger, ...rest } = r.result;
    assert.equal(typeof latestLedger, 'number');
    return rest;
  }

  it('B answers simulations exactly as A does, having fetched what they read, and applies the invocation with A stopped', async () => {
    assert.ok(b);
    const tx = async (op: xdr.Operation) => (await builder(sA, kp)).addOperation(op).build().toXDR();
    const calls = {
      crossContract: await tx(invokeOp(caller.contractId, 'call_increment', addr(counter.contractId), u32(1))),
      crossContractRead: await tx(invokeOp(caller.contractId, 'call_get', addr(counter.contractId))),
      dataUnderArgumentKey: await tx(invokeOp(storage.contractId, 'get_persistent', sym('color'))),
      absentData: await tx(invokeOp(storage.contractId, 'get_persistent', sym('nothing'))),
    };
    for (const [name, transaction] of Object.entries(calls)) {
      const onA = await simulate(a, transaction);
      assert.equal(onA.error, undefined, `${name} on A: ${String(onA.error)}`);
      const onB = await simulate(b, transaction);
      // result, auth, footprint and resources (transactionData), fee, cost, events, state changes
      assert.deepEqual(onB, onA, name);
    }

    const keys = [
      instanceKey(caller.contractId), contractCodeKey(caller.wasmHash),
      instanceKey(counter.contractId), contractCodeKey(counter.wasmHash),
      instanceKey(storage.contractId), contractCodeKey(storage.wasmHash),
      contractDataKey(storage.contractId, sym('color'), 'persistent'),
    ].map((k) => k.toXDR('base64'));
    const entries = async (node: NodeProcess) => {
      const r = await node.rpc('getLedgerEntries', { keys });
      assert.ok(r.result, JSON.stringify(r.error));
      return (r.result.entries as Array<Record<string, unknown>>).map(({ key, xdr: data, liveUntilLedgerSeq }) => ({ key, xdr: data, liveUntilLedgerSeq }))
        .sort((x, y) => String(x.key).localeCompare(String(y.key)));
    };
    const onA = await entries(a);
    assert.equal(onA.length, keys.length);
    await a.stop();

    // A is gone: B answers from what the simulations fetched
    assert.deepEqual(await entries(b), onA);
    const sB = server(b.url);
    // the account was fetched too (the simulations' source), so B builds, simulates and applies alone
    const applied = await invoke(sB, kp, invokeOp(caller.contractId, 'call_increment', addr(counter.contractId), u32(1)));
    assert.equal(applied.value, 6);
    assert.equal((await invoke(sB, kp, invokeOp(storage.contractId, 'get_persistent', sym('color')))).value, 7n);

    // a key never fetched cannot be read with A stopped: a JSON-RPC error naming the forked network
    const unknown = (await builder(sB, kp)).addOperation(invokeOp(storage.contractId, 'get_persistent', sym('elsewhere'))).build().toXDR();
    const r = await b.rpc('simulateTransaction', { transaction: unknown });
    assert.equal(r.result, undefined, JSON.stringify(r.result));
    assert.equal(r.error?.code, -32603);
    assert.match(r.error?.message ?? '', /could not read ledger entries from the forked network/);
    assert.ok(String(r.error?.message).includes(a.url), r.error?.message);
  });
});
