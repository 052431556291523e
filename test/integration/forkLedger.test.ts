// A fork pinned at a past ledger (--fork-ledger N), end to end: A is a standalone network where a
// contract's counter and an account's balance have value v1 at ledger N and v2 later. B, forked from
// A at ledger N, sees v1 through getLedgerEntries, a simulation and an invocation; C, a plain fork of
// A, sees v2. B restarted with another N is refused, without --fork-ledger it stays pinned. Bad N
// stops the start with a clear error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Operation, Asset, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, startRefusal, type NodeProcess } from './support/nodeProcess.ts';
import { accountKey, call, entryXdr } from './support/forks.ts';
import { accountEntry } from './support/sdk.ts';
import {
  PASSPHRASE, describeResponse, fundedAccount, instanceKey, invoke, invokeOp, sendAndPoll, scValToNative, server,
  startContractNode, u32, uploadAndDeploy,
} from './support/contracts.ts';

describe('fork at a past ledger (--fork-ledger)', () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let c: NodeProcess;
  let sA: rpc.Server;
  let counterId: string;
  let holder: string;
  let deployerPk: string;
  let deployerV1: string;
  let n: number;
  let balanceV1: bigint;
  let instanceV1: string;

  const simulatedCount = async (node: NodeProcess) => {
    const s = server(node.url);
    const source = await fundedAccount(node.url);
    const sim = await s.simulateTransaction(new TransactionBuilder(await s.getAccount(source.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE })
      .setTimeout(60).addOperation(invokeOp(counterId, 'get')).build());
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(`simulation failed: ${JSON.stringify(sim)}`);
    return scValToNative(sim.result!.retval) as number;
  };

  before(async () => {
    a = await startContractNode();
    sA = server(a.url);
    const deployerKp = await fundedAccount(a.url);
    const deployer = deployerKp;
    deployerPk = deployer.publicKey();
    ({ contractId: counterId } = await uploadAndDeploy(sA, deployer, 'counter'));
    assert.equal((await invoke(sA, deployer, invokeOp(counterId, 'increment', u32(41)))).value, 41); // v1
    holder = (await fundedAccount(a.url)).publicKey();
    balanceV1 = (await accountEntry(sA, holder)).balance;
    instanceV1 = (await entryXdr(a, instanceKey(counterId)))!;
    n = (await sA.getLatestLedger()).sequence;
    deployerV1 = (await entryXdr(a, accountKey(deployer.publicKey())))!;
    // v2, in later ledgers
    assert.equal((await invoke(sA, deployer, invokeOp(counterId, 'increment', u32(1)))).value, 42);
    const pay = new TransactionBuilder(await sA.getAccount(deployer.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(Operation.payment({ destination: holder, asset: Asset.native(), amount: '7' })).build();
    pay.sign(deployer);
    assert.equal((await sendAndPoll(sA, pay)).done?.status, 'SUCCESS');
    assert.equal((await accountEntry(sA, holder)).balance, balanceV1 + 70_000_000n);
    assert.ok((await sA.getLatestLedger()).sequence > n);
    b = await startContractNode(['--fork-url', a.url, '--fork-ledger', String(n)]);
    c = await startContractNode(['--fork-url', a.url]);
  });
  after(async () => { await b?.stop(); await c?.stop(); await a?.stop(); });

  it('starts at ledger N and reads every entry as of N; a plain fork reads the latest', async () => {
    const sB = server(b.url);
    assert.equal((await sB.getNetwork()).passphrase, PASSPHRASE);
    const genesis = (await call(b, 'getLedgers', { startLedger: n, pagination: { limit: 1 } })).ledgers[0];
    assert.equal(genesis.sequence, n);
    assert.equal(await entryXdr(b, instanceKey(counterId)), instanceV1);
    assert.equal((await accountEntry(sB, holder)).balance, balanceV1);
    assert.equal((await accountEntry(server(c.url), holder)).balance, balanceV1 + 70_000_000n);
    assert.notEqual(await entryXdr(c, instanceKey(counterId)), instanceV1);
  });

  it('simulates and invokes against the state as of N', async () => {
    assert.equal(await simulatedCount(b), 41);
    assert.equal(await simulatedCount(c), 42);
    const user = await fundedAccount(b.url);
    const r = await invoke(server(b.url), user, invokeOp(counterId, 'increment', u32(1)));
    assert.equal(r.value, 42);
    // a payment to the holder on B starts from v1
    const pay = new TransactionBuilder(await server(b.url).getAccount(user.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(Operation.payment({ destination: holder, asset: Asset.native(), amount: '1' })).build();
    pay.sign(user);
    const paid = await sendAndPoll(server(b.url), pay);
    assert.equal(paid.done?.status, 'SUCCESS', paid.done ? describeResponse(paid.done) : JSON.stringify(paid.sent));
    assert.equal((await accountEntry(server(b.url), holder)).balance, balanceV1 + 10_000_000n);
  });

  it('a restart with another N is refused; without --fork-ledger it stays pinned at N', async () => {
    const port = Number(new URL(b.url).port);
    await b.stop();
    await assert.rejects(startContractNode(['--fork-url', a.url, '--fork-ledger', String(n - 1)], { dbPath: b.dbPath, port }),
      new RegExp(`--fork-ledger ${n - 1}: the database .* is a fork of .* at ledger ${n}; a fork continues as it was made`));
    b = await startContractNode(['--fork-url', a.url], { dbPath: b.dbPath, port });
    // an entry B never fetched (the deployer's account, changed on A after N): still as of N
    assert.equal(await entryXdr(b, accountKey(deployerPk)), deployerV1);
    const plainDb = c.dbPath;
    await c.stop();
    await assert.rejects(startContractNode(['--fork-url', a.url, '--fork-ledger', String(n)], { dbPath: plainDb }),
      /reads the remote's latest state/);
    c = await startContractNode(['--fork-url', a.url], { dbPath: plainDb });
    assert.equal((await accountEntry(server(b.url), holder)).balance, balanceV1 + 10_000_000n);
  });
});

describe('fork at a past ledger: bad input at start', () => {
  const refused = (args: string[]) => startRefusal({ args: ['--log-level', 'warn', ...args] });

  it('N not a positive integer, N without --fork-url', async () => {
    for (const bad of ['0', '-3', '1.5', 'abc']) {
      assert.match(await refused(['--fork-url', 'http://127.0.0.1:9', '--fork-ledger', bad]), /--fork-ledger must be (a non-negative integer|positive)/);
    }
    assert.match(await refused(['--fork-ledger', '5']), /--fork-ledger 5 pins a fork: it needs --fork-url/);
  });

  it('N after the remote\'s latest ledger, N before what the remote can serve (nothing claimed)', async () => {
    const remote = await startContractNode(['--history-retention-window', '3']);
    try {
      assert.equal((await remote.rpc('lumen_closeLedgers', { count: 10 })).error, undefined);
      const latest = (await server(remote.url).getLatestLedger()).sequence;
      assert.match(await refused(['--fork-url', remote.url, '--fork-ledger', String(latest + 100)]),
        // (the remote keeps closing on its cadence: its latest may have moved on by a ledger or two)
        new RegExp(`--fork-ledger ${latest + 100}: ${remote.url.replace(/\./g, '\\.')} has closed ledgers up to \\d+ only`));
      const old = await refused(['--fork-url', remote.url, '--fork-ledger', '2']);
      assert.match(old, /--fork-url with --fork-ledger 2: the forked network cannot be read: (getLedgers|getLedgerEntries) at .*: error -326/);
    } finally { await remote.stop(); }
    // a remote that keeps no entry history: its getLedgerEntries error; the database is not claimed
    const noHistory = await startContractNode(['--ledger-entry-history', 'false']);
    try {
      assert.equal((await noHistory.rpc('lumen_closeLedgers', { count: 3 })).error, undefined);
      const at = (await server(noHistory.url).getLatestLedger()).sequence - 1;
      const dbPath = join(mkdtempSync(join(tmpdir(), 'lumen-forkledger-')), 'b.sqlite');
      await assert.rejects(startNodeProcess({ dbPath, args: ['--log-level', 'warn', '--fork-url', noHistory.url, '--fork-ledger', String(at)] }),
        /--fork-ledger \d+: the forked network cannot be read: getLedgerEntries at .*: error -32602: .*entry history/);
      const plain = await startContractNode(['--fork-url', noHistory.url], { dbPath });
      await plain.stop();
    } finally { await noHistory.stop(); }
  });
});
