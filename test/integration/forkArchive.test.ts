// A fork from a history archive (--fork-archive, --fork-ledger N, --datastore), end to end: A is a
// standalone network publishing a datastore and a history archive; a contract's counter and an
// account's balance have value v1 at ledger N (past A's first checkpoint) and v2 later. B, made
// from A's archive and datastore only (no RPC of A), sees v1, chains its ledger N + 1 onto A's
// ledger N, and takes transactions. Bad input stops the start with a clear error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Operation, Asset, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { accountKey, call, entryXdr } from './support/forks.ts';
import { accountEntry } from './support/sdk.ts';
import { CHECKPOINT, latest, startA, waitFor } from './support/twoNodes.ts';
import { PASSPHRASE, fundedAccount, instanceKey, invoke, invokeOp, sendAndPoll, server, u32, uploadAndDeploy } from './support/contracts.ts';

const ledgerAt = async (node: NodeProcess, seq: number) =>
  (await call(node, 'getLedgers', { startLedger: seq, pagination: { limit: 1 } })).ledgers[0] as { sequence: number; hash: string; headerXdr: string };

describe('fork from a history archive (--fork-archive)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-fork-archive-'));
  const archive = join(dir, 'archive');
  let a: NodeProcess;
  let b: NodeProcess | undefined;
  let counterId: string;
  let holder: string;
  let n: number;
  let holderV1: string;
  let instanceV1: string;

  const archiveTip = () => {
    const file = join(archive, '.well-known', 'stellar-history.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { currentLedger: number }).currentLedger : 0;
  };
  const refused = async (args: string[]) => {
    try {
      const node = await startNodeProcess({ args: ['--log-level', 'warn', ...args], readyTimeoutMs: 30_000 });
      await node.stop();
      return assert.fail('the node started');
    } catch (e) {
      return (e as Error).message;
    }
  };

  before(async () => {
    a = await startA(dir);
    const sA = server(a.url);
    await waitFor('A to publish its first checkpoint', async () => archiveTip() >= CHECKPOINT);
    const deployer = await fundedAccount(a.url);
    ({ contractId: counterId } = await uploadAndDeploy(sA, deployer, 'counter'));
    assert.equal((await invoke(sA, deployer, invokeOp(counterId, 'increment', u32(41)))).value, 41); // v1
    holder = (await fundedAccount(a.url)).publicKey();
    n = await latest(a);
    assert.ok(n > CHECKPOINT, `N ${n} is past the first checkpoint`);
    holderV1 = (await entryXdr(a, accountKey(holder)))!;
    instanceV1 = (await entryXdr(a, instanceKey(counterId)))!;
    // v2, in later ledgers
    assert.equal((await invoke(sA, deployer, invokeOp(counterId, 'increment', u32(1)))).value, 42);
    const pay = new TransactionBuilder(await sA.getAccount(deployer.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(Operation.payment({ destination: holder, asset: Asset.native(), amount: '7' })).build();
    pay.sign(deployer);
    assert.equal((await sendAndPoll(sA, pay)).done?.status, 'SUCCESS');
    assert.notEqual(await entryXdr(a, accountKey(holder)), holderV1);
    // the checkpoint at or before N is published (A publishes each one once it has passed)
    await waitFor('A to publish the checkpoint at or before N', async () => archiveTip() >= n - ((n + 1) % 64));
    b = await startNodeProcess({
      readyTimeoutMs: 60_000,
      args: ['--log-level', 'info', '--close-mode', 'instant', '--fork-archive', archive, '--datastore', join(dir, 'datastore'),
        '--fork-ledger', String(n), '--network-passphrase', PASSPHRASE],
    });
  });
  after(async () => { await b?.stop(); await a?.stop(); });

  it('holds the state as of N; its ledger N is A\'s and N + 1 chains onto it', async () => {
    assert.equal(await entryXdr(b!, accountKey(holder)), holderV1);
    assert.equal(await entryXdr(b!, instanceKey(counterId)), instanceV1);
    const nOnA = await ledgerAt(a, n);
    const nOnB = await ledgerAt(b!, n);
    assert.equal(nOnB.hash, nOnA.hash);
    const next = await ledgerAt(b!, n + 1);
    assert.equal(next.sequence, n + 1);
    const header = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(next.headerXdr, 'base64')).header;
    assert.equal(Buffer.from(header.previousLedgerHash).toString('hex'), nOnA.hash);
    assert.match(b!.output(), /bootstrapping the state from the history archive/);
  });

  it('takes transactions: a faucet account, a payment, the counter from its value at N', async () => {
    const sB = server(b!.url);
    const kp = await fundedAccount(b!.url); // the root's lumens (the developer edit in ledger N + 1)
    const before = (await accountEntry(sB, holder)).balance;
    const pay = new TransactionBuilder(await sB.getAccount(kp.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
      .addOperation(Operation.payment({ destination: holder, asset: Asset.native(), amount: '3' })).build();
    pay.sign(kp);
    assert.equal((await sendAndPoll(sB, pay)).done?.status, 'SUCCESS');
    assert.equal((await accountEntry(sB, holder)).balance, before + 30_000_000n);
    assert.equal((await invoke(sB, kp, invokeOp(counterId, 'increment', u32(1)))).value, 42); // 41 at N, + 1
  });

  it('restarts on the same database; refuses another archive or N there', async () => {
    const port = Number(new URL(b!.url).port);
    const dbPath = b!.dbPath;
    const tip = await latest(b!);
    await b!.stop();
    const args = ['--log-level', 'warn', '--close-mode', 'instant', '--datastore', join(dir, 'datastore'), '--network-passphrase', PASSPHRASE];
    await assert.rejects(startNodeProcess({ dbPath, port, args: [...args, '--fork-archive', archive, '--fork-ledger', String(n - 1)] }),
      /holds a fork of .* at ledger/);
    b = await startNodeProcess({ dbPath, port, args: [...args, '--fork-archive', archive, '--fork-ledger', String(n)] });
    assert.ok((await latest(b)) >= tip);
    assert.ok(!/bootstrapping the state/.test(b.output()), 'the restart continues: no bootstrap');
  });

  it('bad input stops the start with a clear error', async () => {
    const base = ['--network-passphrase', PASSPHRASE];
    assert.match(await refused(['--fork-archive', archive, ...base]), /--fork-archive .* needs --fork-ledger N/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(n), '--fork-url', a.url, ...base]), /--fork-archive and --fork-url/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(n)]), /needs --network-passphrase/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(n), '--network-passphrase', 'another network']),
      /is an archive of "Standalone Network ; February 2017", not of "another network"/);
    assert.match(await refused(['--fork-archive', join(dir, 'nothing-here'), '--fork-ledger', String(n), ...base]), /the history archive cannot be read/);
    assert.match(await refused(['--fork-archive', 'http://127.0.0.1:9/archive', '--fork-ledger', String(n), ...base]), /the history archive cannot be read/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', '100000', '--datastore', join(dir, 'datastore'), ...base]),
      /has checkpoints up to ledger \d+ only \(ledger 100000 needs checkpoint 99967\)/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', '10', '--datastore', join(dir, 'datastore'), ...base]), /no checkpoint at or before it/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(CHECKPOINT + 1), ...base]),
      new RegExp(`--fork-ledger ${CHECKPOINT + 1} is not a checkpoint ledger: without --datastore`));
  });
});
