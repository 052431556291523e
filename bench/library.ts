// lumen-rpc as a library (issue 28): what a test suite that runs its network in-process pays.
//  - start: startNetwork() to its first answered request, in a fresh process (the package's bundle,
//    dist/library.mjs, imported first and not timed), and a second network started in the same
//    process after it (warm);
//  - snapshot and revert of a test-sized state (a deployed contract, ten funded accounts, a few
//    hundred transactions), each as the JSON-RPC call a test makes, around one test's changes;
//  - a suite of tests, each funding an account, paying, invoking a contract and reverting, run
//    against a network in the bench's process and against the same network as a separate node
//    process (the baseline: how suites run against Quickstart or `lumen-rpc start` today).
import { spawnSync } from 'node:child_process';
import { Address, Asset, Keypair, Operation, TransactionBuilder, nativeToScVal, rpc, type Transaction } from '@stellar/stellar-sdk';
import { startNetwork, type Network } from '../src/library/startNetwork.ts';
import { startNodeProcess } from '../test/integration/support/nodeProcess.ts';
import { deployCounter } from './counter.ts';
import { RpcClient } from './rpcClient.ts';
import type { Row } from './report.ts';
import { fmt, median } from './stats.ts';

export interface LibraryBenchOptions {
  /** Fresh processes each starting a network (and a second one after it). */
  starts: number;
  /** Snapshot-test-revert rounds. */
  snapshots: number;
  /** Tests in each run of the example suite. */
  tests: number;
}

export const DEFAULT_LIBRARY_OPTIONS: LibraryBenchOptions = { starts: 7, snapshots: 30, tests: 100 };
export const QUICK_LIBRARY_OPTIONS: LibraryBenchOptions = { starts: 2, snapshots: 5, tests: 10 };

const TARGETS = { startMs: 100, snapshotMs: 1, revertMs: 50 };
/** The JS SDK 17.2 reads no protocol-30 ledger header (see docs/library.md). */
const PROTOCOL = 28;
const ROOT = new URL('../', import.meta.url);

/** What a network under test answers to: the library's Network, or a node process's URL with the same calls. */
interface Target {
  rpcUrl: string;
  passphrase: string;
  request<T>(method: string, params?: Record<string, unknown>): Promise<T>;
}

/** A node process as a Target, through the bench's JSON-RPC client. */
function viaHttp(client: RpcClient, passphrase: string): Target {
  return { rpcUrl: client.url.href.replace(/\/$/, ''), passphrase, request: (method, params) => client.call(method, params) };
}

/** Start times, in a fresh process: the first network and a second one after it. */
function startTimes(): { cold: number; warm: number } {
  const script = `import { startNetwork } from 'lumen-rpc';
const time = async () => { const t = performance.now(); const net = await startNetwork({ accounts: 10, protocol: ${PROTOCOL} }); await net.request('getHealth'); const ms = performance.now() - t; return { net, ms }; };
const a = await time(); const b = await time();
await a.net.stop(); await b.net.stop();
console.log(JSON.stringify({ cold: a.ms, warm: b.ms }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the start process failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { cold: number; warm: number };
}

async function submit(server: rpc.Server, tx: Transaction, signer: Keypair, prepare: boolean): Promise<void> {
  const ready = prepare ? await server.prepareTransaction(tx) : tx;
  ready.sign(signer);
  const sent = await server.sendTransaction(ready);
  if (sent.status !== 'PENDING') throw new Error(`sendTransaction answered ${sent.status}`);
  const done = await server.pollTransaction(sent.hash, { attempts: 200, sleepStrategy: () => 20 });
  if (done.status !== 'SUCCESS') throw new Error(`transaction ${sent.hash} ended ${done.status}`);
}

/** One test of the example suite: fund a new account, pay from it, invoke the counter. */
async function exampleTest(target: Target, server: rpc.Server, payee: string, counter: string): Promise<void> {
  const kp = Keypair.random();
  const funded = await fetch(`${target.rpcUrl}/friendbot?addr=${kp.publicKey()}`);
  if (funded.status !== 200) throw new Error(`friendbot answered ${funded.status}`);
  const builder = async () => new TransactionBuilder(await server.getAccount(kp.publicKey()), { fee: '100', networkPassphrase: target.passphrase }).setTimeout(60);
  await submit(server, (await builder()).addOperation(Operation.payment({ destination: payee, asset: Asset.native(), amount: '10' })).build(), kp, false);
  const invoke = Operation.invokeContractFunction({ contract: counter, function: 'increment', args: [nativeToScVal(1, { type: 'u32' })] });
  await submit(server, (await builder()).addOperation(invoke).build(), kp, true);
}

/** The suite: `tests` tests, each between a snapshot and a revert; its wall time in ms. */
async function suite(target: Target, tests: number, payee: string, counter: string): Promise<number> {
  const server = new rpc.Server(target.rpcUrl, { allowHttp: true });
  const t0 = performance.now();
  for (let i = 0; i < tests; i++) {
    const before = await target.request<{ id: string }>('lumen_snapshot');
    await exampleTest(target, server, payee, counter);
    await target.request('lumen_revert', { id: before.id });
  }
  return performance.now() - t0;
}

/** A test-sized state on `target`: the counter deployed, and a few hundred transactions. */
async function testSizedState(target: Target, payer: Keypair, payee: string): Promise<string> {
  const counter = await deployCounter(target.rpcUrl);
  const server = new rpc.Server(target.rpcUrl, { allowHttp: true });
  for (let i = 0; i < 20; i++) {
    const tx = new TransactionBuilder(await server.getAccount(payer.publicKey()), { fee: '100', networkPassphrase: target.passphrase })
      .addOperation(Operation.payment({ destination: payee, asset: Asset.native(), amount: '1' })).setTimeout(60).build();
    await submit(server, tx, payer, false);
  }
  return counter;
}

export async function runLibraryBench(o: LibraryBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  // start
  const starts = Array.from({ length: o.starts }, startTimes);
  log(`  startNetwork to the first answer, fresh processes: ${starts.map((s) => fmt(s.cold, 0)).join(', ')} ms; a second network in the same process: ${starts.map((s) => fmt(s.warm, 0)).join(', ')} ms`);

  // snapshot and revert, then the suite in process
  const net: Network = await startNetwork({ accounts: 10, protocol: PROTOCOL });
  let inProcess: number[] = [];
  const snapshotMs: number[] = [];
  const revertMs: number[] = [];
  let counter: string;
  const payer = Keypair.fromSecret(net.accounts[0].secret);
  const payee = net.accounts[1].publicKey;
  try {
    counter = await testSizedState(net, payer, payee);
    const server = new rpc.Server(net.rpcUrl, { allowHttp: true });
    for (let i = 0; i < o.snapshots; i++) {
      let t = performance.now();
      const snap = await net.snapshot();
      snapshotMs.push(performance.now() - t);
      await exampleTest(net, server, payee, counter);
      t = performance.now();
      await net.revert(snap);
      revertMs.push(performance.now() - t);
    }
    log(`  snapshot p50 ${fmt(median(snapshotMs), 2)} ms, revert p50 ${fmt(median(revertMs), 1)} ms (${o.snapshots} rounds, one test's changes each)`);
    inProcess = [await suite(net, o.tests, payee, counter)];
  } finally {
    await net.stop();
  }

  // the same suite against a node process, then once more in process (interleaved: noise hits both)
  const node = await startNodeProcess({ args: ['--close-mode', 'instant', '--accounts', '10', '--log-level', 'warn'], protocol: PROTOCOL });
  const separate: number[] = [];
  const client = new RpcClient(node.url, 1);
  try {
    const target = viaHttp(client, (await client.call<{ passphrase: string }>('getNetwork')).passphrase);
    const nodeCounter = await testSizedState(target, payer, payee);
    separate.push(await suite(target, o.tests, payee, nodeCounter));
  } finally {
    client.close();
    await node.stop();
  }
  const again = await startNetwork({ accounts: 10, protocol: PROTOCOL });
  try {
    const againCounter = await testSizedState(again, payer, payee);
    inProcess.push(await suite(again, o.tests, payee, againCounter));
  } finally {
    await again.stop();
  }
  log(`  ${o.tests}-test suite: in process ${inProcess.map((ms) => fmt(ms / 1000, 2)).join(', ')} s; against a node process ${fmt(separate[0] / 1000, 2)} s`);

  const cold = median(starts.map((s) => s.cold));
  const warm = median(starts.map((s) => s.warm));
  const snap = median(snapshotMs);
  const rev = median(revertMs);
  const inProc = median(inProcess);
  const rows: Row[] = [
    {
      metric: 'startNetwork() to the first answered request, in process (a fresh process; the bundle imported first)',
      value: `${fmt(cold, 0)} ms (a second network in the same process: ${fmt(warm, 0)} ms)`,
      target: `<= ${TARGETS.startMs} ms`, verdict: cold <= TARGETS.startMs ? 'PASS' : 'FAIL',
    },
    {
      metric: 'lumen_snapshot and lumen_revert of a test-sized state, as a test calls them (in process, over HTTP)',
      value: `snapshot ${fmt(snap, 2)} ms, revert ${fmt(rev, 1)} ms`,
      target: `snapshot <= ${TARGETS.snapshotMs} ms, revert <= ${TARGETS.revertMs} ms`,
      verdict: snap <= TARGETS.snapshotMs && rev <= TARGETS.revertMs ? 'PASS' : 'FAIL',
    },
    {
      metric: `A ${o.tests}-test suite (each: fund, pay, invoke a contract, revert), network in process vs a separate node process`,
      value: `${fmt(inProc / 1000, 2)} s vs ${fmt(separate[0] / 1000, 2)} s`,
      ratio: `${(inProc / separate[0]).toFixed(2)}x`, target: 'reported', verdict: 'n/a',
    },
  ];
  const details = ['### lumen-rpc as a library', '',
    `Start: ${o.starts} fresh processes each import the package's bundle (\`lumen-rpc\`, dist/library.mjs; not timed), then time \`startNetwork({ accounts: 10 })\` and one getHealth, then the same for a second network in the same process. Cold: ${starts.map((s) => fmt(s.cold, 0)).join(', ')} ms; warm: ${starts.map((s) => fmt(s.warm, 0)).join(', ')} ms.`, '',
    `Snapshot and revert: a network with the counter contract deployed, 10 test accounts and 20 payments; ${o.snapshots} rounds of \`net.snapshot()\`, one test (fund an account through the faucet, a payment, a counter increment prepared by the SDK), \`net.revert()\`; each call timed as the test sees it (a JSON-RPC request over loopback HTTP). Medians.`, '',
    `Suite: ${o.tests} such tests, each between a snapshot and a revert, driven by the JS SDK from the bench process; in process, the network shares that process (its event loop and the SDK's); the baseline is the same suite against \`lumen-rpc start\` as its own process (instant closes, the same state). Runs: in process ${inProcess.map((ms) => fmt(ms / 1000, 2)).join(' s, ')} s (before and after the baseline); separate ${fmt(separate[0] / 1000, 2)} s.`, ''];
  return { rows, details };
}
