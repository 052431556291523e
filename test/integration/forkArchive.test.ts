// A fork from a history archive (--fork-archive, --fork-ledger N, --datastore), end to end: A is a
// standalone network publishing a datastore and a history archive; a contract's counter and an
// account's balance have value v1 at ledger N (past A's first checkpoint) and v2 later. B, made
// from A's archive and datastore only (no RPC of A), sees v1, chains its ledger N + 1 onto A's
// ledger N, and takes transactions. Bad input stops the start with a clear error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Operation, Asset, Keypair, Networks, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, startRefusal, type NodeProcess } from './support/nodeProcess.ts';
import { accountKey, call, entryXdr } from './support/forks.ts';
import { accountEntry } from './support/sdk.ts';
import { CHECKPOINT, latest, startA, waitFor } from './support/twoNodes.ts';
import { ROOT_STATE_PATH, checkpointStatePath, parseHistoryArchiveState, serializeHistoryArchiveState } from '../../src/archive/historyArchiveState.ts';
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
  /** The last ledger of the v2 writes (after N). */
  let v2Ledger: number;
  let holderV1: string;
  let instanceV1: string;

  const archiveTip = () => {
    const file = join(archive, '.well-known', 'stellar-history.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { currentLedger: number }).currentLedger : 0;
  };
  const refused = (args: string[]) => startRefusal({ args: ['--log-level', 'warn', ...args], readyTimeoutMs: 30_000 });

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
    v2Ledger = await latest(a);
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
    await b!.outputMatching(/bootstrapping the state from the history archive/);
    await b!.outputMatching(/fork: checkpoint verified/); // A's published checkpoint passes the checks
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

  it('without --datastore: the archive\'s latest checkpoint, ledger N its header, the test accounts funded and signable', async () => {
    // A publishes a checkpoint once it has passed it: wait for one after the v2 writes (ledgers after N)
    await waitFor('A to publish a checkpoint after its later writes', async () => archiveTip() >= v2Ledger);
    const tipBefore = archiveTip();
    const c = await startNodeProcess({
      readyTimeoutMs: 60_000,
      args: ['--log-level', 'info', '--close-mode', 'instant', '--fork-archive', archive, '--network-passphrase', PASSPHRASE, '--accounts', '1'],
    });
    try {
      // the fork's first stored ledger is N: the checkpoint it chose
      const fork = (await call(c, 'getHealth')).oldestLedger as number;
      assert.equal((fork + 1) % 64, 0, `${fork} is a checkpoint`);
      assert.ok(fork >= tipBefore && fork > n, `${fork}: the archive's latest checkpoint (at least ${tipBefore}), past A's later writes at ${n}`);
      const nOnA = await ledgerAt(a, fork);
      const nOnC = await ledgerAt(c, fork);
      assert.equal(nOnC.hash, nOnA.hash);
      assert.equal(nOnC.headerXdr, nOnA.headerXdr);
      const next = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from((await ledgerAt(c, fork + 1)).headerXdr, 'base64')).header;
      assert.equal(Buffer.from(next.previousLedgerHash).toString('hex'), nOnA.hash);
      // the state is A's as of N: its latest values (v2), each entry as A left it at N
      for (const key of [accountKey(holder), instanceKey(counterId)]) {
        const atN = (await call(a, 'getLedgerEntries', { keys: [key.toXDR('base64')], ledger: fork })).entries[0].xdr as string;
        assert.equal(await entryXdr(c, key), atN);
      }
      assert.notEqual(await entryXdr(c, accountKey(holder)), holderV1);
      // --accounts: test account 0 holds 10,000 XLM and pays with its own key
      const kp = Keypair.fromSecret(/\(0\) G[A-Z0-9]{55}\s+[\d,]+ XLM\s+(S[A-Z0-9]{55})/.exec(c.output())![1]);
      const sC = server(c.url);
      assert.equal((await accountEntry(sC, kp.publicKey())).balance, 100_000_000_000n);
      const pay = new TransactionBuilder(await sC.getAccount(kp.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60)
        .addOperation(Operation.payment({ destination: holder, asset: Asset.native(), amount: '2' })).build();
      pay.sign(kp);
      assert.equal((await sendAndPoll(sC, pay)).done?.status, 'SUCCESS');
      assert.equal((await invoke(sC, kp, invokeOp(counterId, 'increment', u32(1)))).value, 43); // 42 at N, + 1
    } finally {
      await c.stop();
    }
  });

  it('a copy of A\'s archive whose hot-archive bucket list does not match the checkpoint header stops the start', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'lumen-fork-archive-copy-')), 'archive');
    cpSync(archive, copy, { recursive: true });
    const has = parseHistoryArchiveState(readFileSync(join(copy, ROOT_STATE_PATH)));
    assert.equal(has.version, 2, 'A publishes a hot archive');
    // a bucket that exists, in a place the header does not commit to; the live list is untouched
    has.hotArchiveBuckets![1].curr = has.currentBuckets[0].curr;
    for (const path of [ROOT_STATE_PATH, checkpointStatePath(has.currentLedger)]) writeFileSync(join(copy, path), serializeHistoryArchiveState(has));
    const c = has.currentLedger;
    const out = await refused(['--fork-archive', copy, '--network-passphrase', PASSPHRASE]);
    assert.match(out, new RegExp(`lumen-rpc: --fork-archive: the history archive fails verification: ${copy}: checkpoint ${c}: the live and hot-archive bucket lists `
      + `hash to [0-9a-f]{64} \\(live [0-9a-f]{64}, hot archive [0-9a-f]{64}\\), but ledger ${c}'s header has bucketListHash [0-9a-f]{64}(?:\n|$)`));
  });

  it('bad input stops the start with a clear error', async () => {
    const base = ['--network-passphrase', PASSPHRASE];
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(n), '--fork-url', a.url, ...base]), /--fork-archive and --fork-url/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(n)]), /needs --network-passphrase/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', String(n), '--network-passphrase', 'another network']),
      /is an archive of "Standalone Network ; February 2017", not of "another network"/);
    assert.match(await refused(['--fork-archive', join(dir, 'nothing-here'), '--fork-ledger', String(n), ...base]), /the history archive cannot be read/);
    assert.match(await refused(['--fork-archive', 'http://127.0.0.1:9/archive', '--fork-ledger', String(n), ...base]), /the history archive cannot be read/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', '100000', '--datastore', join(dir, 'datastore'), ...base]),
      /has checkpoints up to ledger \d+ only \(ledger 100000 needs checkpoint 99967\)/);
    assert.match(await refused(['--fork-archive', archive, '--fork-ledger', '10', '--datastore', join(dir, 'datastore'), ...base]), /no checkpoint at or before it/);
  });
});

// Real data: pubnet's first checkpoints (test/fixtures/pubnet/history-archive, no datastore). The
// fork's ledger N is pubnet's by hash, and its locked root (master weight 0 since genesis) signs
// again, so the faucet works on a fork of a real network.
describe('fork from a real history archive alone (pubnet, --fork-ledger 100: checkpoint 63)', () => {
  const fixture = fileURLToPath(new URL('../../test/fixtures/pubnet/history-archive/', import.meta.url));
  const pubnet = Networks.PUBLIC;
  const root = Keypair.master(pubnet).publicKey();
  let c: NodeProcess | undefined;
  after(async () => { await c?.stop(); });

  /** The last LedgerHeaderHistoryEntry of a checkpoint's ledger file (record-marked XDR, gzipped). */
  const lastHeaderEntry = (file: string): xdr.LedgerHeaderHistoryEntryWire => {
    const bytes = gunzipSync(readFileSync(join(fixture, file)));
    let last: Buffer | undefined;
    for (let at = 0; at < bytes.length;) {
      const length = bytes.readUInt32BE(at) & 0x7fffffff;
      last = bytes.subarray(at + 4, at + 4 + length);
      at += 4 + length;
    }
    return xdr.LedgerHeaderHistoryEntry.schema.decode(last!);
  };

  it('starts after the checkpoint at or before N, stores pubnet\'s ledger 63, chains 64 onto it, and funds accounts from the unlocked root', async () => {
    c = await startNodeProcess({
      readyTimeoutMs: 60_000,
      args: ['--log-level', 'info', '--close-mode', 'instant', '--fork-archive', fixture, '--fork-ledger', '100', '--network-passphrase', pubnet, '--accounts', '0'],
    });
    // no datastore holds 64..100: the fork is the checkpoint's, and says so
    await c.outputMatching(/--fork-ledger 100 is not a checkpoint ledger and there is no --datastore for ledgers 64\.\.100: the fork starts after checkpoint 63/);
    await c.outputMatching(/fork: checkpoint verified/);
    assert.equal((await call(c, 'getHealth')).oldestLedger, 63);
    const expected = lastHeaderEntry('ledger-0000003f.xdr.gz');
    assert.equal(expected.header.ledgerSeq, 63);
    const n = await ledgerAt(c, 63);
    assert.equal(n.hash, Buffer.from(expected.hash).toString('hex'));
    assert.equal(n.headerXdr, Buffer.from(xdr.LedgerHeaderHistoryEntry.schema.encode(expected)).toString('base64'));
    const next = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from((await ledgerAt(c, 64)).headerXdr, 'base64')).header;
    assert.equal(Buffer.from(next.previousLedgerHash).toString('hex'), n.hash);
    assert.equal(next.ledgerVersion, expected.header.ledgerVersion, 'the fork keeps the network\'s protocol');

    const sC = server(c.url);
    const rootEntry = await accountEntry(sC, root);
    assert.deepEqual([...rootEntry.thresholds], [1, 0, 0, 0]);
    assert.equal(rootEntry.balance, 500_000_000_000_000_000n);
    const fresh = Keypair.random();
    const funded = await fetch(`${c.url}/friendbot?addr=${fresh.publicKey()}`);
    assert.equal(funded.status, 200, await funded.text());
    assert.ok((await accountEntry(sC, fresh.publicKey())).balance > 0n);
  });

  it('restarts on its database with the same --fork-ledger or none; refuses another N there, and a ledger past the archive', async () => {
    const { dbPath } = c!;
    const args = ['--log-level', 'info', '--close-mode', 'instant', '--fork-archive', fixture, '--network-passphrase', pubnet];
    for (const again of [['--fork-ledger', '100'], []]) {
      const tip = await latest(c!);
      await c!.stop();
      c = await startNodeProcess({ dbPath, args: [...args, ...again] });
      assert.ok((await latest(c)) >= tip);
      assert.ok(!/bootstrapping the state/.test(c.output()), 'the restart continues: no bootstrap');
    }
    await c!.stop();
    c = undefined;
    await assert.rejects(startNodeProcess({ dbPath, args: [...args, '--fork-ledger', '127'] }), /holds a fork of .* at ledger 63/);
    assert.match(await startRefusal({ args: [...args, '--fork-ledger', '191'] }), /has checkpoints up to ledger 127 only \(ledger 191 needs checkpoint 191\)/);
  });

  /** A writable copy of the fixture archive. */
  const fixtureCopy = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'lumen-fork-pubnet-copy-'));
    cpSync(fixture, dir, { recursive: true });
    return dir;
  };
  const refusedFork = (dir: string) => startRefusal({
    args: ['--log-level', 'warn', '--fork-archive', dir, '--fork-ledger', '63', '--network-passphrase', pubnet], readyTimeoutMs: 30_000,
  });

  it('a bucket whose content was changed (its name kept) stops the start, naming it', async () => {
    const dir = fixtureCopy();
    const bucket = join(dir, 'bucket-bff0722cb3e89655d3b71c3b517a3bc4b20456298e50073745342f28f6f68b7c.xdr.gz');
    const content = gunzipSync(readFileSync(bucket));
    // the root account's balance, one stroop more: valid records, other content
    const record = xdr.BucketEntry.schema.decode(content.subarray(4, 100));
    assert.ok(record.type === 0 && record.liveEntry.data.type === 0);
    record.liveEntry.data.account.balance += 1n;
    Buffer.from(xdr.BucketEntry.schema.encode(record)).copy(content, 4);
    writeFileSync(bucket, gzipSync(content));
    assert.match(await refusedFork(dir), new RegExp(`lumen-rpc: --fork-archive: the history archive fails verification: ${dir}: the live bucket list's level 2 snap, `
      + 'bucket bff0722cb3e89655d3b71c3b517a3bc4b20456298e50073745342f28f6f68b7c, is corrupt: its content hashes to [0-9a-f]{64}, not to its name(?:\n|$)'));
  });

  it('a live bucket list that does not hash to the checkpoint header stops the start', async () => {
    const dir = fixtureCopy();
    const has = parseHistoryArchiveState(readFileSync(join(dir, 'history-0000003f.json')));
    has.currentBuckets[2] = { ...has.currentBuckets[2], curr: has.currentBuckets[2].snap, snap: has.currentBuckets[2].curr };
    writeFileSync(join(dir, 'history-0000003f.json'), serializeHistoryArchiveState(has));
    assert.match(await refusedFork(dir), new RegExp(`lumen-rpc: --fork-archive: the history archive fails verification: ${dir}: checkpoint 63: the live bucket list hashes to [0-9a-f]{64}, `
      + 'but ledger 63\'s header has bucketListHash 0c0e301aee8c9bce066bcb0098b2a3fa9a6bb4d762d3ee57bf15a44cfe5a950c(?:\n|$)'));
  });
});
