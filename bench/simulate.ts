// simulateTransaction of the counter contract's `increment` (contracts/wasm/counter.wasm), deployed
// through the node itself (upload + create contract transactions built with the official SDK):
//  - over HTTP with 1 client (sequential requests, timed one by one) and with 16 concurrent clients
//    (16 keep-alive connections, each sending its next request when the previous answer arrives);
//  - the same simulation directly in Rust (the addon's benchSimulateInvoke: simulate_invoke on one
//    host thread, N times, each run timed inside Rust), against the same database, in the same run.
// Rounds interleave the three measurements so background noise on the shared machine hits all of
// them alike; every figure is the median over rounds. Targets: HTTP p50 with 1 client <= 1.3x the
// direct Rust median; throughput with 16 clients >= 1.7x that with 1.
import { Account, Contract, TransactionBuilder, nativeToScVal, type Transaction } from '@stellar/stellar-sdk';
import { deployCounter } from './counter.ts';
import { startBaselineServer, type BaselineServer } from './baselineServer.ts';
import { loadNative } from '../src/host/native.ts';
import { RawHttpClient } from './rawHttp.ts';
import { startServer, type NodeProcess } from './serverProcess.ts';
import { PASSPHRASE, rootKeypair } from './stellar.ts';
import { fmt, median, percentile, sleep } from './stats.ts';
import { verdict, type Row } from './report.ts';

export interface SimulateBenchConfig {
  rounds: number;
  /** Sequential HTTP requests per round (1 client). */
  sequential: number;
  /** Direct Rust simulations per round. */
  direct: number;
  /** Requests per round with 16 clients (spread over the clients). */
  concurrentRequests: number;
  warmup: number;
}

export const SIMULATE_TARGETS = { overheadRatio: 1.3, throughputRatio: 1.7 };
const CONCURRENCY = 16;

interface RoundResult {
  directMs: number[];
  /** benchSimulateInvoke(request, 1) per call, Rust-timed: one simulation after an idle gap. */
  singleMs: number[];
  /** getLatestLedger over the same 1-client connection: the HTTP + JSON-RPC floor. */
  floor: { p50: number };
  /**
   * A bare node:http server answering the same request with the same response bytes (no work):
   * the round trip no server on Node's HTTP stack can undercut here.
   */
  bare: { p50: number };
  /** A host task that fails at once (undecodable envelope), timed from JS: the Node-API/thread round trip. */
  roundTripMs: number[];
  seq: { p50: number; p99: number; rps: number };
  conc: { p50: number; p99: number; rps: number };
}

/** An unsigned `increment(1)` call from the root account (simulation needs no signature). */
export function incrementTx(contractId: string): Transaction {
  return new TransactionBuilder(new Account(rootKeypair().publicKey(), '1'), { fee: '100', networkPassphrase: PASSPHRASE })
    .addOperation(new Contract(contractId).call('increment', nativeToScVal(1, { type: 'u32' })))
    .setTimeout(0).build();
}

/**
 * `total` requests over `clients` concurrent connections (each sends its next request when the
 * previous answer arrives); per-request latency and overall throughput. Several bodies are sent in
 * turn.
 */
export async function drive(url: string, body: string | readonly string[], clients: number, total: number,
  answered: (text: string) => boolean = (text) => text.includes('"result"') && !text.includes('"error"')): Promise<{ p50: number; p99: number; rps: number }> {
  const bodies = typeof body === 'string' ? undefined : body;
  const conns = Array.from({ length: clients }, () => new RawHttpClient(url, bodies ? bodies[0] : body as string));
  const times: number[] = [];
  let next = 0;
  let t0 = 0;
  try {
    await Promise.all(conns.map((c) => c.connected));
    t0 = performance.now();
    await Promise.all(conns.map(async (c) => {
      while (next < total) {
        const turn = next++;
        const t = performance.now();
        const text = await c.send(bodies?.[turn % bodies.length]);
        times.push(performance.now() - t);
        // a failed call would be a fast non-measurement
        if (!answered(text)) throw new Error(`request failed: ${text.slice(0, 300)}`);
      }
    }));
  } finally {
    for (const c of conns) c.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  return { p50: percentile(times, 50), p99: percentile(times, 99), rps: times.length / seconds };
}

export interface SimulateBenchResult { rows: Row[]; details: string[] }

export async function runSimulateBench(cfg: SimulateBenchConfig, log: (m: string) => void): Promise<SimulateBenchResult> {
  // The default queue (as the reference's: one waiting simulation per CPU) would answer most of the
  // 16 clients' requests with "preflight queue full"; the bench gives it room for all of them.
  const node: NodeProcess = await startServer({ closeMode: 'instant', extra: ['--preflight-worker-queue-size', String(CONCURRENCY)] });
  let bare: BaselineServer | undefined;
  try {
    const t0 = performance.now();
    const contractId = await deployCounter(node.url);
    log(`  counter deployed at ${contractId} in ${fmt(performance.now() - t0, 0)} ms`);
    const tx = incrementTx(contractId);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'simulateTransaction', params: { transaction: tx.toXdr() } });
    const check = await node.rpc('simulateTransaction', { transaction: tx.toXdr() });
    if (!check.result?.results?.[0]) throw new Error(`the increment simulation failed: ${JSON.stringify(check).slice(0, 500)}`);
    bare = await startBaselineServer(JSON.stringify(check));

    // What the server hands the host for this request (authMode record: no auth entries).
    const native = loadNative();
    const direct = (n: number) => native.benchSimulateInvoke({
      dbPath: node.dbPath, networkPassphrase: PASSPHRASE, transactionXdr: tx.toXdr(),
      authMode: 'record', useUpgradedAuth: false, instructionLeeway: 0, enableDebug: true,
    }, n);

    // warm-up: JIT, connection pools, host threads
    await direct(cfg.warmup);
    await drive(node.url, body, 1, cfg.warmup);
    await drive(node.url, body, CONCURRENCY, cfg.warmup);
    await drive(bare.url, body, 1, cfg.warmup);

    const floorBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestLedger' });
    const failing = { dbPath: node.dbPath, networkPassphrase: PASSPHRASE, transactionXdr: 'AAAA' };
    const rounds: RoundResult[] = [];
    for (let i = 0; i < cfg.rounds; i++) {
      const directMs = await direct(cfg.direct);
      const singleMs: number[] = [];
      for (let j = 0; j < cfg.direct / 4; j++) {
        singleMs.push((await direct(1))[0]);
        await sleep(1);
      }
      const roundTripMs: number[] = [];
      for (let j = 0; j < cfg.direct / 4; j++) {
        const t = performance.now();
        await native.simulateInvoke(failing);
        roundTripMs.push(performance.now() - t);
      }
      const floor = await drive(node.url, floorBody, 1, cfg.sequential);
      const bareRun = await drive(bare.url, body, 1, cfg.sequential);
      const seq = await drive(node.url, body, 1, cfg.sequential);
      const conc = await drive(node.url, body, CONCURRENCY, cfg.concurrentRequests);
      rounds.push({ directMs, singleMs, floor, bare: bareRun, roundTripMs, seq, conc });
      log(`  round ${i + 1}/${cfg.rounds}: direct Rust median ${fmt(median(directMs), 3)} ms; 1 client p50 ${fmt(seq.p50, 3)} ms, ${fmt(seq.rps)} req/s; ${CONCURRENCY} clients p50 ${fmt(conc.p50, 2)} ms, ${fmt(conc.rps)} req/s`);
    }
    return report(rounds, cfg);
  } finally {
    await bare?.stop();
    await node.stop();
  }
}

function report(rounds: RoundResult[], cfg: SimulateBenchConfig): SimulateBenchResult {
  const directMed = median(rounds.map((r) => median(r.directMs)));
  const seqP50 = median(rounds.map((r) => r.seq.p50));
  const seqP99 = median(rounds.map((r) => r.seq.p99));
  const seqRps = median(rounds.map((r) => r.seq.rps));
  const concP50 = median(rounds.map((r) => r.conc.p50));
  const concP99 = median(rounds.map((r) => r.conc.p99));
  const concRps = median(rounds.map((r) => r.conc.rps));
  // ratios per round (same background for both sides), then their median
  const overhead = median(rounds.map((r) => r.seq.p50 / median(r.directMs)));
  const scaling = median(rounds.map((r) => r.conc.rps / r.seq.rps));
  const floorP50 = median(rounds.map((r) => r.floor.p50));
  const roundTrip = median(rounds.map((r) => median(r.roundTripMs)));
  const single = median(rounds.map((r) => median(r.singleMs)));
  const bareP50 = median(rounds.map((r) => r.bare.p50));
  // per round, like the overhead: (bare round trip + direct simulation) / direct simulation
  const lowerBound = median(rounds.map((r) => (r.bare.p50 + median(r.directMs)) / median(r.directMs)));
  const rows: Row[] = [
    { metric: 'simulateTransaction (counter increment), direct in Rust, median', value: `${fmt(directMed, 3)} ms`, target: 'reference', verdict: 'n/a' },
    {
      metric: 'simulateTransaction over HTTP, 1 client', value: `p50 ${fmt(seqP50, 3)} ms, p99 ${fmt(seqP99, 3)} ms, ${fmt(seqRps)} req/s`,
      ratio: `${overhead.toFixed(2)}x direct`, target: `p50 <= ${SIMULATE_TARGETS.overheadRatio}x direct Rust`, verdict: verdict(overhead <= SIMULATE_TARGETS.overheadRatio),
    },
    {
      metric: 'simulateTransaction floor: bare node:http round trip (same bytes, no work) + direct', value: `${fmt(bareP50, 3)} ms + direct`,
      ratio: `${lowerBound.toFixed(2)}x direct`, target: 'lowest ratio any Node HTTP server can reach here', verdict: 'n/a',
    },
    {
      metric: `simulateTransaction over HTTP, ${CONCURRENCY} clients`, value: `p50 ${fmt(concP50, 2)} ms, p99 ${fmt(concP99, 2)} ms, ${fmt(concRps)} req/s`,
      ratio: `${scaling.toFixed(2)}x 1 client`, target: `>= ${SIMULATE_TARGETS.throughputRatio}x the 1-client req/s`, verdict: verdict(scaling >= SIMULATE_TARGETS.throughputRatio),
    },
  ];
  const details = [
    '### simulateTransaction',
    '',
    `Server: \`--close-mode instant --preflight-worker-queue-size ${CONCURRENCY}\` (default worker count: one per CPU). The counter contract (contracts/wasm/counter.wasm) is uploaded and created through the node (SDK prepareTransaction, sendTransaction, pollTransaction), then \`increment(1)\` from the root account is simulated. ${cfg.rounds} rounds, each: ${cfg.direct} direct Rust simulations (the addon's \`benchSimulateInvoke\`, timed inside Rust, same database and parameters as the server uses), ${cfg.sequential} sequential HTTP requests (1 client, timed one by one with keep-alive), ${cfg.concurrentRequests} requests from ${CONCURRENCY} concurrent clients. Overhead = 1-client HTTP p50 / direct median, per round; scaling = ${CONCURRENCY}-client req/s / 1-client req/s, per round; medians over rounds.`,
    '',
    '| Round | direct median ms | bare node:http p50 ms | 1 client p50 / p99 ms | 1 client req/s | 16 clients p50 / p99 ms | 16 clients req/s | overhead | lower bound | scaling |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${fmt(median(r.directMs), 3)} | ${fmt(r.bare.p50, 3)} | ${fmt(r.seq.p50, 3)} / ${fmt(r.seq.p99, 3)} | ${fmt(r.seq.rps)} | ${fmt(r.conc.p50, 2)} / ${fmt(r.conc.p99, 2)} | ${fmt(r.conc.rps)} | ${(r.seq.p50 / median(r.directMs)).toFixed(2)} | ${((r.bare.p50 + median(r.directMs)) / median(r.directMs)).toFixed(2)} | ${(r.conc.rps / r.seq.rps).toFixed(2)} |`),
    '',
    `Lower bound: a bare node:http server (bench/baselineServer.ts, a separate process) answering the same request body with the same response bytes and doing no work had a 1-client p50 of ${fmt(bareP50, 3)} ms. A server on Node's HTTP stack that ran the simulation at the direct-Rust speed and did nothing else would therefore take bare + direct, ${lowerBound.toFixed(2)}x the direct call (median of the per-round ratios), before any JSON-RPC work.`,
    '',
    `Where the 1-client time goes (medians over rounds): HTTP + JSON-RPC floor (getLatestLedger over the same connection) ${fmt(floorP50, 3)} ms; Node-API task round trip (a host task that fails at once, timed in JS) ${fmt(roundTrip, 3)} ms; the simulation alone when run once after an idle millisecond (\`benchSimulateInvoke(request, 1)\`, Rust-timed) ${fmt(single, 3)} ms against ${fmt(directMed, 3)} ms back to back in the loop. Floor + round trip + single run = ${fmt(floorP50 + roundTrip + single, 3)} ms of the ${fmt(seqP50, 3)} ms p50; the remainder is the server's own work on the request (envelope decode and checks, result formatting).`,
    '',
  ];
  return { rows, details };
}
