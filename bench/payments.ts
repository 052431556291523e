// Payments applied per second, end to end: a payment counts only once getTransaction reports it
// SUCCESS, so submission, admission, ledger close, ingestion and the query path are all inside
// the measured time.
//
// The queue admits one pending transaction per source account per ledger, so throughput needs many
// source accounts: each account is a "lane" that sends its next payment as soon as its previous one
// is confirmed. All lanes share at most IN_FLIGHT HTTP requests, like a fleet of clients behind a
// connection pool. Transactions are built and signed before the clock starts: client-side signing
// would otherwise compete with the server for the same two cores. Calls that lanes make at the same
// moment travel as JSON-RPC batches, as an indexer or exchange hot wallet would send them.
import { Keypair } from '@stellar/stellar-sdk';
import { LedgerWatcher } from './ledgerWatcher.ts';
import { RpcClient } from './rpcClient.ts';
import { createAccountsTx, paymentTx, rootKeypair, send, sequences, submitAndWait, type SignedTx, type TxStatus } from './stellar.ts';

const IN_FLIGHT = 64;
/** Calls per JSON-RPC batch request while paying: many lanes send and poll at once. */
const BATCH = 50;
/** Connections while paying: 8 x 50 calls stays under the node's sendTransaction queue limit (500). */
const BATCH_CONNECTIONS = 8;
const OPS_PER_TX = 100;

export interface Accounts { keys: Keypair[]; seqs: bigint[] }

/**
 * Creates `n` funded accounts in two ledgers: the root account (one transaction per ledger, by the
 * queue rule) creates up to 100 funders, then every funder creates up to 100 accounts, all in the
 * same ledger. Creating them all from root would take n/100 ledgers.
 */
export async function createAccounts(url: string, n: number): Promise<Accounts> {
  const rpc = new RpcClient(url, IN_FLIGHT);
  try {
    const root = rootKeypair();
    const funders = Array.from({ length: Math.ceil(n / OPS_PER_TX) }, () => Keypair.random());
    if (funders.length > OPS_PER_TX) throw new Error(`at most ${OPS_PER_TX * OPS_PER_TX} accounts`);
    const rootSeq = (await sequences(rpc, [root.publicKey()])).get(root.publicKey())!;
    await submitAndWait(rpc, createAccountsTx(root, rootSeq, funders.map((f) => f.publicKey()), '1000000'));

    const keys = Array.from({ length: n }, () => Keypair.random());
    const funderSeqs = await sequences(rpc, funders.map((f) => f.publicKey()));
    await Promise.all(funders.map((f, i) => submitAndWait(rpc, createAccountsTx(
      f, funderSeqs.get(f.publicKey())!, keys.slice(i * OPS_PER_TX, (i + 1) * OPS_PER_TX).map((k) => k.publicKey()), '1000'))));

    const seqs = await sequences(rpc, keys.map((k) => k.publicKey()));
    return { keys, seqs: keys.map((k) => seqs.get(k.publicKey())!) };
  } finally {
    rpc.close();
  }
}

export interface PaymentsResult {
  payments: number;        // confirmed SUCCESS
  seconds: number;         // first send to last SUCCESS seen
  perSecond: number;
  pending: number;         // sendTransaction answers, by status
  tryAgainLater: number;
  duplicate: number;
  errors: number;          // sendTransaction ERROR or FAILED results
  notFoundPolls: number;   // getTransaction NOT_FOUND (asked before the payment's ledger was queryable)
  ledgers: number;         // ledgers closed during the run
  complete: boolean;       // false when the time limit stopped the run: then payments/s is over what was confirmed
}

class OutOfTime extends Error {}

/**
 * Sends `rounds` transactions from every account (by default account i pays account i+1; `build`
 * makes other kinds) and waits until all are queryable. Advances `accounts.seqs` so that runs can follow each other on the same server.
 */
/** Builds account i's transaction with sequence number `seq` + 1 (pre-signed before the clock starts). */
export type TxFactory = (source: Keypair, seq: bigint, i: number, keys: readonly Keypair[], round: number) => SignedTx;

const payNext: TxFactory = (source, seq, i, keys) => paymentTx(source, seq, keys[(i + 1) % keys.length].publicKey());

/** `batch`: calls per JSON-RPC batch (lower it for big transactions: the node caps request bodies at 512 KiB). */
export async function runPayments(url: string, accounts: Accounts, rounds: number, timeLimitMs = 90_000, build: TxFactory = payNext, batch = BATCH): Promise<PaymentsResult> {
  const { keys, seqs } = accounts;
  const txs: SignedTx[][] = keys.map((k, i) => Array.from({ length: rounds }, (_, r) => build(k, seqs[i] + BigInt(r), i, keys, r)));

  const rpc = new RpcClient(url, BATCH_CONNECTIONS, batch);
  const watcher = new LedgerWatcher(url);
  await watcher.start();
  const firstLedger = watcher.latest;
  const counts = { pending: 0, tryAgainLater: 0, duplicate: 0, errors: 0, notFoundPolls: 0, success: 0 };
  let lastSuccess = 0;

  const t0 = performance.now();
  const deadline = Date.now() + timeLimitMs;

  const lane = async (laneTxs: SignedTx[]): Promise<void> => {
    for (const tx of laneTxs) {
      if (Date.now() > deadline) throw new OutOfTime();
      let seen: number;
      for (;;) {
        seen = watcher.latest;
        const s = await send(rpc, tx);
        if (s.status === 'PENDING') { counts.pending++; break; }
        if (s.status === 'DUPLICATE') { counts.duplicate++; break; }
        if (s.status === 'TRY_AGAIN_LATER') { counts.tryAgainLater++; await watcher.after(seen, deadline); continue; }
        counts.errors++;
        throw new Error(`sendTransaction ${s.status}: ${s.errorResultXdr ?? ''}`);
      }
      // It cannot be in a ledger that had closed before it was accepted: sleep until a new one.
      for (;;) {
        await watcher.after(seen, deadline);
        seen = watcher.latest;
        const r = await rpc.call<TxStatus>('getTransaction', { hash: tx.hash });
        if (r.status === 'SUCCESS') { counts.success++; lastSuccess = performance.now(); break; }
        if (r.status === 'FAILED') { counts.errors++; throw new Error(`payment ${tx.hash} failed: ${r.resultXdr}`); }
        counts.notFoundPolls++;
      }
    }
  };

  let complete = true;
  try {
    const results = await Promise.allSettled(txs.map(lane));
    for (const r of results) {
      if (r.status === 'fulfilled') continue;
      // a slow server is a result (reported as incomplete), anything else is a broken run
      if (r.reason instanceof OutOfTime || /before the deadline/.test(String(r.reason?.message))) complete = false;
      else throw r.reason;
    }
  } finally {
    watcher.stop();
    rpc.close();
  }
  // After an incomplete run some payments may still be queued: the accounts' sequence numbers are
  // unknown, so the caller must not run again on them.
  if (complete) for (let i = 0; i < seqs.length; i++) seqs[i] += BigInt(rounds);

  const seconds = ((complete ? lastSuccess : performance.now()) - t0) / 1000;
  return {
    payments: counts.success, seconds, perSecond: counts.success / seconds,
    pending: counts.pending, tryAgainLater: counts.tryAgainLater, duplicate: counts.duplicate,
    errors: counts.errors, notFoundPolls: counts.notFoundPolls, ledgers: watcher.latest - firstLedger, complete,
  };
}
