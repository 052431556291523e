// Two instances: A is the standalone network, publishing a SEP-54 datastore and a history archive;
// B follows A as it would follow testnet (state from A's archive, ledgers from A's datastore,
// transactions to A's core-compatible /tx). The official JS SDK runs its whole flow against B only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Account, Asset, Keypair, Operation, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';
import {
  PASSPHRASE, archivedIndexes, clientFor, contractDataKey, expectSuccess, invoke, invokeOp, sendAndPoll, sym, u32, u64, uploadAndDeploy,
} from './support/contracts.ts';
import { builder } from './support/sdk.ts';
import { pageToEnd } from './support/events.ts';
import { accountEntry, resultCode } from './support/sdk.ts';
import { serveFolder } from '../unit/sources/support.ts';

/** What the faucet gives (10,000 XLM), in stroops. */
const FUNDED = 100_000_000_000n;

async function oldestLedger(node: NodeProcess): Promise<number> {
  const health = await node.rpc('getHealth');
  assert.ok(health.result, JSON.stringify(health));
  return health.result.oldestLedger;
}

/** B's ledgers equal A's, hash for hash, over B's whole range, and so do their transactions. */
async function assertSameChain(a: NodeProcess, b: NodeProcess): Promise<void> {
  const oldest = await oldestLedger(b);
  const bLatest = await latest(b);
  let next = oldest;
  while (next <= bLatest) {
    const limit = Math.min(200, bLatest - next + 1);
    const [la, lb] = await Promise.all([a, b].map((n) => n.rpc('getLedgers', { startLedger: next, pagination: { limit } })));
    assert.deepEqual(lb.result.ledgers.map((l: any) => [l.sequence, l.hash]), la.result.ledgers.map((l: any) => [l.sequence, l.hash]),
      `ledgers ${next}..${next + limit - 1}`);
    next += limit;
  }
  const [ta, tb] = await Promise.all([a, b].map((n) => n.rpc('getTransactions', { startLedger: oldest, pagination: { limit: 200 } })));
  const upTo = (list: any[]) => list.filter((t) => t.ledger <= bLatest).map((t) => [t.ledger, t.applicationOrder, t.txHash]);
  assert.deepEqual(upTo(tb.result.transactions), upTo(ta.result.transactions));
}

test('B follows A from its datastore and history archive; the JS SDK works end to end against B', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-two-'));
  const a = await startA(dir);
  let b: NodeProcess | undefined;
  try {
    await waitFor('A to publish its first checkpoint', async () => (await latest(a)) > CHECKPOINT + 1);
    b = await startB(dir, a);
    await waitFor('B to catch up with A', async () => (await latest(b!)) >= (await latest(a)) - 2);
    await b.outputMatching(/bootstrapped/); // the state came from the archive

    const s = new rpc.Server(b.url, { allowHttp: true });
    const network = await s.getNetwork();
    assert.equal(network.passphrase, PASSPHRASE);
    assert.equal(network.friendbotUrl, `${b.url}/friendbot`);

    // fund through B's faucet (A's, proxied), then read the account from B's state
    const alice = Keypair.random(), bob = Keypair.random();
    await s.fundAddress(alice.publicKey());
    await s.fundAddress(bob.publicKey());
    const before = await s.getAccount(alice.publicKey());
    const firstSequence = before.sequenceNumber();

    // pay: built from B's state, sent through B to A's /tx, found by polling B
    const pay = new TransactionBuilder(before, { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '25' }))
      .setTimeout(30).build();
    pay.sign(alice);
    const paid = expectSuccess(await sendAndPoll(s, pay));
    assert.ok(paid.ledger > CHECKPOINT);
    assert.equal((await accountEntry(s, bob.publicKey())).balance, FUNDED + 250_000_000n, 'B\'s state has the payment');

    // an error answered by A's core endpoint comes back through B with the TransactionResult
    const stale = new TransactionBuilder(new Account(alice.publicKey(), firstSequence), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(30).build();
    stale.sign(alice);
    const bad = await s.sendTransaction(stale);
    assert.equal(bad.status, 'ERROR');
    assert.equal(resultCode(bad.errorResult!.toXdr()), -5 /* txBAD_SEQ */);

    // deploy and invoke a contract: simulated on B (state from A's archive + A's ledgers)
    const { contractId } = await uploadAndDeploy(s, alice, 'counter');
    const counter = await clientFor(b.url, contractId, alice);
    const values: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await (await counter.increment({ by: i + 1 })).signAndSend();
      values.push(Number(sent.result));
    }
    assert.deepEqual(values, [1, 3, 6], "the running count, simulated and applied through B");

    // the contract's events, read from B
    const { events } = await pageToEnd(s, { startLedger: paid.ledger, filters: [{ type: 'contract', contractIds: [contractId] }] }, 10);
    assert.equal(events.length, 3);

    await assertSameChain(a, b);
  } finally {
    await b?.stop();
    await a.stop();
  }
});

test('B, reading A\'s datastore and archive over HTTP, killed mid-ingest and restarted, loses and duplicates nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-kill-'));
  const a = await startA(dir);
  const http = await serveFolder(dir);
  let b: NodeProcess | undefined;
  try {
    // transactions in many ledgers, so B's backfill has work to lose or repeat
    const s = new rpc.Server(a.url, { allowHttp: true });
    const payer = Keypair.random();
    await s.fundAddress(payer.publicKey());
    for (let i = 0; i < 20; i++) await s.fundAddress(Keypair.random().publicKey());
    await waitFor('a few checkpoints on A', async () => (await latest(a)) > 3 * (CHECKPOINT + 1));

    // killed while bootstrapping the state, then while backfilling: each restart resumes
    b = await startB(http.url, a);
    const dbPath = b.dbPath;
    await b.outputMatching(/bootstrapping the ledger state/, 60_000);
    await b.stop('SIGKILL');
    b = await startB(http.url, a, dbPath);
    const deadline = Date.now() + 60_000;
    let stored = 0;
    while (stored === 0 && Date.now() < deadline) { stored = await latest(b); if (!stored) await new Promise((r) => setTimeout(r, 2)); }
    await b.stop('SIGKILL');
    assert.ok(stored > 0 && stored < (await latest(a)) - 16, `killed mid-backfill (B had ${stored})`);
    b = await startB(http.url, a, dbPath);
    await waitFor('B to catch up after the restart', async () => (await latest(b!)) >= (await latest(a)) - 2);
    await assertSameChain(a, b);
    const fundings = (await b.rpc('getTransactions', { startLedger: await oldestLedger(b), pagination: { limit: 200 } })).result.transactions;
    const hashes = fundings.map((t: any) => t.txHash);
    assert.equal(new Set(hashes).size, hashes.length, 'no transaction stored twice');
    assert.ok(hashes.length >= 21);
    assert.ok(http.requests.GET > 0, 'B read over HTTP');
  } finally {
    await b?.stop();
    await a.stop();
    await http.close();
  }
});

/** The stored value of `key` on a node: [entry XDR, liveUntilLedgerSeq], or undefined when not returned. */
async function ledgerEntry(node: NodeProcess, key: xdr.LedgerKey): Promise<[string, number | undefined] | undefined> {
  const res = await node.rpc('getLedgerEntries', { keys: [key.toXDR('base64')] });
  assert.ok(res.result, JSON.stringify(res));
  const e = res.result.entries[0];
  return e ? [e.xdr, e.liveUntilLedgerSeq] : undefined;
}

test('B keeps what A evicts as A does, and derives A\'s state-size window from the metas', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-evict-'));
  const a = await startA(dir, ['--min-temporary-ttl', '16', '--min-persistent-ttl', '24']);
  let b: NodeProcess | undefined;
  try {
    await waitFor('A to publish its first checkpoint', async () => (await latest(a)) > CHECKPOINT + 1);
    b = await startB(dir, a);
    await waitFor('B to catch up with A', async () => (await latest(b!)) >= (await latest(a)) - 2);
    const s = new rpc.Server(b.url, { allowHttp: true });
    const alice = Keypair.random();
    await s.fundAddress(alice.publicKey());
    const { contractId } = await uploadAndDeploy(s, alice, 'storage');
    await invoke(s, alice, invokeOp(contractId, 'put_persistent', sym('p'), u64(11)));
    await invoke(s, alice, invokeOp(contractId, 'put_temporary', sym('t'), u64(7)));
    const p = contractDataKey(contractId, sym('p'), 'persistent');
    const t = contractDataKey(contractId, sym('t'), 'temporary');
    const pLiveUntil = (await ledgerEntry(b, p))![1]!;
    const tLiveUntil = (await ledgerEntry(b, t))![1]!;

    // A evicts both: the temporary entry is deleted, the persistent one moves to the hot archive
    const evictedBy = Math.max(pLiveUntil, tLiveUntil) + 1;
    await waitFor('A to evict the entries', async () => (await latest(a)) > evictedBy);
    await waitFor('B to follow', async () => (await latest(b!)) > evictedBy);
    assert.equal(await ledgerEntry(b, t), undefined, 'the evicted temporary entry is gone');
    const archivedOnA = await ledgerEntry(a, p);
    assert.equal(archivedOnA?.[1], 0, 'archived on A');
    assert.deepEqual(await ledgerEntry(b, p), archivedOnA, 'B reports the archived entry as A does');

    // simulated on B, reading p marks it for automatic restore; sent, it restores p
    const raw = (await builder(s, alice)).addOperation(invokeOp(contractId, 'get_persistent', sym('p'))).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation on B: ${(sim as any).error}`);
    const readWrite = sim.transactionData.getReadWrite().map((k) => k.toXDR('base64'));
    assert.ok(archivedIndexes(sim.transactionData.build()).map((i) => readWrite[i]).includes(p.toXDR('base64')));
    const restored = await invoke(s, alice, invokeOp(contractId, 'get_persistent', sym('p')));
    assert.equal(restored.value, 11n);
    await waitFor('B to store the restore', async () => ((await ledgerEntry(b!, p))?.[1] ?? 0) > 0);
    // restored entries live only 24 ledgers here: keep p live past the next sample ledger, so that
    // the sample taken there counts it (otherwise it depends on where the restore fell)
    await invoke(s, alice, invokeOp(contractId, 'extend_persistent', sym('p'), u32(200), u32(200)));

    // past a sample ledger (every 64th), B's window entry is A's, sample for sample
    const sampleLedger = (Math.floor((await latest(a)) / 64) + 1) * 64;
    await waitFor(`A and B to pass ledger ${sampleLedger}`, async () => (await latest(b!)) > sampleLedger, 30_000);
    const windowKey = xdr.LedgerKey.fromXdr(xdr.LedgerKey.schema.encode({ type: 8, configSetting: { configSettingId: 12 } }));
    const [windowA, windowB] = await Promise.all([ledgerEntry(a, windowKey), ledgerEntry(b, windowKey)]);
    assert.deepEqual(windowB, windowA);
    const data = xdr.LedgerEntryData.schema.decode(Buffer.from(windowA![0], 'base64'));
    const samples = data.type === 8 && data.configSetting.configSettingID === 12 ? data.configSetting.liveSorobanStateSizeWindow : [];
    assert.equal(samples.length, 30);
    assert.ok(samples[samples.length - 1] > 0n, `the latest sample counts the contract's state: ${samples.join(',')}`);
    await assertSameChain(a, b);
  } finally {
    await b?.stop();
    await a.stop();
  }
});
