// A fork of a running network, end to end with the JS SDK: A is a standalone network with a deployed
// contract, a Stellar Asset Contract and funded accounts; B is started with --fork-url A and is the
// only node the SDK talks to. B reads A's accounts and contract data (fetched on first use), invokes
// A's contract, moves the balance of an impersonated holder of A's asset; A's state does not move and
// A never sees B's transactions. B restarted on its database serves what it fetched with A stopped;
// a key it never fetched then gets a clear error. Bad fork URLs stop the start with a clear error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Asset, Keypair, Operation, TransactionBuilder, rpc, xdr, type Transaction } from '@stellar/stellar-sdk';
import { freePort, startRefusal, type NodeProcess } from './support/nodeProcess.ts';
import { accountKey, call } from './support/forks.ts';
import { accountEntry } from './support/sdk.ts';
import {
  PASSPHRASE, addr, contractCodeKey, describeResponse, fundedAccount, i128, instanceKey, invoke, invokeOp, sendAndPoll,
  scValToNative, server, startContractNode, u32, uploadAndDeploy,
} from './support/contracts.ts';

const XLM = 10_000_000n;

describe('fork a network (--fork-url)', () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let sA: rpc.Server;
  let sB: rpc.Server;
  let counterId: string;
  let wasmHash: Buffer;
  let sacId: string;
  /** An account of A whose secret B never gets: B impersonates it. */
  let holder: string;
  let countOnA: number;
  const sentOnB: string[] = [];

  const entries = async (node: NodeProcess, keys: xdr.LedgerKey[]) =>
    (await call(node, 'getLedgerEntries', { keys: keys.map((k) => k.toXDR('base64')) })).entries as Array<Record<string, any>>;

  before(async () => {
    a = await startContractNode();
    sA = server(a.url);
    const deployer = await fundedAccount(a.url);
    ({ contractId: counterId, wasmHash } = await uploadAndDeploy(sA, deployer, 'counter'));
    countOnA = (await invoke(sA, deployer, invokeOp(counterId, 'increment', u32(41)))).value as number;
    assert.equal(countOnA, 41);
    sacId = (await invoke(sA, deployer, Operation.createStellarAssetContract({ asset: Asset.native() }) as unknown as xdr.Operation, { flow: 'prepare' })).value as string;
    holder = (await fundedAccount(a.url)).publicKey(); // its secret is dropped
    b = await startContractNode(['--fork-url', a.url]);
    sB = server(b.url);
  });
  after(async () => { await b?.stop(); await a?.stop(); });

  it('starts at A\'s latest ledger with A\'s passphrase, and reads A\'s accounts and contract data on first use', async () => {
    assert.equal((await sB.getNetwork()).passphrase, PASSPHRASE);
    const keys = [accountKey(holder), instanceKey(counterId), contractCodeKey(wasmHash)];
    const onA = await entries(a, keys);
    const onB = await entries(b, keys);
    assert.equal(onB.length, 3);
    assert.deepEqual(onB.map((e) => e.xdr), onA.map((e) => e.xdr));
    // contract entries keep their TTL; B's ledgers continue A's numbering
    assert.ok(onB[1].liveUntilLedgerSeq > (await sB.getLatestLedger()).sequence);
    assert.equal((await accountEntry(sB, holder)).balance, (await accountEntry(sA, holder)).balance);
    // the same answer again: from B's own state now
    assert.deepEqual((await entries(b, keys)).map((e) => e.xdr), onA.map((e) => e.xdr));
    // a key A does not have either: absent on B too
    assert.deepEqual(await entries(b, [accountKey(Keypair.random().publicKey())]), []);
  });

  it('invokes A\'s contract on B: B\'s counter moves on from A\'s value, A\'s does not', async () => {
    const user = await fundedAccount(b.url); // B's faucet pays from B's own root
    const r = await invoke(sB, user, invokeOp(counterId, 'increment', u32(1)));
    sentOnB.push(r.hash);
    assert.equal(r.value, countOnA + 1);
    const get = await sB.simulateTransaction(new TransactionBuilder(await sB.getAccount(user.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE })
      .setTimeout(60).addOperation(invokeOp(counterId, 'get')).build());
    assert.ok(rpc.Api.isSimulationSuccess(get));
    assert.equal(scValToNative(get.result!.retval), countOnA + 1);
  });

  it('moves the SAC balance of an impersonated holder of A\'s lumens', async () => {
    const user = await fundedAccount(b.url);
    await call(b, 'lumen_impersonateAccount', { account: holder });
    // the SAC's instance is fetched here; its balances are the accounts themselves
    assert.equal((await entries(b, [instanceKey(sacId)])).length, 1);
    const holderBefore = (await accountEntry(sB, holder)).balance;
    const userBefore = (await accountEntry(sB, user.publicKey())).balance;
    const raw = new TransactionBuilder(await sB.getAccount(user.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(invokeOp(sacId, 'transfer', addr(holder), addr(user.publicKey()), i128(250n * XLM))).build();
    const sim = await sB.simulateTransaction(raw);
    if (rpc.Api.isSimulationError(sim)) throw new Error(`simulation failed: ${sim.error}`);
    const prepared: Transaction = rpc.assembleTransaction(raw, sim).build();
    prepared.sign(user);
    const sent = await sendAndPoll(sB, prepared);
    assert.equal(sent.done?.status, 'SUCCESS', sent.done ? describeResponse(sent.done) : JSON.stringify(sent.sent));
    sentOnB.push(sent.sent.hash);
    assert.equal((await accountEntry(sB, holder)).balance, holderBefore - 250n * XLM);
    assert.equal((await accountEntry(sB, user.publicKey())).balance, userBefore + 250n * XLM - sent.done.resultXdr.feeCharged);
    // a classic payment from the holder, unsigned, also works on B
    const pay = new TransactionBuilder(await sB.getAccount(holder), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(Operation.payment({ destination: user.publicKey(), asset: Asset.native(), amount: '10' })).build();
    const paid = await sendAndPoll(sB, pay);
    assert.equal(paid.done?.status, 'SUCCESS', paid.done ? describeResponse(paid.done) : JSON.stringify(paid.sent));
    sentOnB.push(paid.sent.hash);
  });

  it('entries a transaction or a developer edit needs are fetched before it is admitted and applied', async () => {
    // two accounts of A that B was never asked about
    const [payee, edited] = [(await fundedAccount(a.url)).publicKey(), (await fundedAccount(a.url)).publicKey()];
    const user = await fundedAccount(b.url);
    const pay = new TransactionBuilder(await sB.getAccount(user.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(Operation.payment({ destination: payee, asset: Asset.native(), amount: '5' })).build();
    pay.sign(user);
    const paid = await sendAndPoll(sB, pay);
    assert.equal(paid.done?.status, 'SUCCESS', paid.done ? describeResponse(paid.done) : JSON.stringify(paid.sent));
    sentOnB.push(paid.sent.hash);
    const payeeOnA = await accountEntry(sA, payee);
    assert.equal((await accountEntry(sB, payee)).balance, payeeOnA.balance + 5n * XLM);
    // lumen_setBalance creates a missing account: on a fork, A's account is fetched first and keeps its sequence
    await call(b, 'lumen_setBalance', { account: edited, balance: '123456789' });
    const editedOnB = await accountEntry(sB, edited);
    assert.equal(editedOnB.balance, 123456789n);
    assert.equal(editedOnB.seqNum, (await accountEntry(sA, edited)).seqNum);
  });

  it('a revert keeps what was fetched after the snapshot, and undoes local changes to it', async () => {
    const whale = (await fundedAccount(a.url)).publicKey();
    const { id } = await call(b, 'lumen_snapshot');
    const onA = await accountEntry(sA, whale);
    assert.equal((await accountEntry(sB, whale)).balance, onA.balance); // fetched now
    await call(b, 'lumen_setBalance', { account: whale, balance: '77000000' });
    assert.equal((await accountEntry(sB, whale)).balance, 77000000n);
    await call(b, 'lumen_revert', { id });
    assert.equal((await accountEntry(sB, whale)).balance, onA.balance, 'back to the fetched value, not absent');
  });

  it('A is untouched: its state is as before and it never saw B\'s transactions', async () => {
    assert.equal(sentOnB.length, 4);
    for (const hash of sentOnB) assert.equal((await sA.getTransaction(hash)).status, 'NOT_FOUND');
    const get = await sA.simulateTransaction(new TransactionBuilder(await sA.getAccount(holder), { fee: '100', networkPassphrase: PASSPHRASE })
      .setTimeout(60).addOperation(invokeOp(counterId, 'get')).build());
    assert.ok(rpc.Api.isSimulationSuccess(get));
    assert.equal(scValToNative(get.result!.retval), countOnA);
    const onA = (await accountEntry(sA, holder)).balance;
    const onB = (await accountEntry(sB, holder)).balance;
    assert.ok(onA > onB, `A's holder balance ${onA} is still the original one (B's: ${onB})`);
  });

  it('restarted on its database with A stopped: serves what it fetched, and a clear error for what it never fetched', async () => {
    const holderOnB = (await accountEntry(sB, holder)).balance;
    const forkUrl = a.url;
    const port = Number(new URL(b.url).port);
    await b.stop();
    await a.stop();
    b = await startContractNode(['--fork-url', forkUrl], { dbPath: b.dbPath, port });
    sB = server(b.url);
    assert.equal((await accountEntry(sB, holder)).balance, holderOnB);
    assert.equal((await entries(b, [instanceKey(counterId), contractCodeKey(wasmHash)])).length, 2);
    const r = await b.rpc('getLedgerEntries', { keys: [accountKey(Keypair.random().publicKey()).toXDR('base64')] });
    assert.equal(r.error?.code, -32603);
    assert.match(r.error.message, new RegExp(`could not read ledger entries from the forked network ${forkUrl.replace(/\./g, '\\.')}: .*no answer`));
    // a transaction needing an entry it cannot fetch: the JSON-RPC error, nothing queued
    const stranger = Keypair.random();
    const tx = new TransactionBuilder(new (await import('@stellar/stellar-sdk')).Account(stranger.publicKey(), '1'), { fee: '100', networkPassphrase: PASSPHRASE })
      .setTimeout(60).addOperation(Operation.bumpSequence({ bumpTo: '5' })).build();
    tx.sign(stranger);
    const sent = await b.rpc('sendTransaction', { transaction: tx.toXDR() });
    assert.equal(sent.error?.code, -32603, JSON.stringify(sent));
    assert.match(sent.error.message, /could not read ledger entries from the forked network/);
    // the network itself goes on closing ledgers
    const seq = (await sB.getLatestLedger()).sequence;
    await call(b, 'lumen_closeLedgers', { count: 1 });
    assert.ok((await sB.getLatestLedger()).sequence > seq);
  });
});

describe('fork: bad input at start', () => {
  const refused = (args: string[]) => startRefusal({ args: ['--log-level', 'warn', ...args] });

  it('a URL that does not answer, answers garbage, or serves another passphrase than given: a clear error, no start', async () => {
    const port = await freePort();
    assert.match(await refused(['--fork-url', `http://127.0.0.1:${port}`]),
      new RegExp(`--fork-url: the forked network cannot be read: getNetwork at http://127.0.0.1:${port}: no answer`));
    const garbage = createServer((_req, res) => res.end('<html>not an RPC</html>'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
      assert.match(await refused(['--fork-url', url]), /getNetwork at .*: the answer is not JSON-RPC/);
    } finally { garbage.close(); }
    const a = await startContractNode();
    try {
      assert.match(await refused(['--fork-url', a.url, '--network-passphrase', 'Test SDF Network ; September 2015']),
        /serves the network "Standalone Network ; February 2017", not "Test SDF Network ; September 2015"/);
      assert.match(await refused(['--fork-url', a.url, '--datastore', '/tmp/nothing']), /--fork-url starts a standalone network/);
    } finally { await a.stop(); }
  });
});
