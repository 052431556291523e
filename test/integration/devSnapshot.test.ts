// lumen_snapshot / lumen_revert over HTTP with the official JS SDK: after a revert the state
// (getLedgerEntries), getLedgers, getTransaction, getTransactions and getEvents all agree with what
// they answered at the snapshot, the next ledger chains onto the snapshot's, the network keeps
// closing (a reverted transaction and a reverted sequence number go in again), the queue comes back
// as it was, a live subscription goes on over the re-closed sequences, and bad requests are refused
// with the network intact.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, xdr, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { startNodeProcess } from './support/nodeProcess.ts';
import { instanceKey, invoke, invokeOp, server, startContractNode, u32, uploadAndDeploy } from './support/contracts.ts';
import { accountKey, applied, fundedAccount } from './support/classic.ts';
import { rssMb } from './support/processMemory.ts';
import { builder } from './support/sdk.ts';
import { StreamClient } from './support/streamClient.ts';

const EVERYTHING = [{ type: 'contract' }, { type: 'system' }];

async function ok(node: NodeProcess, method: string, params?: unknown): Promise<any> {
  const r = await node.rpc(method, params);
  assert.equal(r.error, undefined, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
  return r.result;
}

async function refused(node: NodeProcess, method: string, params: unknown, message: RegExp): Promise<void> {
  const r = await node.rpc(method, params);
  assert.ok(r.error, `${method} ${JSON.stringify(params)} should be refused, got ${JSON.stringify(r.result)}`);
  assert.equal(r.error.code, -32602);
  // the method's own refusals say it in the message; schema failures in `data`
  assert.match(`${r.error.message} ${r.error.data ?? ''}`, message);
}

const payment = (to: Keypair, amount: string) => Operation.payment({ destination: to.publicKey(), asset: Asset.native(), amount }) as unknown as xdr.Operation;

/** Everything the read methods say about the ledgers from `from` to the latest. */
async function readAll(node: NodeProcess, from: number, keys: string[]) {
  const latest = (await ok(node, 'getLatestLedger')).sequence as number;
  return {
    latest,
    entries: await ok(node, 'getLedgerEntries', { keys }),
    ledgers: await ok(node, 'getLedgers', { startLedger: from, pagination: { limit: 200 } }),
    transactions: await ok(node, 'getTransactions', { startLedger: from, pagination: { limit: 200 } }),
    events: await ok(node, 'getEvents', { startLedger: from, filters: EVERYTHING, pagination: { limit: 1000 } }),
    fees: await ok(node, 'getFeeStats'),
  };
}

const prevHashOf = (ledger: { headerXdr: string }) =>
  Buffer.from(xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(ledger.headerXdr, 'base64')).header.previousLedgerHash).toString('hex');

describe('lumen_snapshot and lumen_revert (JS SDK over HTTP)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let alice: Keypair;
  let bob: Keypair;
  let counter: string;
  let keys: string[];
  let start: number;

  before(async () => {
    // ledgers close only for transactions (instant mode) or when asked: a cadence close between a revert
    // and the reads that compare with the snapshot would make them differ by that ledger
    node = await startContractNode(['--log-level', 'warn', '--ledger-close-interval', '1h']);
    s = server(node.url);
    start = (await s.getLatestLedger()).sequence;
    alice = await fundedAccount(s);
    bob = await fundedAccount(s);
    counter = (await uploadAndDeploy(s, alice, 'counter')).contractId;
    await invoke(s, alice, invokeOp(counter, 'increment', u32(1)));
    keys = [
      xdr.LedgerKey.schema.encode(accountKey(alice.publicKey())),
      xdr.LedgerKey.schema.encode(accountKey(bob.publicKey())),
      instanceKey(counter).toXDR(),
    ].map((k) => Buffer.from(k).toString('base64'));
  });

  after(async () => { await node?.stop(); });

  it('a revert takes ledgers, transactions, events and state back; the next ledger chains on and the network keeps closing', async () => {
    const snap = await ok(node, 'lumen_snapshot');
    assert.match(snap.id, /^0x[0-9a-f]+$/);
    const before = await readAll(node, start, keys);
    assert.equal(snap.ledger, before.latest);

    const pay = await applied(s, alice, [payment(bob, '12.5')]);
    const incr = await invoke(s, alice, invokeOp(counter, 'increment', u32(5)));
    assert.equal(incr.value, 6);
    const during = await readAll(node, start, keys);
    assert.ok(during.latest > snap.ledger);
    assert.notDeepEqual(during.entries, before.entries);

    const reverted = await ok(node, 'lumen_revert', { id: snap.id });
    assert.equal(reverted.ledger, snap.ledger);
    assert.deepEqual(reverted.dropped, [snap.id]);
    assert.equal(reverted.queued, 0);

    const after = await readAll(node, start, keys);
    assert.deepEqual(after, before, 'every read method answers as at the snapshot');
    assert.equal(after.ledgers.ledgers.at(-1).sequence, snap.ledger);
    assert.equal(after.ledgers.ledgers.at(-1).hash, reverted.hash);
    for (const hash of [pay.hash, incr.hash]) assert.equal((await s.getTransaction(hash)).status, 'NOT_FOUND');
    assert.equal((await ok(node, 'getTransaction', { hash: pay.hash })).status, 'NOT_FOUND');

    // the reverted payment's very envelope goes in again (its sequence number is free again) ...
    const again = await s.sendTransaction(pay.tx);
    assert.equal(again.status, 'PENDING');
    const redone = await s.pollTransaction(again.hash, { attempts: 100, sleepStrategy: () => 50 });
    assert.equal(redone.status, 'SUCCESS');
    // ... on a ledger chained onto the snapshot's
    const next = (await ok(node, 'getLedgers', { startLedger: snap.ledger + 1, pagination: { limit: 1 } })).ledgers[0];
    assert.equal(next.sequence, snap.ledger + 1);
    assert.equal(prevHashOf(next), reverted.hash);
    // a new transaction reusing the reverted increment's sequence number, and the count it sees
    const incrAgain = await invoke(s, alice, invokeOp(counter, 'increment', u32(2)));
    assert.equal(incrAgain.tx.sequence, incr.tx.sequence);
    assert.equal(incrAgain.value, 3, 'the count goes on from the snapshot, not from the reverted increment');
    const events = await s.getEvents({ startLedger: snap.ledger + 1, filters: [{ type: 'contract', contractIds: [counter] }] });
    assert.deepEqual(events.events.map((e) => e.txHash), [incrAgain.hash]);
    const txs = await ok(node, 'getTransactions', { startLedger: snap.ledger + 1, pagination: { limit: 10 } });
    assert.deepEqual(txs.transactions.map((t: any) => t.txHash), [again.hash, incrAgain.hash]);

    // the snapshot is gone once used
    await refused(node, 'lumen_revert', { id: snap.id }, /unknown snapshot id/);
  });

  it('revert to a ledger: the snapshots of later ledgers are dropped, earlier ones kept', async () => {
    const early = await ok(node, 'lumen_snapshot');
    await applied(s, bob, [payment(alice, '1')]);
    const late = await ok(node, 'lumen_snapshot');
    await applied(s, bob, [payment(alice, '2')]);
    const target = late.ledger - 1;
    assert.ok(target >= early.ledger);
    const r = await ok(node, 'lumen_revert', { ledger: target });
    assert.equal(r.ledger, target);
    assert.deepEqual(r.dropped, [late.id]);
    assert.equal((await s.getLatestLedger()).sequence, target);
    const back = await ok(node, 'lumen_revert', { id: early.id });
    assert.equal(back.ledger, early.ledger);
  });

  it('the queue: what was queued at the snapshot is back after the revert, what was queued after is gone', async () => {
    await ok(node, 'lumen_setCloseMode', { mode: 'manual' });
    try {
      const before = (await s.getLatestLedger()).sequence;
      const fromAlice = (await builder(s, alice)).addOperation(payment(bob, '3')).build();
      fromAlice.sign(alice);
      assert.equal((await s.sendTransaction(fromAlice)).status, 'PENDING');
      const snap = await ok(node, 'lumen_snapshot');
      const fromBob = (await builder(s, bob)).addOperation(payment(alice, '4')).build();
      fromBob.sign(bob);
      const bobSent = await s.sendTransaction(fromBob);
      assert.equal(bobSent.status, 'PENDING');
      const r = await ok(node, 'lumen_revert', { id: snap.id });
      assert.equal(r.queued, 1);
      assert.equal(r.ledger, before);
      await ok(node, 'lumen_closeLedgers', { count: 1 });
      assert.equal((await s.getTransaction(Buffer.from(fromAlice.hash()).toString('hex'))).status, 'SUCCESS');
      assert.equal((await s.getTransaction(bobSent.hash)).status, 'NOT_FOUND');
      // not queued any more: it would be in this ledger otherwise
      await ok(node, 'lumen_closeLedgers', { count: 1 });
      assert.equal((await s.getTransaction(bobSent.hash)).status, 'NOT_FOUND');
      // and it may be sent again, and gets in
      assert.equal((await s.sendTransaction(fromBob)).status, 'PENDING');
      await ok(node, 'lumen_closeLedgers', { count: 1 });
      assert.equal((await s.getTransaction(bobSent.hash)).status, 'SUCCESS');
    } finally {
      await ok(node, 'lumen_setCloseMode', { mode: 'instant' });
    }
  });

  it('a live ledgers subscription goes on over the re-closed sequences, without a gap', async () => {
    await ok(node, 'lumen_setCloseMode', { mode: 'manual' });
    const c = await StreamClient.open(node.url);
    try {
      const snap = await ok(node, 'lumen_snapshot');
      const sub = await c.subscribe({ kind: 'ledgers' });
      await ok(node, 'lumen_closeLedgers', { count: 3, closeTimeStep: 1 });
      await c.waitFor('three ledgers', () => c.results(sub).length >= 3);
      const r = await ok(node, 'lumen_revert', { id: snap.id });
      await ok(node, 'lumen_closeLedgers', { count: 2, closeTimeStep: 1 });
      await c.waitFor('two re-closed ledgers', () => c.results(sub).length >= 5);
      const got = c.results(sub);
      const L = snap.ledger;
      assert.deepEqual(got.map((l) => l.sequence), [L + 1, L + 2, L + 3, L + 1, L + 2]);
      assert.equal(prevHashOf(got[3]), r.hash);
      const stored = (await ok(node, 'getLedgers', { startLedger: L + 1, pagination: { limit: 2 } })).ledgers;
      assert.deepEqual(got.slice(3), stored, 'the re-closed ledgers as getLedgers has them');
      assert.equal(c.ws.readyState, c.ws.OPEN);
    } finally {
      c.close();
      await ok(node, 'lumen_setCloseMode', { mode: 'instant' });
    }
  });

  it('bad requests are refused and the network keeps its data and keeps closing', async () => {
    const latest = (await s.getLatestLedger()).sequence;
    const state = await ok(node, 'getLedgerEntries', { keys });
    await refused(node, 'lumen_revert', { id: '0x999' }, /unknown snapshot id "0x999"/);
    await refused(node, 'lumen_revert', { id: 'banana' }, /unknown snapshot id/);
    await refused(node, 'lumen_revert', { ledger: latest + 5 }, new RegExp(`after the latest ledger ${latest}`));
    await refused(node, 'lumen_revert', {}, /exactly one of id .* and ledger/);
    await refused(node, 'lumen_revert', { id: '0x1', ledger: 3 }, /exactly one of id .* and ledger/);
    await refused(node, 'lumen_revert', { ledger: 0 }, /ledger/);
    await refused(node, 'lumen_revert', { ledger: 'x' }, /ledger/);
    assert.equal((await s.getLatestLedger()).sequence, latest);
    assert.deepEqual(await ok(node, 'getLedgerEntries', { keys }), state);
    await applied(s, alice, [payment(bob, '1')]);
    assert.ok((await s.getLatestLedger()).sequence > latest);
  });
});

describe('lumen_revert refusals that depend on the node', () => {
  it('below the oldest ledger whose state can be rebuilt (the window moved past a snapshot)', async () => {
    const node = await startNodeProcess({ args: ['--close-mode', 'manual', '--history-retention-window', '8', '--log-level', 'warn'] });
    try {
      const snap = await ok(node, 'lumen_snapshot');
      await ok(node, 'lumen_closeLedgers', { count: 20 });
      const latest = (await ok(node, 'getLatestLedger')).sequence;
      await refused(node, 'lumen_revert', { id: snap.id }, /oldest ledger whose state can be rebuilt is \d+/);
      await refused(node, 'lumen_revert', { ledger: 1 }, /oldest ledger whose state can be rebuilt is \d+/);
      assert.equal((await ok(node, 'getLatestLedger')).sequence, latest);
      // within the window it works, and closing goes on
      const r = await ok(node, 'lumen_revert', { ledger: latest - 3 });
      assert.equal(r.ledger, latest - 3);
      assert.equal((await ok(node, 'lumen_closeLedgers', { count: 1 })).latestLedger, latest - 2);
    } finally {
      await node.stop();
    }
  });

  it('with the entry history off, and while publishing a datastore', async () => {
    const noHistory = await startNodeProcess({ args: ['--close-mode', 'manual', '--ledger-entry-history=false', '--log-level', 'warn'] });
    try {
      const snap = await ok(noHistory, 'lumen_snapshot');
      await ok(noHistory, 'lumen_closeLedgers', { count: 2 });
      await refused(noHistory, 'lumen_revert', { id: snap.id }, /entry history is off \(--ledger-entry-history=false\)/);
      await ok(noHistory, 'lumen_closeLedgers', { count: 1 });
    } finally {
      await noHistory.stop();
    }
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const publishing = await startNodeProcess({ args: ['--close-mode', 'manual', '--publish-datastore', join(mkdtempSync(join(tmpdir(), 'lumen-ds-')), 'ds'), '--log-level', 'warn'] });
    try {
      const snap = await ok(publishing, 'lumen_snapshot');
      await ok(publishing, 'lumen_closeLedgers', { count: 2 });
      await refused(publishing, 'lumen_revert', { id: snap.id }, /publishes its ledgers \(--publish-datastore\)/);
      await ok(publishing, 'lumen_closeLedgers', { count: 1 });
    } finally {
      await publishing.stop();
    }
  });
});

describe('lumen_snapshot is bounded', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'manual', '--log-level', 'warn'] });
    s = server(node.url);
  });
  after(async () => { await node?.stop(); });

  it('100,000 snapshots of a queue of 40 transactions: the node stays up and small, the oldest snapshots are dropped, the newest reverts', async () => {
    const payers = await Promise.all(Array.from({ length: 40 }, () => fundedAccount(s)));
    const to = Keypair.random();
    for (const payer of payers) {
      const tx = (await builder(s, payer)).addOperation(Operation.createAccount({ destination: to.publicKey(), startingBalance: '1' }) as unknown as xdr.Operation).build();
      tx.sign(payer);
      assert.equal((await s.sendTransaction(tx)).status, 'PENDING');
    }
    let newest = 0;
    for (let batch = 0; batch < 100; batch++) {
      const body = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'lumen_snapshot' })));
      const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answers = await res.json() as Array<{ result?: { id: string } }>;
      assert.equal(answers.length, 1000);
      assert.ok(answers.every((a) => a.result), JSON.stringify(answers.find((a) => !a.result)));
      for (const a of answers) newest = Math.max(newest, parseInt(a.result!.id.slice(2), 16));
    }
    assert.equal(newest, 100_000);
    assert.equal((await ok(node, 'getLatestLedger')).sequence, (await s.getLatestLedger()).sequence);
    const rss = rssMb(node.child.pid!);
    assert.ok(rss < 1024, `RSS ${rss.toFixed(0)} MB`);
    // 40 entries a snapshot: the default 1,000,000 entries keep the newest 25,000 (the count cap, 10,000, first)
    await refused(node, 'lumen_revert', { id: '0x1' }, /snapshot 0x1 was dropped to make room .*the snapshots kept are 10000, from 0x15f91 to 0x186a0/);
    const r = await ok(node, 'lumen_revert', { id: `0x${newest.toString(16)}` });
    assert.equal(r.queued, 40, 'the queue as the newest snapshot holds it');
  });
});
