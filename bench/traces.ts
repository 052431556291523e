// Traces: lumen_traceTransaction of a stored Soroban transaction, and the cost of simulateTransaction's
// `trace: true`.
//  - The traced transaction is the caller contract's increment_times on a counter: a cross-contract
//    call per time, each reading and writing storage and emitting an event. Its size is set against
//    pubnet's: as many times as it takes for the instructions it declares (as simulated) to reach the
//    median that the Soroban transactions of the pubnet fixture ledgers (test/fixtures/pubnet)
//    declare, computed in the same run.
//  - Latency: one client, one trace after another (each a full re-execution: the ledger's meta
//    decoded, the state before read from the entry history, the engine and the host run, the trace
//    built and sent as JSON). Throughput: 4 clients at once. Medians over rounds. The traces go
//    round the transactions of TRACED distinct ledgers, so nothing about one ledger is reused.
//  - simulateTransaction of the same call with and without `trace: true`, interleaved, p50 ratio.
import { readdirSync } from 'node:fs';
import { Account, Address, Contract, TransactionBuilder, nativeToScVal, rpc } from '@stellar/stellar-sdk';
import { deployCounter, deployWasm, submitAsRoot } from './counter.ts';
import { drive } from './simulate.ts';
import { startServer, type NodeProcess } from './serverProcess.ts';
import { PASSPHRASE, rootKeypair } from './stellar.ts';
import { fmt, median } from './stats.ts';
import { verdict, type Row } from './report.ts';
import { readLedgerFile, decodeLedger } from '../src/replay/ledgerFiles.ts';
import { envelopesOf } from '../src/ingest/ledgerToBatch.ts';

export const TRACE_TARGETS = { tracesPerSecond: 300, p50Ms: 50 };
/** Transactions traced in turn, each in a ledger of its own (instant mode closes one per transaction). */
const TRACED = 24;
const CALLER_WASM = new URL('../contracts/wasm/caller.wasm', import.meta.url);
const PUBNET_LEDGERS = new URL('../test/fixtures/pubnet/ledgers/', import.meta.url);

export interface TraceBenchConfig { rounds: number; sequential: number; concurrent: number; simulations: number }

/** The median instructions the pubnet fixture ledgers' Soroban transactions declare, and how many there are. */
function pubnetSorobanMedian(): { instructions: number; transactions: number } {
  const declared: number[] = [];
  for (const file of readdirSync(PUBNET_LEDGERS)) {
    for (const raw of readLedgerFile(new URL(file, PUBNET_LEDGERS).pathname)) {
      for (const env of envelopesOf(decodeLedger(raw, file))) {
        const tx = env.type === 2 ? env.v1.tx : env.type === 5 ? env.feeBump.tx.innerTx.v1.tx : undefined;
        if (tx?.ext.v === 1 && tx.operations[0]?.body.type === 24) declared.push(tx.ext.sorobanData.resources.instructions);
      }
    }
  }
  return { instructions: median(declared), transactions: declared.length };
}

const rpcBody = (method: string, params: object): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

export async function runTraceBench(cfg: TraceBenchConfig, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const pubnet = pubnetSorobanMedian();
  const node: NodeProcess = await startServer({ closeMode: 'instant' });
  try {
    const counter = await deployCounter(node.url);
    const [caller] = await deployWasm(node.url, CALLER_WASM);
    const call = (seq: string, times: number) => new TransactionBuilder(new Account(rootKeypair().publicKey(), seq), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(new Contract(caller).call('increment_times', new Address(counter).toScVal(), nativeToScVal(1, { type: 'u32' }), nativeToScVal(times, { type: 'u32' })))
      .setTimeout(60).build();
    const server = new rpc.Server(node.url, { allowHttp: true });
    let times = 1;
    for (; times < 64; times++) {
      const sim = await server.simulateTransaction(call('1', times));
      if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(`simulating increment_times(${times}) failed`);
      if (sim.transactionData.build().resources.instructions >= pubnet.instructions) break;
    }
    const hashes: string[] = [];
    for (let i = 0; i < TRACED; i++) {
      hashes.push((await submitAsRoot(node.url, call((await server.getAccount(rootKeypair().publicKey())).sequenceNumber(), times))).txHash);
    }
    const hash = hashes[0];
    const first = await node.rpc('lumen_traceTransaction', { hash });
    if (!first.result?.reproduced?.meta) throw new Error(`the trace did not reproduce the transaction: ${JSON.stringify(first).slice(0, 400)}`);
    const instructions: number = first.result.host.cpuInstructions;
    log(`  traced transaction: increment_times(${times}), ${fmt(instructions, 0)} instructions (pubnet fixture median declared: ${fmt(pubnet.instructions, 0)} over ${pubnet.transactions} transactions)`);

    const traceBodies = hashes.map((h) => rpcBody('lumen_traceTransaction', { hash: h }));
    // a frame that failed carries "error": only a JSON-RPC error counts as a failed request
    const traced = (t: string) => t.includes('"result":{"hash"') && !t.includes('"error":{"code"');
    const simulated = (t: string) => t.includes('"result":{') && !t.includes('"error":{"code"') && !t.includes('"traceError"') && !t.includes('"error":"');
    await drive(node.url, traceBodies, 1, 20, traced); // warm: the module cache
    const p50s: number[] = [], p99s: number[] = [], rps1: number[] = [], rps4: number[] = [];
    const simPlain: number[] = [], simTraced: number[] = [];
    const simTx = call('1', times).toXDR();
    for (let r = 0; r < cfg.rounds; r++) {
      const one = await drive(node.url, traceBodies, 1, cfg.sequential, traced);
      p50s.push(one.p50); p99s.push(one.p99); rps1.push(one.rps);
      rps4.push((await drive(node.url, traceBodies, 4, cfg.concurrent, traced)).rps);
      simPlain.push((await drive(node.url, rpcBody('simulateTransaction', { transaction: simTx }), 1, cfg.simulations, simulated)).p50);
      simTraced.push((await drive(node.url, rpcBody('simulateTransaction', { transaction: simTx, trace: true }), 1, cfg.simulations, simulated)).p50);
    }
    const p50 = median(p50s), tps = Math.max(median(rps1), median(rps4)), ratio = median(simTraced) / median(simPlain);
    const sizeNote = `${times} cross-contract calls, ${fmt(instructions, 0)} instructions used; pubnet fixture median declared ${fmt(pubnet.instructions, 0)}`;
    const rows: Row[] = [
      { metric: `lumen_traceTransaction of a pubnet-sized Soroban transaction (${sizeNote}): traces per second`, value: `${fmt(tps, 0)} /s`,
        target: `>= ${TRACE_TARGETS.tracesPerSecond} /s`, verdict: verdict(tps >= TRACE_TARGETS.tracesPerSecond) },
      { metric: 'lumen_traceTransaction latency, 1 client: p50', value: `${fmt(p50, 1)} ms (p99 ${fmt(median(p99s), 1)} ms)`,
        target: `< ${TRACE_TARGETS.p50Ms} ms`, verdict: verdict(p50 < TRACE_TARGETS.p50Ms) },
      { metric: 'simulateTransaction with trace: true, p50 as a ratio to without', value: `${fmt(ratio, 2)}x (${fmt(median(simTraced), 1)} vs ${fmt(median(simPlain), 1)} ms)`,
        target: 'reported', verdict: 'n/a' },
    ];
    const details = ['### Traces', '',
      `Traced transactions: ${TRACED} like ${hash}, each in its own ledger: ${sizeNote} (${pubnet.transactions} Soroban transactions in the fixture ledgers).`,
      `Per round: ${cfg.sequential} sequential traces, ${cfg.concurrent} over 4 clients, ${cfg.simulations} simulations each way.`,
      `1 client: p50 ${p50s.map((x) => fmt(x, 1)).join(', ')} ms; ${rps1.map((x) => fmt(x, 0)).join(', ')} /s. 4 clients: ${rps4.map((x) => fmt(x, 0)).join(', ')} /s.`,
      `simulateTransaction p50 without / with trace: ${simPlain.map((x) => fmt(x, 1)).join(', ')} / ${simTraced.map((x) => fmt(x, 1)).join(', ')} ms.`, ''];
    return { rows, details };
  } finally {
    await node.stop();
  }
}

