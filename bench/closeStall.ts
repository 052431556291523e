// How long a busy ledger close keeps the server from answering. Every account queues one call of the
// counter's `increment` (pre-signed, sent before the close starts); then, while the ledger holding
// them closes, getLatestLedger goes out back to back on one keep-alive connection until an answer
// shows the new ledger. The slowest of those answers is the longest stall a client saw. The
// baseline is the close's own busy time (applying, then converting and storing; from the server's
// debug log): a close done in one block would have held every request that long.
import { RawHttpClient } from './rawHttp.ts';
import { RpcClient } from './rpcClient.ts';
import { incrementFactory } from './invocations.ts';
import { deployCounter } from './counter.ts';
import { createAccounts } from './payments.ts';
import { send } from './stellar.ts';
import { sleep } from './stats.ts';
import type { NodeProcess } from './serverProcess.ts';

export interface CloseStallRun {
  transactions: number;
  /** The slowest getLatestLedger answer during the close, ms. */
  longestAnswerMs: number;
  answers: number;
  /** The close's busy time (apply + ingest) from the server's log, ms. */
  closeBusyMs: number;
}

const sequenceOf = (body: string): number => Number(/"sequence":(\d+)/.exec(body)?.[1] ?? NaN);

/** The server's "closed ledger" debug line for `ledger`: its apply and ingest milliseconds. */
function closeBusyMs(output: string, ledger: number): { transactions: number; ms: number } | undefined {
  const line = output.split('\n').find((l) => l.includes('closed ledger') && new RegExp(`\\bledger=${ledger}\\b`).test(l));
  if (!line) return undefined;
  const field = (k: string) => Number(new RegExp(`\\b${k}=([0-9.]+)`).exec(line)?.[1]);
  return { transactions: field('transactions'), ms: field('applyMs') + field('ingestMs') };
}

/** `node` must close ledgers on an interval long enough to queue every account's call in between, and log at debug level. */
export async function runCloseStall(node: NodeProcess, opts: { accounts: number; runs: number }, log: (m: string) => void): Promise<CloseStallRun[]> {
  const accounts = await createAccounts(node.url, opts.accounts);
  const contractId = await deployCounter(node.url);
  const increment = await incrementFactory(node.url, contractId, accounts.keys[1]);
  const rpc = new RpcClient(node.url, 64);
  const ping = new RawHttpClient(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestLedger' }));
  const runs: CloseStallRun[] = [];
  try {
    for (let r = 0; r < opts.runs; r++) {
      // start right after a close, so the whole interval is left for queueing
      const before = sequenceOf(await ping.send());
      while (sequenceOf(await ping.send()) === before) await sleep(5);
      const queuedAt = sequenceOf(await ping.send());
      const txs = accounts.keys.map((k, i) => increment(k, accounts.seqs[i]++)); // the builder signs seq + 1
      const answers = await Promise.all(txs.map((tx) => send(rpc, tx)));
      const pending = answers.filter((a) => a.status === 'PENDING').length;
      if (sequenceOf(await ping.send()) !== queuedAt) throw new Error('a ledger closed while the calls were being queued: lengthen the close interval');
      let longest = 0;
      let count = 0;
      let seq = queuedAt;
      while (seq === queuedAt) {
        const t = performance.now();
        seq = sequenceOf(await ping.send());
        longest = Math.max(longest, performance.now() - t);
        count++;
      }
      let busy = closeBusyMs(node.output(), seq);
      for (let wait = 0; !busy && wait < 50; wait++) { // the log reaches us through a pipe, a little later
        await sleep(100);
        busy = closeBusyMs(node.output(), seq);
      }
      if (!busy) throw new Error(`no close log line for ledger ${seq}`);
      runs.push({ transactions: busy.transactions, longestAnswerMs: longest, answers: count, closeBusyMs: busy.ms });
      log(`  run ${r + 1}/${opts.runs}: ${pending} calls queued; ledger ${seq} (${busy.transactions} transactions) busy ${busy.ms.toFixed(0)} ms; ${count} getLatestLedger answers meanwhile, slowest ${longest.toFixed(1)} ms`);
      await sleep(200);
    }
  } finally {
    ping.close();
  }
  return runs;
}
