// getEvents with the official JS SDK against events emitted by a contract deployed on the
// standalone network: filtered by contract id and by topic (exact and wildcard), paged with cursors
// to the end, each event matched to the transaction that emitted it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, scValToNative, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { invoke, invokeOp, server, startContractNode, fundedAccount, sym, u32, uploadAndDeploy } from './support/contracts.ts';
import { pageToEnd } from './support/events.ts';

const INCREMENTS = [3, 1, 4, 1, 5, 9, 2];


describe('getEvents of contract events (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let start: number;
  let counter: string;
  let other: string;
  const hashes: string[] = [];

  before(async () => {
    node = await startContractNode(['--log-level', 'warn']);
    s = server(node.url);
    start = (await s.getLatestLedger()).sequence;
    const kp: Keypair = await fundedAccount(node.url);
    counter = (await uploadAndDeploy(s, kp, 'counter')).contractId;
    other = (await uploadAndDeploy(s, kp, 'counter')).contractId; // a second instance, same Wasm
    for (const by of INCREMENTS) hashes.push((await invoke(s, kp, invokeOp(counter, 'increment', u32(by)))).hash);
    await invoke(s, kp, invokeOp(other, 'increment', u32(100)));
  });

  after(async () => { await node?.stop(); });

  it('one contract id, paged two at a time to the end, carries every running count in order', async () => {
    const { events, pages } = await pageToEnd(s, { startLedger: start, filters: [{ type: 'contract', contractIds: [counter] }] }, 2);
    assert.equal(events.length, INCREMENTS.length);
    assert.equal(pages, Math.floor(INCREMENTS.length / 2) + 1);
    let total = 0;
    events.forEach((e, i) => {
      total += INCREMENTS[i];
      assert.equal(e.type, 'contract');
      assert.equal(e.contractId?.contractId(), counter);
      assert.deepEqual(e.topic.map((t) => scValToNative(t)), ['counter', 'incr']);
      assert.equal(scValToNative(e.value), total);
      assert.equal(e.txHash, hashes[i]);
      assert.equal('inSuccessfulContractCall' in e, false, 'dropped as in stellar-rpc v30');
    });
    const ids = events.map((e) => e.id);
    assert.deepEqual([...ids].sort(), ids, 'ids sort in emission order');
  });

  it('a topic filter spans both instances; a wildcard matches the same events; another topic matches none', async () => {
    const exact = await pageToEnd(s, { startLedger: start, filters: [{ type: 'contract', topics: [[sym('counter').toXDR('base64'), sym('incr').toXDR('base64')]] }] }, 3);
    assert.equal(exact.events.length, INCREMENTS.length + 1);
    assert.deepEqual(new Set(exact.events.map((e) => e.contractId?.contractId())), new Set([counter, other]));
    const wildcard = await pageToEnd(s, { startLedger: start, filters: [{ type: 'contract', topics: [['*', sym('incr').toXDR('base64')]] }] }, 100);
    assert.deepEqual(wildcard.events.map((e) => e.id), exact.events.map((e) => e.id));
    const none = await s.getEvents({ startLedger: start, filters: [{ type: 'contract', topics: [[sym('counter').toXDR('base64'), sym('decr').toXDR('base64')]] }] });
    assert.equal(none.events.length, 0);
  });

  it('the last page past the end is empty and its cursor can be used again', async () => {
    const all = await s.getEvents({ startLedger: start, filters: [{ type: 'contract', contractIds: [counter, other] }], limit: 100 });
    assert.equal(all.events.length, INCREMENTS.length + 1);
    const next = await s.getEvents({ filters: [{ type: 'contract', contractIds: [counter, other] }], cursor: all.cursor, limit: 100 });
    assert.equal(next.events.length, 0);
  });
});
