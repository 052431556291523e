// Submit-to-SUCCESS latency in instant close mode: how long a developer's script waits between
// sendTransaction and being able to read the result. One payment at a time, so every number is
// one ledger close plus ingestion plus the polling granularity — no queueing behind other traffic.
import { Keypair } from '@stellar/stellar-sdk';
import { RpcClient } from './rpcClient.ts';
import { createAccountsTx, paymentTx, rootKeypair, send, sequences, submitAndWait, type SignedTx, type TxStatus } from './stellar.ts';
import { percentile, sleep } from './stats.ts';

const POLL_MS = 2;
const WARMUP = 20; // first payments run while the server's code paths are still being compiled

export interface LatencyResult { samples: number[]; p50: number; p99: number; max: number }

export interface LatencyFixture { rpc: RpcClient; source: Keypair; seq: bigint; destination: string }

/** The root account pays a fresh account; one connection, as a single client script would use. */
export async function latencyFixture(url: string): Promise<LatencyFixture> {
  const rpc = new RpcClient(url, 1);
  const source = rootKeypair();
  const destination = Keypair.random().publicKey();
  let seq = (await sequences(rpc, [source.publicKey()])).get(source.publicKey())!;
  await submitAndWait(rpc, createAccountsTx(source, seq, [destination], '100'));
  seq += 1n;
  return { rpc, source, seq, destination };
}

async function once(rpc: RpcClient, tx: SignedTx, timeoutMs = 10_000): Promise<number> {
  const t0 = performance.now();
  const s = await send(rpc, tx);
  if (s.status !== 'PENDING') throw new Error(`sendTransaction answered ${s.status}`);
  for (;;) {
    const r = await rpc.call<TxStatus>('getTransaction', { hash: tx.hash });
    if (r.status === 'SUCCESS') return performance.now() - t0;
    if (r.status === 'FAILED') throw new Error(`payment failed: ${r.resultXdr}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`payment not applied in ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

export async function runLatency(f: LatencyFixture, count: number): Promise<LatencyResult> {
  // signed ahead: signing is the client's cost, not part of what the server makes the client wait for
  const txs = Array.from({ length: WARMUP + count }, (_, i) => paymentTx(f.source, f.seq + BigInt(i), f.destination));
  f.seq += BigInt(txs.length);
  const samples: number[] = [];
  for (let i = 0; i < txs.length; i++) {
    const ms = await once(f.rpc, txs[i]);
    if (i >= WARMUP) samples.push(ms);
  }
  return { samples, p50: percentile(samples, 50), p99: percentile(samples, 99), max: Math.max(...samples) };
}
