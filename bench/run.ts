// `npm run bench`: measures lumen-rpc against the issue's acceptance criteria and writes
// BENCHMARKS.md. The machine is small (2 cores) and shared, so:
//  - every figure is the median of several runs;
//  - HTTP throughput is reported as a ratio to a bare node:http server measured in the same run,
//    interleaved round by round with the server under test, so background noise hits both alike;
//  - every loop is bounded in count and time, and a section that fails is reported as NOT RUN
//    rather than aborting the others.
// `--quick` runs each section once, briefly, and does not write BENCHMARKS.md (harness check).
// The getEvents/queryEvents benchmark (bench/events.ts) runs last and writes its own section after
// the table; `--skip-events` skips it (the section of the previous BENCHMARKS.md is kept); `--only
// events` runs it alone (writing nothing, as any --only run, unless `--write` is given: then the
// sections it ran are spliced into the existing BENCHMARKS.md, dated; see bench/partialRun.ts).
import { runTraceBench } from './traces.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startBaselineServer } from './baselineServer.ts';
import { runLoad, rpcBody, type LoadResult } from './httpLoad.ts';
import { latencyFixture, runLatency } from './latency.ts';
import { describeMachine } from './machine.ts';
import { DEFAULT_EVENTS_OPTIONS, QUICK_EVENTS_OPTIONS, replaceEventsSection, runEventsBench, withEventsSection } from './events.ts';
import { createAccounts, runPayments, type PaymentsResult } from './payments.ts';
import { runLog, toConsole, toMarkdown, verdict, type Report, type Row } from './report.ts';
import { startServer, type NodeProcess } from './serverProcess.ts';
import { accountKey, rootKeypair } from './stellar.ts';
import { measureStartup } from './startup.ts';
import { runSimulateBench } from './simulate.ts';
import { runProtocolsBench } from './protocols.ts';
import { runInvocationsBench } from './invocations.ts';
import { runCloseStall } from './closeStall.ts';
import { runIngestionBench } from './ingestion.ts';
import { DEFAULT_BIG_LEDGERS_OPTIONS, QUICK_BIG_LEDGERS_OPTIONS, runBigLedgersBench } from './bigLedgers.ts';
import { runBootstrapBench } from './bootstrap.ts';
import { runLedgersFromDatastoreBench } from './ledgersFromDatastore.ts';
import { runHeavyRequestsBench } from './heavyRequests.ts';
import { runOrderBookBench } from './orderBook.ts';
import { DEFAULT_ENGINE_OPTIONS } from './engineClose.ts';
import { IpcChild, type Message } from './ipcChild.ts';
import { DEFAULT_ENTRY_HISTORY_OPTIONS, QUICK_ENTRY_HISTORY_OPTIONS, runEntryHistoryBench } from './entryHistory.ts';
import { DEFAULT_STREAMING_OPTIONS, QUICK_STREAMING_OPTIONS, runStreamingBench } from './streaming.ts';
import { DEFAULT_LIBRARY_OPTIONS, QUICK_LIBRARY_OPTIONS, runLibraryBench } from './library.ts';
import { DEFAULT_SNAPSHOT_OPTIONS, QUICK_SNAPSHOT_OPTIONS, runSnapshotBench } from './snapshot.ts';
import { DEFAULT_FAST_FORWARD_OPTIONS, QUICK_FAST_FORWARD_OPTIONS, runFastForwardBench } from './fastForward.ts';
import { DEFAULT_FORK_OPTIONS, QUICK_FORK_OPTIONS, runForkBench } from './fork.ts';
import { DEFAULT_ANSWER_ENCODING_OPTIONS, QUICK_ANSWER_ENCODING_OPTIONS, runAnswerEncodingBench } from './answerEncoding.ts';
import { DEFAULT_EXPLORER_OPTIONS, QUICK_EXPLORER_OPTIONS, runExplorerBench } from './explorer.ts';
import { fmt, median } from './stats.ts';
import { spliceSections } from './partialRun.ts';

const QUICK = process.argv.includes('--quick');
const SKIP_EVENTS = process.argv.includes('--skip-events');
const CFG = QUICK
  ? { starts: 2, loadRounds: 1, loadSec: 2, warmupSec: 1, accounts: 500, paymentRounds: 2, paymentRuns: 1, latencyRuns: 1, latencyCount: 30,
    simulate: { rounds: 1, sequential: 100, direct: 100, concurrentRequests: 200, warmup: 20 },
    traces: { rounds: 1, sequential: 50, concurrent: 100, simulations: 30 },
    protocols: { rounds: 3, perRound: 50, warmup: 20, closeLanes: 300, closeSamples: 3 },
    invocations: { accounts: 300, rounds: 2, runs: 1 }, closeStall: { accounts: 300, runs: 1 }, ingestion: { loops: 3, rounds: 1 }, ledgersFromDatastore: { loops: 4 }, bootstrap: { entries: 20_000, rounds: 1 }, heavy: { rounds: 1, seconds: 3, clients: 4, accounts: 300, busyLedgers: 3 },
    orderBook: { lanes: 600, makers: 100, offersPerMaker: 20, rounds: 2, runs: 1 },
    engine: { ledgerTxs: 1000, samples: 1, paymentLanes: 1500, tradingLanes: 1000, makers: 100, offersPerMaker: 20, searchSamples: 1, searchSteps: 2, storeSamples: 2 } }
  : { starts: 7, loadRounds: 5, loadSec: 4, warmupSec: 1, accounts: 3000, paymentRounds: 4, paymentRuns: 3, latencyRuns: 3, latencyCount: 200,
    simulate: { rounds: 5, sequential: 400, direct: 400, concurrentRequests: 1600, warmup: 100 },
    traces: { rounds: 5, sequential: 200, concurrent: 400, simulations: 100 },
    protocols: { rounds: 9, perRound: 200, warmup: 100, closeLanes: 1000, closeSamples: 9 },
    // sized so that the whole run fits in 20 minutes on the 2-core machine (issue 27): the rounds
    // stay, the setups they need are smaller than before (fewer ledgers looped, a smaller archive
    // and book, transactions assembled as bytes), and the load windows are as long as their rates
    // need (4 s of HTTP load is 50,000+ requests; 5 s of heavy requests, about 330 probes on the
    // standalone network and 170-200 on the pubnet follower, whose p99 is then its second-worst
    // probe), see the time per section at the end of BENCHMARKS.md
    invocations: { accounts: 1000, rounds: 3, runs: 2 }, closeStall: { accounts: 1000, runs: 3 }, ingestion: { loops: 30, rounds: 3 }, ledgersFromDatastore: { loops: 10 }, bootstrap: { entries: 200_000, rounds: 3 }, heavy: { rounds: 3, seconds: 5, clients: 4, accounts: 1000, busyLedgers: 10 },
    orderBook: { lanes: 5000, makers: 500, offersPerMaker: 20, rounds: 3, runs: 2 },
    engine: DEFAULT_ENGINE_OPTIONS };
/** `--only a,b`: run just the sections whose names contain one of these words (development aid). */
const ONLY = (() => { const i = process.argv.indexOf('--only'); return i > 0 ? process.argv[i + 1].split(',') : undefined; })();
const WRITE_PARTIAL = ONLY !== undefined && process.argv.includes('--write') && !QUICK;
const CONNECTIONS = 64;
const OUT = new URL('../BENCHMARKS.md', import.meta.url);

const PAYMENTS_METRIC = 'Payments applied and queryable (interval mode, 1 s ledgers: bound by the cadence)';
const TARGETS = { startupMs: 250, latestLedgerRatio: 0.8, ledgerEntriesRatio: 0.3, paymentsPerSec: 1000, latencyMs: 50 };

const benchStartedAt = Date.now();
const log = runLog(benchStartedAt);
const rows: Row[] = [];
const sectionsRun: string[] = [];
/** Seconds each section took (the whole run must fit in 20 minutes here). */
const sectionSeconds: Array<[string, number]> = [];
const details: string[] = [];

async function withServer<T>(server: Promise<NodeProcess>, fn: (s: NodeProcess) => Promise<T>): Promise<T> {
  const s = await server;
  try { return await fn(s); } finally { await s.stop(); }
}

/** Runs one section; a failure becomes NOT RUN rows and an explanation instead of ending the bench. */
async function section(name: string, fallbackRows: string[], fn: () => Promise<void>): Promise<void> {
  if (ONLY && !ONLY.some((w) => name.includes(w))) return;
  log(`${name}...`);
  sectionsRun.push(name);
  const t0 = performance.now();
  try {
    await fn();
  } catch (e) {
    const why = (e as Error).message.split('\n').slice(0, 6).join(' / ');
    log(`${name} failed: ${why}`);
    for (const metric of fallbackRows) rows.push({ metric, value: '—', target: '', verdict: 'NOT RUN' });
    details.push(`### ${name}`, '', `Not measured: \`${why}\``, '');
  }
  const seconds = (performance.now() - t0) / 1000;
  sectionSeconds.push([name, seconds]);
  log(`${name} done in ${fmt(seconds, 1)} s`);
}

const loadCell = (rps: number[], p99: number[]) => `${fmt(median(rps))} req/s, p99 ${fmt(median(p99), 0)} ms`;
const bad = (r: LoadResult) => r.errors + r.timeouts + r.non2xx + r.rpcErrors;

async function startupSection(): Promise<void> {
  const ms: number[] = [];
  for (let i = 0; i < CFG.starts; i++) ms.push(await measureStartup());
  const med = median(ms);
  rows.push({ metric: 'Start to first getLatestLedger (fresh database)', value: `${fmt(med, 0)} ms`, target: `< ${TARGETS.startupMs} ms`, verdict: verdict(med < TARGETS.startupMs) });
  details.push('### Start to first response', '', `${ms.length} starts, ms: ${ms.map((x) => fmt(x, 0)).join(', ')}`, '');
}

async function httpSection(): Promise<void> {
  await withServer(startServer(), async (node) => {
    // The baseline answers the very bytes the node answers getLatestLedger with (its header and
    // metadata XDR make them about 1.2 KiB): a shorter canned answer would count the kernel's work on
    // the longer one as lumen-rpc's.
    const latest = await node.rpc('getLatestLedger');
    if (!latest.result) throw new Error(`getLatestLedger answered ${JSON.stringify(latest)}`);
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: latest.result });
    const baseline = await startBaselineServer(answer);
    try {
      const targets = [
        { name: 'node:http baseline', url: baseline.url, body: rpcBody('getLatestLedger') },
        { name: 'getLatestLedger', url: `${node.url}/`, body: rpcBody('getLatestLedger') },
        { name: 'getLedgerEntries (1 account)', url: `${node.url}/`, body: rpcBody('getLedgerEntries', { keys: [accountKey(rootKeypair().publicKey())] }) },
      ];
      // A request that answers an error is no measurement: check each body once before loading it.
      for (const t of targets.slice(1)) {
        const r = await node.rpc(JSON.parse(t.body).method, JSON.parse(t.body).params);
        if (!r.result) throw new Error(`${t.name} answered ${JSON.stringify(r)}`);
        if (t.name.startsWith('getLedgerEntries') && r.result.entries?.length !== 1) throw new Error(`${t.name} found no entry`);
      }
      // warm-up: JIT and connection setup belong to neither target's numbers
      for (const t of targets) await runLoad({ url: t.url, body: t.body, connections: CONNECTIONS, durationSec: CFG.warmupSec });
      const res = targets.map(() => [] as LoadResult[]);
      for (let round = 0; round < CFG.loadRounds; round++) {
        for (let i = 0; i < targets.length; i++) {
          res[i].push(await runLoad({ url: targets[i].url, body: targets[i].body, connections: CONNECTIONS, durationSec: CFG.loadSec }));
        }
        log(`  round ${round + 1}/${CFG.loadRounds}: ${targets.map((t, i) => `${t.name} ${fmt(res[i][round].rps)}`).join(', ')}`);
      }
      const rps = res.map((rs) => rs.map((r) => r.rps));
      const p99 = res.map((rs) => rs.map((r) => r.p99));
      // ratio per round (same background noise for both), then the median of those
      const ratio = (i: number) => median(rps[i].map((x, round) => x / rps[0][round]));
      const errors = res.map((rs) => rs.reduce((a, r) => a + bad(r), 0));
      rows.push({ metric: `node:http baseline, ${CONNECTIONS} connections`, value: loadCell(rps[0], p99[0]), ratio: '1.00', target: 'reference (issue quotes ~74,000 req/s)', verdict: 'n/a' });
      const goals = [TARGETS.latestLedgerRatio, TARGETS.ledgerEntriesRatio];
      for (let i = 1; i < targets.length; i++) {
        const r = ratio(i);
        rows.push({
          metric: `${targets[i].name}, ${CONNECTIONS} connections`, value: loadCell(rps[i], p99[i]), ratio: `${r.toFixed(2)}x`,
          target: `>= ${goals[i - 1]}x baseline`, verdict: errors[i] ? 'FAIL' : verdict(r >= goals[i - 1]),
        });
      }
      details.push('### HTTP throughput', '',
        `${CFG.loadRounds} rounds of ${CFG.loadSec} s per target, interleaved (baseline, getLatestLedger, getLedgerEntries, repeat), after a ${CFG.warmupSec} s warm-up each. The baseline answers the node's own getLatestLedger answer (${fmt(Buffer.byteLength(answer))} bytes); every target gets the same request bytes over ${CONNECTIONS} keep-alive connections.`, '',
        '| Target | req/s per round | p99 ms per round | errors/non-2xx/JSON-RPC errors |', '|---|---|---|---|',
        ...targets.map((t, i) => `| ${t.name} | ${rps[i].map((x) => fmt(x)).join(', ')} | ${p99[i].join(', ')} | ${errors[i]} |`), '');
    } finally {
      await baseline.stop();
    }
  });
}

async function paymentsSection(): Promise<void> {
  await withServer(startServer({ closeMode: 'interval', closeIntervalMs: 1000 }), async (node) => {
    const t0 = performance.now();
    const accounts = await createAccounts(node.url, CFG.accounts);
    log(`  ${CFG.accounts} accounts funded in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    const runs: PaymentsResult[] = [];
    for (let i = 0; i < CFG.paymentRuns; i++) {
      const r = await runPayments(node.url, accounts, CFG.paymentRounds);
      runs.push(r);
      log(`  run ${i + 1}/${CFG.paymentRuns}: ${r.payments} payments in ${fmt(r.seconds, 2)} s = ${fmt(r.perSecond)}/s over ${r.ledgers} ledgers (PENDING ${r.pending}, TRY_AGAIN_LATER ${r.tryAgainLater})${r.complete ? '' : ' — stopped by the time limit'}`);
      if (!r.complete) break; // the accounts' sequence numbers are no longer known
    }
    const med = median(runs.map((r) => r.perSecond));
    const sum = (k: 'pending' | 'tryAgainLater' | 'duplicate') => runs.reduce((a, r) => a + r[k], 0);
    rows.push({ metric: PAYMENTS_METRIC, value: `${fmt(med)} /s`, target: `>= ${TARGETS.paymentsPerSec.toLocaleString('en-US')} /s`, verdict: verdict(med >= TARGETS.paymentsPerSec) });
    details.push('### Payments per second', '',
      `${CFG.accounts} source accounts, ${CFG.paymentRounds} payments each per run (each account sends its next payment once the previous is SUCCESS), at most 64 requests in flight; ${runs.length} runs on one server.`, '',
      `What this figure measures: the close cadence, not the engine. Each account has one payment in flight (the queue admits one per source account) and the node closes once a second, so an account's next payment waits for the next close: the rate follows the account count and the 1 s cadence (at most ${CFG.accounts} payments per ledger, about ${fmt(CFG.accounts / 2)}/s when a payment's confirmation takes two ledgers), whatever the engine could do. The node's own speed is in "Offers and path payments per second (end to end)", where ledgers close back to back and the same kind of payments is the baseline, and in "Engine close time", which times the engine alone on ledgers of 10,000 transactions and finds the largest ledger that closes within the 1 s cadence.`, '',
      '| Run | Payments | Seconds | Payments/s | Ledgers | PENDING | TRY_AGAIN_LATER | DUPLICATE | errors | NOT_FOUND polls |', '|---|---|---|---|---|---|---|---|---|---|',
      ...runs.map((r, i) => `| ${i + 1}${r.complete ? '' : ' (time limit)'} | ${r.payments} | ${fmt(r.seconds, 2)} | ${fmt(r.perSecond)} | ${r.ledgers} | ${r.pending} | ${r.tryAgainLater} | ${r.duplicate} | ${r.errors} | ${r.notFoundPolls} |`),
      '', `sendTransaction answers over all runs: PENDING ${sum('pending')}, TRY_AGAIN_LATER ${sum('tryAgainLater')}, DUPLICATE ${sum('duplicate')}.`, '');
  });
}

async function orderBookSection(): Promise<void> {
  const r = await runOrderBookBench(CFG.orderBook, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function engineSection(): Promise<void> {
  const mem = process.memoryUsage();
  log(`  in its own process; this one holds ${fmt(mem.heapUsed / 2 ** 20, 0)} MiB of heap (RSS ${fmt(mem.rss / 2 ** 20, 0)} MiB)`);
  const child = new IpcChild(new URL('./engineCloseProcess.ts', import.meta.url), 'engine bench');
  try {
    const r = await child.ask<Message & { rows: Row[]; details: string[] }>({ type: 'run', options: CFG.engine, startedAt: benchStartedAt }, 'result', 30 * 60_000);
    rows.push(...r.rows);
    details.push(...r.details);
  } finally {
    await child.stop();
  }
}

async function latencySection(): Promise<void> {
  await withServer(startServer({ closeMode: 'instant' }), async (node) => {
    const fixture = await latencyFixture(node.url);
    const p50s: number[] = [];
    const p99s: number[] = [];
    const maxes: number[] = [];
    try {
      for (let i = 0; i < CFG.latencyRuns; i++) {
        const r = await runLatency(fixture, CFG.latencyCount);
        p50s.push(r.p50);
        p99s.push(r.p99);
        maxes.push(r.max);
        log(`  run ${i + 1}/${CFG.latencyRuns}: p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, max ${fmt(r.max, 1)} ms`);
      }
    } finally {
      fixture.rpc.close();
    }
    const p50 = median(p50s);
    const p99 = median(p99s);
    rows.push({ metric: 'Submit to SUCCESS, p50 (instant mode)', value: `${fmt(p50, 1)} ms`, target: `< ${TARGETS.latencyMs} ms`, verdict: verdict(p50 < TARGETS.latencyMs) });
    rows.push({ metric: 'Submit to SUCCESS, p99 (instant mode)', value: `${fmt(p99, 1)} ms`, target: `< ${TARGETS.latencyMs} ms`, verdict: verdict(p99 < TARGETS.latencyMs) });
    details.push('### Submit-to-SUCCESS latency', '',
      `${CFG.latencyRuns} runs of ${CFG.latencyCount} sequential payments (after 20 warm-up payments each), getTransaction polled every 2 ms.`, '',
      `p50 per run (ms): ${p50s.map((x) => fmt(x, 1)).join(', ')}; p99 per run (ms): ${p99s.map((x) => fmt(x, 1)).join(', ')}; max per run (ms): ${maxes.map((x) => fmt(x, 0)).join(', ')}`, '');
  });
}

async function simulateSection(): Promise<void> {
  const r = await runSimulateBench(CFG.simulate, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function tracesSection(): Promise<void> {
  const r = await runTraceBench(CFG.traces, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function protocolsSection(): Promise<void> {
  const r = await runProtocolsBench(CFG.protocols, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function invocationsSection(): Promise<void> {
  await withServer(startServer({ closeMode: 'interval', closeIntervalMs: 1000 }), async (node) => {
    const r = await runInvocationsBench(node.url, CFG.invocations, log);
    const inv = median(r.invocations.map((x) => x.perSecond));
    const pay = median(r.payments.map((x) => x.perSecond));
    rows.push({ metric: 'Contract invocations applied and queryable (counter increment, 1 s ledgers)', value: `${fmt(inv)} /s`, ratio: `${fmt(inv / pay, 2)}x payments/s`, target: 'reported (no target)', verdict: 'n/a' });
    details.push('### Contract invocations per second', '',
      `${CFG.invocations.accounts} accounts each call the counter's \`increment\` ${CFG.invocations.rounds} times per run (pre-signed with the resources of one simulation), confirmed SUCCESS through getTransaction; each run is followed by a run of payments from the same accounts on the same server, the baseline of the ratio.`, '',
      '| Run | Invocations/s | Ledgers | Payments/s (baseline) |', '|---|---|---|---|',
      ...r.invocations.map((x, i) => `| ${i + 1} | ${fmt(x.perSecond)} | ${x.ledgers} | ${r.payments[i] ? fmt(r.payments[i].perSecond) : '—'} |`), '');
  });
}

async function closeStallSection(): Promise<void> {
  // 3 s ledgers leave time to queue every call between two closes; debug logs carry the close times
  await withServer(startServer({ closeMode: 'interval', closeIntervalMs: 3000, extra: ['--log-level', 'debug'] }), async (node) => {
    const runs = await runCloseStall(node, CFG.closeStall, log);
    const longest = median(runs.map((r) => r.longestAnswerMs));
    const busy = median(runs.map((r) => r.closeBusyMs));
    const ratio = median(runs.map((r) => r.longestAnswerMs / r.closeBusyMs));
    rows.push({
      metric: `Slowest getLatestLedger answer while a ledger of ${CFG.closeStall.accounts} contract calls closes`, value: `${fmt(longest, 1)} ms`,
      ratio: `${ratio.toFixed(2)}x the close's ${fmt(busy)} ms busy time`, target: 'reported (no target)', verdict: 'n/a',
    });
    details.push('### Serving during a busy ledger close', '',
      `Each account queues one call of the counter's \`increment\` (pre-signed) between two closes (3 s ledgers); while the ledger holding them closes, getLatestLedger goes out back to back on one keep-alive connection until an answer shows the new ledger. Baseline: the close's busy time (apply + convert + store, from the server's debug log), which is how long a close done in one block would hold every request. Medians over ${runs.length} runs.`, '',
      '| Run | Transactions in the ledger | Close busy ms | getLatestLedger answers during the wait | Slowest answer ms |', '|---|---|---|---|---|',
      ...runs.map((r, i) => `| ${i + 1} | ${r.transactions} | ${fmt(r.closeBusyMs)} | ${r.answers} | ${fmt(r.longestAnswerMs, 1)} |`), '');
  });
}

async function heavyRequestsSection(): Promise<void> {
  const r = await runHeavyRequestsBench(CFG.heavy, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function answerEncodingSection(): Promise<void> {
  const r = await runAnswerEncodingBench(QUICK ? QUICK_ANSWER_ENCODING_OPTIONS : DEFAULT_ANSWER_ENCODING_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function bootstrapSection(): Promise<void> {
  const r = await runBootstrapBench(CFG.bootstrap, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function entryHistorySection(): Promise<void> {
  const r = await runEntryHistoryBench(QUICK ? QUICK_ENTRY_HISTORY_OPTIONS : DEFAULT_ENTRY_HISTORY_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function streamingSection(): Promise<void> {
  const r = await runStreamingBench(QUICK ? QUICK_STREAMING_OPTIONS : DEFAULT_STREAMING_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function librarySection(): Promise<void> {
  const r = await runLibraryBench(QUICK ? QUICK_LIBRARY_OPTIONS : DEFAULT_LIBRARY_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function snapshotSection(): Promise<void> {
  const r = await runSnapshotBench(QUICK ? QUICK_SNAPSHOT_OPTIONS : DEFAULT_SNAPSHOT_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function ingestionSection(): Promise<void> {
  const r = await runIngestionBench(CFG.ingestion, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function ledgersFromDatastoreSection(): Promise<void> {
  const r = await runLedgersFromDatastoreBench(CFG.ledgersFromDatastore, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function fastForwardSection(): Promise<void> {
  const r = await runFastForwardBench(QUICK ? QUICK_FAST_FORWARD_OPTIONS : DEFAULT_FAST_FORWARD_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function explorerSection(): Promise<void> {
  const r = await runExplorerBench(QUICK ? QUICK_EXPLORER_OPTIONS : DEFAULT_EXPLORER_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

async function forkSection(): Promise<void> {
  const r = await runForkBench(QUICK ? QUICK_FORK_OPTIONS : DEFAULT_FORK_OPTIONS, log);
  rows.push(...r.rows);
  details.push(...r.details);
}

const started = performance.now();
const loadBefore = loadavg();
const date = new Date().toISOString();
await section('start to first response', ['Start to first getLatestLedger (fresh database)'], startupSection);
await section('HTTP throughput', ['getLatestLedger / getLedgerEntries throughput'], httpSection);
await section('payments per second', [PAYMENTS_METRIC], paymentsSection);
await section('order book: offers and path payments per second', ['Offers and path payments applied and queryable (instant mode), as a ratio to payments'], orderBookSection);
await section('engine close time', ['Engine close: payments and offers/path payments ledgers, largest ledger within 1 s, close and store'], engineSection);
await section('submit-to-SUCCESS latency', ['Submit to SUCCESS (instant mode)'], latencySection);
await section('simulateTransaction', ['simulateTransaction over HTTP (1 and 16 clients) vs direct Rust'], simulateSection);
await section('traces', ['lumen_traceTransaction of a pubnet-sized Soroban transaction: traces per second', 'lumen_traceTransaction latency, 1 client: p50', 'simulateTransaction with trace: true, p50 as a ratio to without'], tracesSection);
await section('protocols', ['Simulation on the protocol-29 and protocol-30 host lines vs protocol 28'], protocolsSection);
await section('contract invocations per second', ['Contract invocations applied and queryable (counter increment, 1 s ledgers)'], invocationsSection);
await section('serving during a close', ['Slowest getLatestLedger answer while a busy ledger closes'], closeStallSection);
await section('serving while heavy requests run', ['getLatestLedger p99 while clients send the heaviest requests (standalone)', 'getLatestLedger p99 while clients send the heaviest requests (pubnet follower)'], heavyRequestsSection);
await section('answer encoding', ['getLedgers of 10 pubnet ledgers, xdrFormat json vs base64', 'getLedgers of 10 pubnet ledgers as base64, gzip / zstd', 'getLedgers of 10 pubnet ledgers as json, gzip / zstd'], answerEncodingSection);
await section('streaming', ['Events subscription, commit to client, 1,000 subscribers on distinct contract ids', 'The same with 10,000 idle WebSocket connections open', 'Memory per idle WebSocket connection', 'getEvents polling at one request per ledger (baseline)', 'Fan-out: 1,000 unfiltered event subscribers, commit to client', 'Fan-out: getLatestLedger probe while 1,000 unfiltered subscribers are served'], streamingSection);
await section('ingestion', ['Ingestion of real pubnet ledgers from a datastore'], ingestionSection);
await section('big ledgers', ['6,000-SAC-transfer ledgers ingested and queryable, per ledger (follower, datastore)', 'getEvents p99 while 6,000-transaction ledgers are ingested', 'getTransaction p99 while 6,000-transaction ledgers are ingested'], async () => {
  const options = QUICK ? QUICK_BIG_LEDGERS_OPTIONS : DEFAULT_BIG_LEDGERS_OPTIONS;
  // `--big-ledgers N`: measure N ledgers instead (each takes the node about a second or more)
  const i = process.argv.indexOf('--big-ledgers');
  const r = await runBigLedgersBench(i > 0 ? { ...options, ledgers: Number(process.argv[i + 1]) } : options, log);
  rows.push(...r.rows);
  details.push(...r.details);
});
await section('getLedgers beyond the retention window', ['getLedgers beyond the retention window: pages from the datastore'], ledgersFromDatastoreSection);
await section('state bootstrap (ingestion)', ['Ledger-state bootstrap from a history archive'], bootstrapSection);
await section('fast-forward', ['Fast-forward: 1,000,000 ledgers in one lumen_closeLedgers (standalone, contract state)'], fastForwardSection);
await section('ledger entries at a past ledger', ['getLedgerEntries at the window\'s far end vs the latest ledger', 'Entry history storage per million ledger entry changes'], entryHistorySection);
await section('snapshot and revert', ['Snapshot and revert, 100,000 entries in the state'], snapshotSection);
await section('lumen-rpc as a library', ['startNetwork() to the first answered request, in process', 'lumen_snapshot and lumen_revert of a test-sized state', 'A 100-test suite, network in process vs a separate node process'], librarySection);
await section('fork (lazy state from a remote)', [
  'Fork: getLedgerEntries (1 account), first call on B (fetched from A)', 'Fork: getLedgerEntries (1 account), later calls on B (resolved)',
  'Fork: simulateTransaction (counter increment), first call on B (instance fetched)', 'Fork: simulateTransaction (counter increment), later calls on B (resolved)',
  'Fork: close of a ledger of payments between local accounts (lumen_closeLedgers)', 'Fork: close of a ledger of counter increments (lumen_closeLedgers)',
], forkSection);
await section('explorer first paint', ['Explorer first paint (/explorer, navigation to first contentful paint, fresh browser context)', 'Explorer latest ledgers drawn (navigation to the live list on screen)'], explorerSection);
const loadAfterMain = loadavg();

// getEvents and queryEvents: their own section after the table (a failure is reported there, not as table rows)
const EVENTS_SECTION = 'events: getEvents and queryEvents';
let eventsMarkdown: string | undefined;
if (!SKIP_EVENTS && (!ONLY || ONLY.some((w) => EVENTS_SECTION.includes(w)))) {
  log(`${EVENTS_SECTION}...`);
  const t0 = performance.now();
  try {
    const res = await runEventsBench({ ...(QUICK ? QUICK_EVENTS_OPTIONS : DEFAULT_EVENTS_OPTIONS), log: (m) => log(m) });
    eventsMarkdown = res.markdown;
    process.stdout.write(`\n${res.summary.join('\n')}\n`);
  } catch (e) {
    const why = (e as Error).message.split('\n').slice(0, 6).join(' / ');
    log(`${EVENTS_SECTION} failed: ${why}`);
    eventsMarkdown = `<!-- events-bench:start -->\n## getEvents and queryEvents benchmark\n\nNot measured: \`${why}\`\n<!-- events-bench:end -->\n`;
  }
  sectionSeconds.push([EVENTS_SECTION, (performance.now() - t0) / 1000]);
}
const totalSec = (performance.now() - started) / 1000;
details.push('### Time per section', '', `The whole run: ${fmt(totalSec, 0)} s (${fmt(totalSec / 60, 1)} min; target: at most 20 min on this machine).`, '',
  '| Section | Seconds |', '|---|---|', ...sectionSeconds.map(([name, sec]) => `| ${name} | ${fmt(sec, 0)} |`), '');

const report: Report = {
  date, machine: describeMachine(), durationSec: totalSec, rows, details,
  loadAvg: { start: loadBefore, end: loadAfterMain },
  notes: [
    `HTTP load: autocannon ${CONNECTIONS} connections, keep-alive, one fixed request body per target, run in its own process. The load generator, the server under test and this orchestrator share the same ${describeMachine().cores} cores, so absolute req/s are below what a separate client host would show; the ratio to the bare node:http baseline, measured the same way and interleaved round by round, is the comparable figure.`,
    'Every server is started as its own process on a fresh SQLite database with `--log-level warn`; ratios are medians of per-round ratios.',
    'Start to first response: from spawn() to the first getLatestLedger that returns a result, probing every 5 ms.',
    'Payments: transactions are built and signed before the clock starts; a payment counts once getTransaction returns SUCCESS (submitted, closed, ingested and queryable). The payments row (interval mode) is bound by the 1 s cadence and the account count; the order-book rows close ledgers back to back (instant mode) and are bound by the node; the engine rows time closeLedgerSteps alone, in process, and with what the standalone network does to store the ledger.',
    'Latency: one client, one connection, sendTransaction then getTransaction every 2 ms until SUCCESS; the root account pays an existing account.',
    'simulateTransaction: the bench process is the client (bench/rawHttp.ts: keep-alive sockets, prebuilt request bytes; node:http\'s client would add ~0.2 ms of CPU per request on these shared cores) and also runs the direct-Rust baseline through the addon against the server\'s database file; rounds interleave direct, 1-client and 16-client runs.',
  ],
};
const summary = toConsole(report);
process.stdout.write(`\n${summary}\n`);
if (!QUICK && !ONLY) {
  const previous = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  writeFileSync(OUT, withEventsSection(toMarkdown(report), eventsMarkdown, previous));
  log(`wrote ${OUT.pathname}`);
} else if (WRITE_PARTIAL) {
  let file = spliceSections(readFileSync(OUT, 'utf8'), report, eventsMarkdown ? [...sectionsRun, EVENTS_SECTION] : sectionsRun);
  if (eventsMarkdown) file = replaceEventsSection(file, eventsMarkdown);
  writeFileSync(OUT, file);
  log(`spliced ${[...sectionsRun, ...(eventsMarkdown ? [EVENTS_SECTION] : [])].join(', ')} into ${OUT.pathname}`);
}
