// Offers and path payments applied and queryable per second, end to end through a node process, as
// a ratio to plain payments sent the same way in the same run.
//
// The market (bench/market.ts): 10,000 resting offers over 12 books placed by 500 makers; lanes send
// ManageSellOffer/ManageBuyOffer (resting, crossing partly, crossing fully) and path payments
// (strict send and receive, 1 and 2 hops). A transaction counts once getTransaction answers
// SUCCESS, as in bench/payments.ts, whose lane runner this reuses.
//
// Bound by the node, not by the cadence: the node runs with `--close-mode instant`, which closes as
// soon as a transaction is queued and, when more arrive during a close, closes again right after it.
// No timer paces the ledgers: with thousands of lanes (one transaction in flight each, the queue's
// rule) they grow to what the node closes while it also answers the lanes' sendTransaction and
// getTransaction calls. The node's /metrics give, per run, the share of the time it spent closing
// (apply, convert and store) and its CPU use; the rest of its time is the requests' own work, the
// same per transaction for both kinds, and the bench client shares the 2 cores.
import { freePort, startServer } from './serverProcess.ts';
import { Market, ROLES } from './market.ts';
import { runPayments, type PaymentsResult } from './payments.ts';
import { RpcClient } from './rpcClient.ts';
import { opsTx, sequences } from './stellar.ts';
import type { Row } from './report.ts';
import { fmt, median } from './stats.ts';

export interface OrderBookBenchOptions { lanes: number; makers: number; offersPerMaker: number; rounds: number; runs: number }

export const ORDER_BOOK_TARGET_RATIO = 0.5;

/** Seconds the node has spent applying ledgers, and converting and storing them, and CPU seconds of its process, so far. */
async function closeSeconds(metricsUrl: string): Promise<{ apply: number; ingest: number; cpu: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const sum = (type: string) => Number(new RegExp(`ingestion_duration_seconds_sum\\{type="${type}"\\} ([0-9.e+-]+)`).exec(text)?.[1] ?? 0);
  const cpu = Number(/^process_cpu_seconds_total ([0-9.e+-]+)/m.exec(text)?.[1] ?? NaN);
  return { apply: sum('apply'), ingest: sum('total'), cpu };
}

interface Run extends PaymentsResult { busy: number; applySec: number; ingestSec: number; cpuCores: number }

export async function runOrderBookBench(opts: OrderBookBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const adminPort = await freePort();
  const node = await startServer({ closeMode: 'instant', extra: ['--admin-endpoint', `127.0.0.1:${adminPort}`] });
  const metricsUrl = `http://127.0.0.1:${adminPort}/metrics`;
  try {
    const market = new Market({ lanes: opts.lanes, makers: opts.makers, offersPerMaker: opts.offersPerMaker });
    const rpc = new RpcClient(node.url, 8);
    const t0 = performance.now();
    try {
      for (const step of market.steps()) {
        const keys = step.txs.map((t) => t.source);
        const seqs = await sequences(rpc, keys.map((k) => k.publicKey()));
        // setup transactions carry up to 100 operations: smaller batches keep requests under the body limit
        const batch = Math.max(1, Math.min(50, Math.floor(40 / Math.max(...step.txs.map((t) => t.ops.length)) * 10)));
        const r = await runPayments(node.url, { keys, seqs: keys.map((k) => seqs.get(k.publicKey())!) }, 1, 300_000, (src, seq, i) => opsTx(src, seq, step.txs[i].ops), batch);
        if (!r.complete) throw new Error(`setup step "${step.name}" did not finish`);
      }
    } finally {
      rpc.close();
    }
    const seqRpc = new RpcClient(node.url, 8);
    const seqs = await sequences(seqRpc, market.lanes.map((k) => k.publicKey())).finally(() => seqRpc.close());
    const accounts = { keys: market.lanes, seqs: market.lanes.map((k) => seqs.get(k.publicKey())!) };
    log(`  setup: ${opts.lanes} lanes, ${market.offers} resting offers placed by ${opts.makers} makers in ${market.books.length} books, in ${fmt((performance.now() - t0) / 1000, 1)} s`);

    const measured = async (kind: 'payments' | 'offers', round0: number): Promise<Run> => {
      const before = await closeSeconds(metricsUrl);
      const r = kind === 'payments'
        ? await runPayments(node.url, accounts, opts.rounds, 120_000, (_src, seq, i) => market.payment(i, seq))
        : await runPayments(node.url, accounts, opts.rounds, 120_000, (_src, seq, i, _keys, round) => market.order(i, seq, round0 + round));
      const after = await closeSeconds(metricsUrl);
      const applySec = after.apply - before.apply;
      const ingestSec = after.ingest - before.ingest;
      return { ...r, applySec, ingestSec, busy: (applySec + ingestSec) / r.seconds, cpuCores: (after.cpu - before.cpu) / r.seconds };
    };
    const pays: Run[] = [];
    const orders: Run[] = [];
    for (let i = 0; i < opts.runs; i++) {
      // interleaved, so that background load hits both kinds alike; the books rotate with the rounds
      pays.push(await measured('payments', 0));
      orders.push(await measured('offers', i * opts.rounds));
      const line = (r: Run) => `${fmt(r.perSecond)}/s (${r.payments} in ${fmt(r.seconds, 2)} s, ${r.ledgers} ledgers, node closing ${fmt(r.busy * 100, 0)}% of the time, node CPU ${fmt(r.cpuCores, 2)} cores)${r.complete ? '' : ' — time limit'}`;
      log(`  run ${i + 1}/${opts.runs}: payments ${line(pays[i])}; offers/path payments ${line(orders[i])}`);
      if (!pays[i].complete || !orders[i].complete) break; // sequence numbers are no longer known
    }
    const ratios = orders.map((o, i) => o.perSecond / pays[i].perSecond);
    const ratio = median(ratios);
    const offerRate = median(orders.map((r) => r.perSecond));
    const payRate = median(pays.map((r) => r.perSecond));
    const rows: Row[] = [
      {
        metric: `Payments applied and queryable, ledgers closed back to back (instant mode, ${opts.lanes} accounts in flight)`,
        value: `${fmt(payRate)} /s`, ratio: '1.00', target: 'baseline of the next row', verdict: 'n/a',
      },
      {
        metric: `Offers and path payments applied and queryable against a ${market.offers.toLocaleString('en-US')}-offer book (same way)`,
        value: `${fmt(offerRate)} /s`, ratio: `${ratio.toFixed(2)}x payments`, target: `>= ${ORDER_BOOK_TARGET_RATIO}x payments`,
        verdict: orders.every((r) => r.complete) ? (ratio >= ORDER_BOOK_TARGET_RATIO ? 'PASS' : 'FAIL') : 'FAIL',
      },
    ];
    const runRow = (kind: string, r: Run, i: number) =>
      `| ${i + 1} | ${kind}${r.complete ? '' : ' (time limit)'} | ${r.payments} | ${fmt(r.seconds, 2)} | ${fmt(r.perSecond)} | ${r.ledgers} | ${fmt(r.payments / Math.max(1, r.ledgers))} | ${fmt(r.applySec, 2)} + ${fmt(r.ingestSec, 2)} | ${fmt(r.busy * 100, 0)}% | ${fmt(r.cpuCores, 2)} | ${r.tryAgainLater} | ${r.notFoundPolls} |`;
    const details = [
      '### Offers and path payments per second (end to end)', '',
      `A node process with \`--close-mode instant\`: it closes as soon as a transaction is queued, and when more arrive during a close it closes again as soon as that one is stored, so under load ledgers close back to back and their size follows the node's speed, not a timer. ${opts.lanes} lane accounts, each with one transaction in flight (the queue admits one per source account), send ${opts.rounds} transactions each per run; a transaction counts once getTransaction answers SUCCESS (bench/payments.ts's runner: pre-signed, JSON-RPC batches of 50 on 8 connections). Each run of payments (1 stroop of XLM to the next lane) is followed by a run of order-book transactions from the same lanes on the same node; the ratio is the median of the per-run ratios.`, '',
      `Setup, through the node: ${opts.makers} makers place ${market.offers.toLocaleString('en-US')} resting offers (${opts.offersPerMaker} ManageSellOffers each, 100 units each, prices from 1.01 up) in ${market.books.length} books: every ordered pair of XLM, USD, EUR, BTC (three issuers). Lane i sends role i mod 12: ${ROLES.map((r, k) => `${k}: ${r}`).join('; ')}. Every transaction succeeds (a failure stops the bench). Resting offers and the takers' limits are set so that the book stays near its size through the runs (bench/market.ts).`, '',
      'Node closing: the node\'s own apply and convert-and-store seconds over the run (its ledger-ingestion summaries on /metrics), as a share of the run\'s wall time; node CPU: its process\'s CPU seconds over the run (process_cpu_seconds_total, main thread and signature-verification workers) per wall second. No timer paces these runs: a close starts as soon as a transaction waits, so the time not spent closing goes to the requests themselves (every transaction is one sendTransaction, with its signature check and validation, and at least one getTransaction) and to the bench client, which shares the same 2 cores. The end-to-end ratio therefore includes that per-transaction request work, the same for both kinds; the engine section below gives the close alone.', '',
      '| Run | Kind | Transactions | Seconds | Tx/s | Ledgers | Tx per ledger | Apply + store s | Node closing | Node CPU (cores) | TRY_AGAIN_LATER | NOT_FOUND polls |', '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...pays.flatMap((p, i) => [runRow('payments', p, i), ...(orders[i] ? [runRow('offers/path payments', orders[i], i)] : [])]), '',
      `Ratio per run: ${ratios.map((x) => x.toFixed(2)).join(', ')}.`, '',
    ];
    return { rows, details };
  } finally {
    await node.stop();
  }
}
