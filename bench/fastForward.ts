// Fast-forward (lumen_closeLedgers beyond its first ledger, src/standalone/fastForward.ts): a
// standalone node with some contract state (a contract, temporary and persistent entries whose TTLs
// end during the fast-forward, so evictions happen in it) closes a million ledgers in one request,
// several times; the baseline, in the same run on the same node, closes ledgers one by one
// (lumen_closeLedgers count 1, the ordinary close path), and its time per ledger is extrapolated to
// the same count.
import type { Keypair } from '@stellar/stellar-sdk';
import { startServer } from './serverProcess.ts';
import { RpcClient } from './rpcClient.ts';
import type { Row } from './report.ts';
import { verdict } from './report.ts';
import { fmt, median } from './stats.ts';
import { fundedAccount, invoke, invokeOp, server, sym, u64, uploadAndDeploy } from '../test/integration/support/contracts.ts';
import { builderTimeout } from '../test/integration/support/sdk.ts';

export interface FastForwardBenchOptions {
  /** Ledgers per fast-forward. */
  count: number;
  runs: number;
  /** Ledgers closed one by one for the baseline. */
  baselineLedgers: number;
  /** Contract entries of each durability. */
  entries: number;
}
export const DEFAULT_FAST_FORWARD_OPTIONS: FastForwardBenchOptions = { count: 1_000_000, runs: 3, baselineLedgers: 1000, entries: 10 };
export const QUICK_FAST_FORWARD_OPTIONS: FastForwardBenchOptions = { count: 100_000, runs: 1, baselineLedgers: 200, entries: 3 };

const TARGET_SEC = 10;
/** Short TTLs, so entries expire (and are evicted) inside the first fast-forward. */
const ARGS = ['--min-temporary-ttl', '1000', '--min-persistent-ttl', '50000'];

export async function runFastForwardBench(opts: FastForwardBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const node = await startServer({ closeMode: 'instant', extra: ARGS });
  const timeoutBefore = builderTimeout.seconds;
  builderTimeout.seconds = 0;   // the network's clock runs ahead of this machine's after a fast-forward
  try {
    const s = server(node.url);
    const user: Keypair = await fundedAccount(node.url);
    const { contractId } = await uploadAndDeploy(s, user, 'storage');
    for (let i = 0; i < opts.entries; i++) {
      await invoke(s, user, invokeOp(contractId, 'put_temporary', sym(`t${i}`), u64(i)));
      await invoke(s, user, invokeOp(contractId, 'put_persistent', sym(`p${i}`), u64(i)));
    }
    const rpc = new RpcClient(node.url, 4);
    await rpc.call('lumen_setCloseMode', { mode: 'manual' });

    // baseline: the ordinary close, one ledger a request
    const b0 = performance.now();
    for (let i = 0; i < opts.baselineLedgers; i++) await rpc.call('lumen_closeLedgers', { count: 1 });
    const perLedgerMs = (performance.now() - b0) / opts.baselineLedgers;
    const extrapolatedSec = perLedgerMs * opts.count / 1000;
    log(`  one by one: ${fmt(perLedgerMs, 2)} ms a ledger (${opts.count.toLocaleString('en-US')} would take ${fmt(extrapolatedSec, 0)} s)`);

    const secs: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const before = (await rpc.call('getLatestLedger')).sequence as number;
      const t0 = performance.now();
      const r = await rpc.call('lumen_closeLedgers', { count: opts.count });
      const sec = (performance.now() - t0) / 1000;
      if (r.latestLedger !== before + opts.count) throw new Error(`fast-forward ended at ${r.latestLedger}, not ${before + opts.count}`);
      secs.push(sec);
      log(`  run ${run + 1}/${opts.runs}: ${opts.count.toLocaleString('en-US')} ledgers in ${fmt(sec, 2)} s`);
    }
    // the network goes on: an ordinary ledger after it, and the window of ledgers is served
    const range = await rpc.call('getLedgers', { startLedger: (await rpc.call('lumen_closeLedgers', { count: 1 })).latestLedger, pagination: { limit: 1 } });
    if (range.ledgers.length !== 1) throw new Error('getLedgers after the fast-forward found no ledger');

    const med = median(secs);
    const ratio = extrapolatedSec / med;
    const rows: Row[] = [{
      metric: `Fast-forward: ${opts.count.toLocaleString('en-US')} ledgers in one lumen_closeLedgers (standalone, contract state)`,
      value: `${fmt(med, 2)} s (${fmt(ratio, 0)}x closing them one by one)`,
      target: `< ${TARGET_SEC} s`,
      verdict: verdict(med < TARGET_SEC),
    }];
    const details = [
      '### Fast-forward', '',
      `A standalone node (its own process, manual close mode) with a contract and ${opts.entries} temporary and ${opts.entries} persistent entries (minimum TTLs ${ARGS[1]} and ${ARGS[3]} ledgers, so they are evicted during the first fast-forward) answers \`lumen_closeLedgers {count: ${opts.count}}\` over HTTP; ${opts.runs} runs one after the other on the same node, seconds: ${secs.map((x) => fmt(x, 2)).join(', ')} (median ${fmt(med, 2)}). ` +
      `Each stores the last ledgers of the history retention window (120,960 by default) as rows and only computes the others (their header chain, evictions and state-size samples), see src/standalone/fastForward.ts. ` +
      `Baseline in the same run: ${opts.baselineLedgers} ledgers closed one by one (\`count: 1\` a request, the ordinary close) took ${fmt(perLedgerMs, 2)} ms each, ${fmt(extrapolatedSec, 0)} s for ${opts.count.toLocaleString('en-US')}: the fast-forward is ${fmt(ratio, 0)}x faster.`, '',
    ];
    return { rows, details };
  } finally {
    builderTimeout.seconds = timeoutBefore;
    await node.stop();
  }
}
