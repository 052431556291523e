// A fork (--fork-url, issue 17) against the network it forks, in the same run: A is a plain
// standalone network (instant closes) holding `accounts` accounts and `counters` counter contracts
// (one Wasm); each round starts a fresh B with --fork-url A (an empty database: nothing fetched) and
// times, one request at a time over HTTP:
//  - getLedgerEntries of one account key on B the first time (B fetches it from A), then the same
//    keys again on B (resolved: read locally) and on A;
//  - simulateTransaction of `increment(1)` on each counter on B the first time (B fetches the
//    counter's instance; the source account and the shared Wasm are fetched by a warm-up
//    simulation of another counter first, so every timed first call fetches exactly one entry and
//    simulates once), then again on B and on A;
//  - the close of a ledger of `payments` payments between accounts each network holds locally (B's
//    made by its own faucet root), by lumen_closeLedgers in manual mode, on B and on A in turn: what
//    a fork adds to a close when nothing is missing (the reads of absent keys, checked against the
//    resolved marks).
// Medians per round, then the median over rounds. What bounds each: a first call costs the local
// work plus one getLedgerEntries round trip to A (HTTP, A's lookup, B's write of the entry and its
// resolved mark); a later call on B is A's work plus the resolved-key check.
import { Account, Contract, Keypair, TransactionBuilder, nativeToScVal, rpc } from '@stellar/stellar-sdk';
import { deployCounters } from './counter.ts';
import { createAccounts, type Accounts } from './payments.ts';
import { RpcClient } from './rpcClient.ts';
import { startServer, type NodeProcess } from './serverProcess.ts';
import { PASSPHRASE, accountKey, paymentTx, send, sequences, signFast, type SignedTx } from './stellar.ts';
import { fmt, median } from './stats.ts';
import type { Row } from './report.ts';

export interface ForkBenchOptions {
  rounds: number;
  /** Accounts on A; each round's first getLedgerEntries samples (one per account). */
  accounts: number;
  /** Counter contracts on A; each round's first simulateTransaction samples (all but the warm-up one). */
  counters: number;
  /** Repetitions of the later (cached) calls on B and of the calls on A, per key or counter; closes timed per network and round. */
  repeats: number;
  /** Payments in each timed close (one per payer account). */
  payments: number;
}

export const DEFAULT_FORK_OPTIONS: ForkBenchOptions = { rounds: 3, accounts: 40, counters: 13, repeats: 5, payments: 200 };
export const QUICK_FORK_OPTIONS: ForkBenchOptions = { rounds: 1, accounts: 10, counters: 4, repeats: 2, payments: 20 };

/** An unsigned `increment(1)` from A's root account (simulation needs no signature). */
function incrementXdr(contractId: string, source: string): string {
  return new TransactionBuilder(new Account(source, '1'), { fee: '100', networkPassphrase: PASSPHRASE })
    .addOperation(new Contract(contractId).call('increment', nativeToScVal(1, { type: 'u32' })))
    .setTimeout(0).build().toXDR();
}

/** One call, timed; an error answer (or a simulation error) is no measurement. */
async function timed(node: NodeProcess, method: string, params: unknown, check: (result: any) => boolean): Promise<number> {
  const t = performance.now();
  const r = await node.rpc(method, params);
  const ms = performance.now() - t;
  if (!r.result || !check(r.result)) throw new Error(`${method} on ${node.url} answered ${JSON.stringify(r).slice(0, 400)}`);
  return ms;
}

/** One transaction of a timed close, built (and signed) from its source's current sequence number. */
type CloseTx = (node: NodeProcess, source: Keypair, seq: bigint, i: number, payers: readonly Keypair[]) => Promise<SignedTx>;

const payNext: CloseTx = async (_node, source, seq, i, payers) => paymentTx(source, seq, payers[(i + 1) % payers.length].publicKey());

/** `increment(1)` on one of `counters` (in turn), prepared by the node's own simulation. */
const incrementOn = (counters: readonly string[]): CloseTx => async (node, source, seq, i) => {
  const server = new rpc.Server(node.url, { allowHttp: true });
  const tx = new TransactionBuilder(new Account(source.publicKey(), seq.toString()), { fee: '100', networkPassphrase: PASSPHRASE })
    .addOperation(new Contract(counters[i % counters.length]).call('increment', nativeToScVal(1, { type: 'u32' })))
    .setTimeout(0).build();
  const prepared = await server.prepareTransaction(tx);
  signFast(prepared, source);
  return { envelope: prepared.toXDR(), hash: Buffer.from(prepared.hash()).toString('hex') };
};

/**
 * One ledger of transactions, one per payer, queued in manual mode and closed by one timed
 * lumen_closeLedgers; the close must hold every one of them, successful.
 */
async function timedClose(node: NodeProcess, payers: Accounts, build: CloseTx): Promise<number> {
  const client = new RpcClient(node.url, 16);
  try {
    await client.call('lumen_setCloseMode', { mode: 'manual' });
    const keys = payers.keys;
    const seqs = await sequences(client, keys.map((k) => k.publicKey()));
    // one at a time: simulations beyond the node's preflight queue are refused
    const txs: SignedTx[] = [];
    for (const [i, k] of keys.entries()) txs.push(await build(node, k, seqs.get(k.publicKey())!, i, keys));
    const sent = await Promise.all(txs.map((tx) => send(client, tx)));
    const refused = sent.find((r) => r.status !== 'PENDING');
    if (refused) throw new Error(`sendTransaction on ${node.url} answered ${JSON.stringify(refused)}`);
    const t = performance.now();
    const closed = await client.call<{ latestLedger: number }>('lumen_closeLedgers', { count: 1, closeTimeStep: 1 });
    const ms = performance.now() - t;
    const page = await client.call<{ transactions: Array<{ status: string }> }>('getTransactions', { startLedger: closed.latestLedger, pagination: { limit: 200 } });
    const applied = page.transactions.filter((x) => x.status === 'SUCCESS').length;
    if (applied < keys.length) throw new Error(`the close on ${node.url} applied ${applied} of ${keys.length} transactions`);
    await client.call('lumen_setCloseMode', { mode: 'instant' });
    return ms;
  } finally {
    client.close();
  }
}

interface Round {
  gleFirst: number[]; gleLater: number[]; gleA: number[];
  simFirst: number[]; simLater: number[]; simA: number[];
  payB: number[]; payA: number[];
  invokeB: number[]; invokeA: number[];
}

export async function runForkBench(opts: ForkBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const a = await startServer({ closeMode: 'instant' });
  try {
    const t0 = performance.now();
    const accounts = await createAccounts(a.url, opts.accounts);
    const counters = await deployCounters(a.url, opts.counters);
    const payersA = await createAccounts(a.url, opts.payments);
    log(`  A: ${opts.accounts} accounts and ${opts.counters} counters in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    // a funded account of A's as the simulations' source (B's own root account is local, not A's)
    const source = accounts.keys[0].publicKey();
    const gle = (key: string) => ({ keys: [key] });
    const oneEntry = (r: any) => r.entries?.length === 1;
    const simOk = (r: any) => r.error === undefined && Array.isArray(r.results);
    const keys = accounts.keys.map((k) => accountKey(k.publicKey()));
    const sims = counters.map((c) => incrementXdr(c, source));

    // warm-up of A (JIT, the simulation threads, the connection pool)
    for (const s of sims) await timed(a, 'simulateTransaction', { transaction: s }, simOk);
    for (const k of keys) await timed(a, 'getLedgerEntries', gle(k), oneEntry);

    const rounds: Round[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      const b = await startServer({ closeMode: 'instant', extra: ['--fork-url', a.url] });
      try {
        const r: Round = { gleFirst: [], gleLater: [], gleA: [], simFirst: [], simLater: [], simA: [], payB: [], payA: [], invokeB: [], invokeA: [] };
        // B's first simulation fetches the source account and the Wasm besides its counter: not timed
        await timed(b, 'simulateTransaction', { transaction: sims[0] }, simOk);
        for (const k of keys.slice(1)) r.gleFirst.push(await timed(b, 'getLedgerEntries', gle(k), oneEntry));
        for (const s of sims.slice(1)) r.simFirst.push(await timed(b, 'simulateTransaction', { transaction: s }, simOk));
        for (let i = 0; i < opts.repeats; i++) {
          // interleaved: the same background for B's later calls and A's
          for (const k of keys.slice(1)) {
            r.gleLater.push(await timed(b, 'getLedgerEntries', gle(k), oneEntry));
            r.gleA.push(await timed(a, 'getLedgerEntries', gle(k), oneEntry));
          }
          for (const s of sims.slice(1)) {
            r.simLater.push(await timed(b, 'simulateTransaction', { transaction: s }, simOk));
            r.simA.push(await timed(a, 'simulateTransaction', { transaction: s }, simOk));
          }
        }
        // closes: B's payers are its own (its faucet root is local), so nothing is fetched
        const payersB = await createAccounts(b.url, opts.payments);
        const increments = incrementOn(counters); // every counter was resolved on B by the simulations above
        await timedClose(b, payersB, payNext); // warm-up of B's close path
        for (let i = 0; i < opts.repeats; i++) {
          r.payB.push(await timedClose(b, payersB, payNext));
          r.payA.push(await timedClose(a, payersA, payNext));
          r.invokeB.push(await timedClose(b, payersB, increments));
          r.invokeA.push(await timedClose(a, payersA, increments));
        }
        rounds.push(r);
        log(`  round ${round + 1}/${opts.rounds}: getLedgerEntries first ${fmt(median(r.gleFirst), 3)} ms, later ${fmt(median(r.gleLater), 3)} ms, A ${fmt(median(r.gleA), 3)} ms; `
          + `simulateTransaction first ${fmt(median(r.simFirst), 3)} ms, later ${fmt(median(r.simLater), 3)} ms, A ${fmt(median(r.simA), 3)} ms; `
          + `close of ${opts.payments} payments B ${fmt(median(r.payB), 2)} ms, A ${fmt(median(r.payA), 2)} ms; `
          + `of ${opts.payments} increments B ${fmt(median(r.invokeB), 2)} ms, A ${fmt(median(r.invokeA), 2)} ms`);
      } finally {
        await b.stop();
      }
    }
    return report(rounds, opts);
  } finally {
    await a.stop();
  }
}

function report(rounds: Round[], opts: ForkBenchOptions): { rows: Row[]; details: string[] } {
  const med = (f: (r: Round) => number[]) => median(rounds.map((r) => median(f(r))));
  const gleF = (r: Round) => r.gleFirst;
  const gleL = (r: Round) => r.gleLater;
  const simF = (r: Round) => r.simFirst;
  const simL = (r: Round) => r.simLater;
  /** Per round, B's median over A's median for the same call (same background), then the median of those. */
  const payB = (r: Round) => r.payB;
  const invokeB = (r: Round) => r.invokeB;
  const baseline = (f: (r: Round) => number[], r: Round) => (f === gleF || f === gleL ? r.gleA : f === payB ? r.payA : f === invokeB ? r.invokeA : r.simA);
  const ratio = (f: (r: Round) => number[]) => median(rounds.map((r) => median(f(r)) / median(baseline(f, r))));
  const rows: Row[] = [
    { metric: 'Fork: getLedgerEntries (1 account), first call on B (fetched from A)', value: `${fmt(med(gleF), 3)} ms`, ratio: `${ratio(gleF).toFixed(2)}x A`, target: 'reference', verdict: 'n/a' },
    { metric: 'Fork: getLedgerEntries (1 account), later calls on B (resolved)', value: `${fmt(med(gleL), 3)} ms`, ratio: `${ratio(gleL).toFixed(2)}x A`, target: 'reference', verdict: 'n/a' },
    { metric: 'Fork: simulateTransaction (counter increment), first call on B (instance fetched)', value: `${fmt(med(simF), 3)} ms`, ratio: `${ratio(simF).toFixed(2)}x A`, target: 'reference', verdict: 'n/a' },
    { metric: 'Fork: simulateTransaction (counter increment), later calls on B (resolved)', value: `${fmt(med(simL), 3)} ms`, ratio: `${ratio(simL).toFixed(2)}x A`, target: 'reference', verdict: 'n/a' },
    { metric: 'Fork: close of a ledger of payments between local accounts (lumen_closeLedgers)', value: `${fmt(med(payB), 2)} ms`, ratio: `${ratio(payB).toFixed(2)}x A`, target: 'reference', verdict: 'n/a' },
    { metric: 'Fork: close of a ledger of counter increments (lumen_closeLedgers)', value: `${fmt(med(invokeB), 2)} ms`, ratio: `${ratio(invokeB).toFixed(2)}x A`, target: 'reference', verdict: 'n/a' },
  ];
  const details = [
    '### Fork (--fork-url)',
    '',
    `A: a standalone network (\`--close-mode instant\`) with ${opts.accounts} accounts and ${opts.counters} counter contracts (one Wasm). ${opts.rounds} rounds, each with a fresh B (\`--fork-url\` A, empty database), all on this machine over loopback HTTP, one request at a time: getLedgerEntries of one account key, first on B (${opts.accounts - 1} keys, each fetched from A), then ${opts.repeats} more times per key on B and on A, interleaved; simulateTransaction of \`increment(1)\` from an account of A's on each counter, first on B (${opts.counters - 1} counters, after an untimed one that fetched the source account and the Wasm, so each timed first call fetches one entry, the counter's instance, and simulates once), then ${opts.repeats} more times per counter on B and on A, interleaved. Medians per round, then over rounds; ratios are B's median over A's per round, then their median.`,
    '',
    `Closes: in each round, ${opts.payments} accounts made on B by its own root (local to B, nothing fetched) and ${opts.payments} accounts of A's each queue one transaction in manual mode, a payment to the next account or \`increment(1)\` on one of the ${opts.counters} counters in turn (prepared by that node's simulation; on B the counters were resolved by the simulations above, so nothing is fetched); one \`lumen_closeLedgers {count: 1}\` is timed over HTTP (the close, its storage and the answer), ${opts.repeats} times per kind on B and on A, interleaved, after one untimed close on B.`,
    '',
    '| Round | getLedgerEntries first / later on B / A, ms | simulateTransaction first / later on B / A, ms | close of payments on B / A, ms | close of increments on B / A, ms |',
    '|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${fmt(median(r.gleFirst), 3)} / ${fmt(median(r.gleLater), 3)} / ${fmt(median(r.gleA), 3)} | ${fmt(median(r.simFirst), 3)} / ${fmt(median(r.simLater), 3)} / ${fmt(median(r.simA), 3)} | ${fmt(median(r.payB), 2)} / ${fmt(median(r.payA), 2)} | ${fmt(median(r.invokeB), 2)} / ${fmt(median(r.invokeA), 2)} |`),
    '',
    'What bounds each: a first call is B\'s own work plus one round trip to A for the missing entry (B\'s getLedgerEntries to A over HTTP, A\'s lookup and answer, B\'s write of the entry, its TTL and the resolved mark in one SQLite transaction); for the simulation the instance is fetched before the one simulation runs (src/fork/simulationDiscovery.ts resolves the invoked contract\'s instance and code first), so it costs about a first getLedgerEntries plus a simulation. A close on B is A\'s close plus the resolved check of each absent key the transactions read (none fetched); before session 12 a fork also ran every close\'s transactions once more as a dry run first. A remote across a real network adds its latency to every first call and nothing to later ones. A later call is A\'s work plus the resolved check of each key (one indexed SQLite lookup), and for simulateTransaction one more pass over the keys the simulation read.',
    '',
  ];
  return { rows, details };
}
