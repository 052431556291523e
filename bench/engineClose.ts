// Engine close time: how many transactions the ledger engine applies per second of close time,
// measured in process at the engine's entry point (closeLedgerSteps), without HTTP, queue or
// ingestion around it.
//
// The state is the node's own: a SqliteStore fed through the same path as the standalone network
// (encode the meta, closedLedgerBatch, LedgerWriter.write, OrderBook.apply), and the same EntrySource over it
// (store reads decoded per key, the committed order book). The setup (accounts, trustlines, the
// resting book; bench/market.ts) is applied through closeLedgerSteps too, ledger by ledger. Then one
// ledger of N payments and one of N order-book transactions are closed over that state, again and
// again: closeLedgerSteps writes nothing to the state (the changes are in its meta), so every sample
// closes the very same ledger over the very same state. Signatures are verified before the clock
// starts, as the node verifies them at submission (worker threads) and finds them cached at apply.
//
// The close and store rows time what the standalone network does to make a closed ledger stored
// (StandaloneNetwork.closeWith): the close, encoding its meta, converting it to rows
// (closedLedgerBatch: the addon for a big ledger) and the LedgerWriter's write (state-size window,
// store.ingest, the feed), then the order book following the writes. Each sample stores its ledger,
// so each closes a fresh ledger of payments (the next sequence numbers), built before the clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xdr } from '../src/xdr/xdr.ts';
import { SqliteStore } from '../src/store/sqlite/sqliteStore.ts';
import { OrderBook } from '../src/ledger/orderBook.ts';
import { poolShareTrustLineKeyPrefix } from '../src/ledger/liquidityPools.ts';
import { closeLedgerSteps, type ClosedLedger, type PreviousLedger } from '../src/ledger/closeLedger.ts';
import { encodeCloseMetaSteps } from '../src/ledger/encodeCloseMeta.ts';
import { ledgerToBatch } from '../src/ingest/ledgerToBatch.ts';
import { LedgerWriter } from '../src/ingest/ledgerWriter.ts';
import { LedgerFeed } from '../src/ingest/ledgerFeed.ts';
import { closedLedgerBatch } from '../src/standalone/closedLedgerBatch.ts';
import { genesisLedger } from '../src/ledger/genesis.ts';
import { MS_CLOSE_TIMES_PROTOCOL } from '../src/ledger/closeTimes.ts';
import { frameOf, type TransactionFrame } from '../src/ledger/transactionFrame.ts';
import { verifyEd25519 } from '../src/ledger/signatures.ts';
import type { EntrySource } from '../src/ledger/ledgerTxn.ts';
import { accountKey, decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, networkIdOf } from '../src/xdr/codec.ts';
import { ledgerKeyOf } from '../src/xdr/ledgerKeys.ts';
import type { Keypair } from '@stellar/stellar-sdk';
import { Market, ROLES, type MarketSize, type Step } from './market.ts';
import { opsTx, PASSPHRASE, type SignedTx } from './stellar.ts';
import type { Row } from './report.ts';
import { fmt, median } from './stats.ts';

const RETENTION = 120_960;
const CADENCE_MS = 1000;

/** Runs a close generator to its end in one go (the node slices it; the work is the same). */
function runSteps<T>(g: Generator<void, T, void>): T {
  let r = g.next();
  while (!r.done) r = g.next();
  return r.value;
}

export class EngineLedgers {
  readonly networkId = networkIdOf(PASSPHRASE);
  private readonly dir = mkdtempSync(join(tmpdir(), 'lumen-bench-engine-'));
  readonly store = new SqliteStore(join(this.dir, 'engine.sqlite'));
  readonly book = new OrderBook();
  readonly writer = new LedgerWriter(this.store, new LedgerFeed(), RETENTION);
  /** Exactly the standalone network's EntrySource. */
  readonly state: EntrySource = {
    getEntry: (key) => { const e = this.store.entry(key); return e ? decodeLedgerEntry(e.entry) : undefined; },
    offers: (selling, buying) => this.book.offers(selling, buying),
    offersBySeller: (seller) => this.book.offersBySeller(seller),
    poolShareTrustLines: (owner) =>
      Array.from(this.store.entriesWithKeyPrefix(poolShareTrustLineKeyPrefix(owner)), (e) => decodeLedgerEntry(e.entry)),
  };
  prev: PreviousLedger;
  private closeTime = BigInt(Math.floor(Date.now() / 1000));

  /** `protocol`: the network's (default: a new network's); from 30 on its closes carry millisecond close times. */
  constructor(protocol?: number) {
    const genesis = genesisLedger(this.networkId, { closeTime: this.closeTime, maxTxSetSize: 10_000, protocol });
    const bytes = xdr.LedgerCloseMeta.schema.encode(genesis.meta);
    const batch = ledgerToBatch({ bytes, meta: genesis.meta }, this.networkId);
    for (const e of genesis.entries) {
      batch.entryWrites.push({ key: encodeLedgerKey(ledgerKeyOf(e.data)), entry: encodeLedgerEntry(e), lastModified: 1 });
    }
    this.store.ingest(batch, RETENTION);
    if (genesis.meta.v !== 2) throw new Error('expected a V2 genesis meta');
    const h = genesis.meta.v2.ledgerHeader;
    this.prev = { header: h.header, hash: h.hash };
  }

  seq(k: Keypair): bigint {
    const e = this.state.getEntry(encodeLedgerKey(accountKey({ type: 0, ed25519: k.rawPublicKey() })));
    if (!e || e.data.type !== 0) throw new Error(`no account ${k.publicKey()}`);
    return e.data.account.seqNum;
  }

  /** A signed transaction as the node holds it after submission, its signatures verified (and cached). */
  frame(tx: SignedTx): TransactionFrame {
    const envelopeXdr = Buffer.from(tx.envelope, 'base64');
    const frame: TransactionFrame = { ...frameOf(xdr.TransactionEnvelope.schema.decode(envelopeXdr), this.networkId), envelopeXdr };
    for (const s of frame.signatures) verifyEd25519(frame.sourceId.ed25519, frame.hash, s.signature);
    return frame;
  }

  /** Closes a ledger over the current state without storing it; the close alone is timed. */
  close(frames: TransactionFrame[]): { ms: number; closed: ClosedLedger } {
    const t0 = performance.now();
    const closeTime = this.closeTime + 1n;
    const closeTimeMs = this.prev.header.ledgerVersion >= MS_CLOSE_TIMES_PROTOCOL ? closeTime * 1000n : undefined;
    const closed = runSteps(closeLedgerSteps(this.prev, frames, this.state, { closeTime, closeTimeMs, networkId: this.networkId }));
    return { ms: performance.now() - t0, closed };
  }

  /**
   * Closes and stores a ledger through the standalone network's steps (StandaloneNetwork.closeWith
   * and batchOf, without the slicing), each step timed; `check` runs between the close and the
   * encoding, off the clock.
   */
  closeAndStore(frames: TransactionFrame[], check?: (closed: ClosedLedger) => void): { closed: ClosedLedger; ms: StoreStepsMs } {
    const cpu0 = process.cpuUsage();
    const { closed, ms: close } = this.close(frames);
    check?.(closed);
    const t0 = performance.now();
    const encoded = runSteps(encodeCloseMetaSteps(closed.meta.v2, closed.txSetXdr));
    const t1 = performance.now();
    const batch = closedLedgerBatch(closed, encoded, this.networkId);
    const t2 = performance.now();
    this.writer.write([batch]);
    this.book.apply(batch.entryWrites);
    const t3 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    this.prev = { header: closed.header, hash: closed.hash };
    this.closeTime++;
    const ms = { close, encode: t1 - t0, convert: t2 - t1, write: t3 - t2, total: 0, cpu: (cpu.user + cpu.system) / 1000 };
    ms.total = ms.close + ms.encode + ms.convert + ms.write;
    return { closed, ms };
  }

  /** Closes and stores a ledger as the standalone network does; every transaction must succeed. */
  commit(frames: TransactionFrame[], what: string): ClosedLedger {
    return this.closeAndStore(frames, (closed) => failures(closed, what)).closed;
  }

  runStep(step: Step): void {
    this.commit(step.txs.map((t) => this.frame(opsTx(t.source, this.seq(t.source), t.ops))), step.name);
  }

  dispose(): void {
    this.store.close?.();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The steps of storing a closed ledger, in ms. */
export interface StoreStepsMs {
  close: number; encode: number; convert: number; write: number; total: number;
  /** The process's CPU time over the four steps (user + system): less bent by other processes than the clock. */
  cpu: number;
}

/** Throws unless every transaction of the ledger succeeded. */
export function failures(closed: ClosedLedger, what: string): void {
  const bad = closed.meta.v2.txProcessing.map((p, i) => ({ i, code: p.result.result.result.code })).filter((r) => r.code !== 0);
  if (bad.length) {
    const first = closed.meta.v2.txProcessing[bad[0].i].result.result;
    throw new Error(`${what}: ${bad.length} of ${closed.applied.length} transactions failed; first: ${JSON.stringify(first, (_, v) => typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? undefined : v)}`);
  }
}

export interface EngineBenchOptions {
  /** Transactions in the measured ledgers (the issue's 10,000). */
  ledgerTxs: number;
  /** Closes per measured ledger; the median is reported. */
  samples: number;
  /** Payment lanes available to the largest-ledger search (every lane sends one transaction). */
  paymentLanes: number;
  /** Trading lanes available to it for offers (at least ledgerTxs). */
  tradingLanes: number;
  makers: number;
  offersPerMaker: number;
  /** Closes per candidate size in the search (median), and at most this many candidates. */
  searchSamples: number;
  searchSteps: number;
  /** Ledgers of ledgerTxs payments closed and stored, each sample one (the median is reported). */
  storeSamples: number;
}

export const DEFAULT_ENGINE_OPTIONS: EngineBenchOptions = {
  ledgerTxs: 10_000, samples: 3, paymentLanes: 14_000, tradingLanes: 10_000, makers: 500, offersPerMaker: 20, searchSamples: 2, searchSteps: 4, storeSamples: 3,
};

/**
 * Closes and stores `samples` ledgers of `count` payments (lanes 0..count-1, each paying the next),
 * each built and verified before the clock from the lanes' stored sequence numbers. Every transaction
 * must succeed.
 */
export function closeAndStorePayments(engine: EngineLedgers, market: Market, count: number, samples: number, log: (m: string) => void): StoreStepsMs[] {
  const out: StoreStepsMs[] = [];
  for (let s = 0; s < samples; s++) {
    const frames = market.lanes.slice(0, count).map((k, i) => engine.frame(market.payment(i, engine.seq(k))));
    const { ms } = engine.closeAndStore(frames, (closed) => failures(closed, 'payments ledger (stored)'));
    out.push(ms);
    log(`  close and store ${s + 1}/${samples}: ${count} payments ${fmt(ms.total)} ms (close ${fmt(ms.close)}, encode ${fmt(ms.encode)}, convert ${fmt(ms.convert)}, write ${fmt(ms.write)}; CPU ${fmt(ms.cpu)})`);
  }
  return out;
}

interface Search { largest: number; largestMs: number; smallestOver?: number; smallestOverMs?: number; tried: Array<{ n: number; ms: number }>; capped: boolean }

/**
 * The largest ledger closing under the cadence: from the per-transaction cost measured at `start`
 * transactions, guess the count that takes 1 s, then close candidates (median of `samples`) and
 * narrow between the largest seen under 1 s and the smallest seen over, to within 2%.
 */
function largestUnderCadence(engine: EngineLedgers, frames: TransactionFrame[], start: { n: number; ms: number }, samples: number, steps: number, log: (m: string) => void): Search {
  const tried = [start];
  let lo = start.ms < CADENCE_MS ? start : undefined;
  let hi = start.ms >= CADENCE_MS ? start : undefined;
  let n = Math.round(start.n * CADENCE_MS / start.ms);
  for (let s = 0; s < steps; s++) {
    n = Math.min(n, frames.length);
    if (lo && n <= lo.n) n = lo.n + 1;
    if (hi && n >= hi.n) n = hi.n - 1;
    if ((lo && hi && hi.n - lo.n <= Math.max(1, lo.n * 0.02)) || (lo && lo.n >= frames.length)) break;
    const ms = median(Array.from({ length: samples }, () => engine.close(frames.slice(0, n)).ms));
    tried.push({ n, ms });
    log(`    ${n} transactions: ${fmt(ms)} ms`);
    if (ms < CADENCE_MS) { if (!lo || n > lo.n) lo = { n, ms }; } else if (!hi || n < hi.n) hi = { n, ms };
    // aim at 1 s from the nearest measurement, a little inside the bracket
    n = Math.round(n * (CADENCE_MS * 0.995) / ms);
  }
  return {
    largest: lo?.n ?? 0, largestMs: lo?.ms ?? NaN, smallestOver: hi?.n, smallestOverMs: hi?.ms, tried,
    capped: !!lo && lo.n >= frames.length,
  };
}

/**
 * Every kind's transactions succeed in the measured ledger (and the roles do what they say). Its
 * own function, so that the two closed ledgers (their metas) are garbage before any timed close.
 */
function checkLedgers(engine: EngineLedgers, orders: TransactionFrame[], payments: TransactionFrame[]): string {
  const check = engine.close(orders).closed;
  failures(check, 'order-book ledger');
  failures(engine.close(payments).closed, 'payments ledger');
  return describeOrders(check);
}

/**
 * The close-only rows: the payments and order-book ledgers, sampled alternately, and the largest
 * of each under the cadence. Its own function so that what it holds (24,000 prepared transactions,
 * the check ledgers' metas) is garbage before the close-and-store samples, which time a node's
 * steps: a node's heap holds no such leftovers.
 */
function measureCloses(engine: EngineLedgers, market: Market, size: MarketSize, opts: EngineBenchOptions, log: (m: string) => void) {
  const t1 = performance.now();
  const seqs = market.lanes.map((k) => engine.seq(k));
  const payments = market.lanes.map((_, i) => engine.frame(market.payment(i, seqs[i])));
  const orders = market.lanes.slice(0, size.tradingLanes).map((_, i) => engine.frame(market.order(i, seqs[i], 0)));
  log(`  ${payments.length + orders.length} transactions built, signed and verified in ${fmt((performance.now() - t1) / 1000, 1)} s`);

  const roleStats = checkLedgers(engine, orders.slice(0, opts.ledgerTxs), payments.slice(0, opts.ledgerTxs));

  // interleaved, so that background load hits both kinds alike
  const payMs: number[] = [];
  const orderMs: number[] = [];
  for (let s = 0; s < opts.samples; s++) {
    payMs.push(engine.close(payments.slice(0, opts.ledgerTxs)).ms);
    orderMs.push(engine.close(orders.slice(0, opts.ledgerTxs)).ms);
    log(`  sample ${s + 1}/${opts.samples}: ${opts.ledgerTxs} payments ${fmt(payMs[s])} ms, ${opts.ledgerTxs} offers/path payments ${fmt(orderMs[s])} ms`);
  }
  const ratios = payMs.map((p, i) => p / orderMs[i]);
  const payRate = opts.ledgerTxs / (median(payMs) / 1000);
  const orderRate = opts.ledgerTxs / (median(orderMs) / 1000);

  log('  largest payments ledger under 1 s:');
  const paySearch = largestUnderCadence(engine, payments, { n: opts.ledgerTxs, ms: median(payMs) }, opts.searchSamples, opts.searchSteps, log);
  log('  largest order-book ledger under 1 s:');
  const orderSearch = largestUnderCadence(engine, orders, { n: opts.ledgerTxs, ms: median(orderMs) }, opts.searchSamples, opts.searchSteps, log);
  return { payMs, orderMs, ratios, payRate, orderRate, paySearch, orderSearch, roleStats };
}

/**
 * Issue 27's bar for a 10,000-payment ledger closed and stored: 0.6x the close alone as
 * BENCHMARKS.md had it on 2026-11-25 (1,287 ms). A figure of an earlier run, not of this one: the
 * row's ratio is to this run's close.
 */
const CLOSE_AND_STORE_TARGET_MS = 772;

export async function runEngineBench(opts: EngineBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const size: MarketSize = { lanes: Math.max(opts.paymentLanes, opts.tradingLanes, opts.ledgerTxs), tradingLanes: Math.max(opts.tradingLanes, opts.ledgerTxs), makers: opts.makers, offersPerMaker: opts.offersPerMaker };
  const market = new Market(size);
  const engine = new EngineLedgers();
  try {
    const t0 = performance.now();
    for (const step of market.steps()) engine.runStep(step);
    log(`  setup: ${market.lanes.length} lanes (${size.tradingLanes} trading), ${market.offers} resting offers in ${market.books.length} books, ${engine.prev.header.ledgerSeq} ledgers, ${fmt((performance.now() - t0) / 1000, 1)} s`);

    const { payMs, orderMs, ratios, payRate, orderRate, paySearch, orderSearch, roleStats } = measureCloses(engine, market, size, opts, log);
    // last: every stored ledger moves the lanes' sequence numbers on, which the frames above used
    log('  close and store (the standalone network\'s steps):');
    const stored = closeAndStorePayments(engine, market, opts.ledgerTxs, opts.storeSamples, log);
    const storedMs = (k: keyof StoreStepsMs) => median(stored.map((m) => m[k]));
    const largestCell = (s: Search) => `${s.capped ? '>= ' : ''}${s.largest.toLocaleString('en-US')} transactions (${fmt(s.largestMs)} ms)`;

    const n = opts.ledgerTxs.toLocaleString('en-US');
    const rows: Row[] = [
      { metric: `Engine close: ledger of ${n} payments (closeLedgerSteps, in process)`, value: `${fmt(payRate)} tx/s of close time (${fmt(median(payMs))} ms)`, ratio: '1.00', target: 'reference', verdict: 'n/a' },
      {
        metric: `Engine close and store: ledger of ${n} payments (close, meta encoded, converted to rows, LedgerWriter.write; in process)`,
        value: `${fmt(opts.ledgerTxs / (storedMs('total') / 1000))} tx/s (${fmt(storedMs('total'))} ms: close ${fmt(storedMs('close'))}, encode ${fmt(storedMs('encode'))}, convert ${fmt(storedMs('convert'))}, write ${fmt(storedMs('write'))})`,
        ratio: `${(storedMs('total') / median(payMs)).toFixed(2)}x close only`,
        target: `<= ${CLOSE_AND_STORE_TARGET_MS} ms (issue 27: 0.6x the close of 2026-11-25)`, verdict: storedMs('total') <= CLOSE_AND_STORE_TARGET_MS ? 'PASS' : 'FAIL',
      },
      {
        metric: `Engine close: ledger of ${n} offers and path payments against a ${market.offers.toLocaleString('en-US')}-offer book`,
        value: `${fmt(orderRate)} tx/s of close time (${fmt(median(orderMs))} ms)`, ratio: `${median(ratios).toFixed(2)}x payments`, target: 'reported (no target)', verdict: 'n/a',
      },
      { metric: 'Largest payments ledger closing within the 1 s cadence (engine)', value: largestCell(paySearch), target: 'reported (no target)', verdict: 'n/a' },
      { metric: 'Largest offers/path-payments ledger closing within the 1 s cadence (engine)', value: largestCell(orderSearch), target: 'reported (no target)', verdict: 'n/a' },
    ];
    const searchLine = (name: string, s: Search) => `- ${name}: closes tried (transactions: median ms) ${s.tried.map((t) => `${t.n.toLocaleString('en-US')}: ${fmt(t.ms)}`).join(', ')}. Largest under 1 s: ${largestCell(s)}${s.smallestOver ? `; smallest over: ${s.smallestOver.toLocaleString('en-US')} (${fmt(s.smallestOverMs!)} ms)` : ''}${s.capped ? ' — every prepared lane fit, the limit is higher' : ''}.`;
    const details = [
      '### Engine close time', '',
      `The ledger engine alone, in a process of its own (bench/engineCloseProcess.ts, so that nothing the earlier sections left in the bench process enters the timed closes): \`closeLedgerSteps\` (fee charging, validation, apply, the meta) run to its end and timed, over the node's own kind of state (a SqliteStore written through the standalone network's path: meta encoded, \`closedLedgerBatch\`, \`LedgerWriter.write\`, \`OrderBook.apply\`; entries read from SQLite and decoded per key, offers from the committed order book). Not timed: encoding the meta, converting and storing it, which the node does after the close (see the close and store row, and the end-to-end section). The setup is applied through the engine too: ${market.lanes.length.toLocaleString('en-US')} lane accounts (${size.tradingLanes!.toLocaleString('en-US')} with trustlines to 3 credit assets), ${opts.makers} makers placing ${market.offers.toLocaleString('en-US')} resting offers over ${market.books.length} books (every ordered pair of XLM, USD, EUR, BTC; bench/market.ts). Every transaction comes from its own source account (one per account per ledger, as the queue admits them), with one operation; signatures are verified before the clock starts, as the node does at submission. closeLedgerSteps writes nothing to the state, so each sample closes the same ledger over the same state; payments and order-book ledgers alternate, ${opts.samples} samples each, medians reported; the ratio is the median of per-sample ratios.`, '',
      `The order-book ledger: lane i sends role i mod 12 (${ROLES.length} roles): ${roleStats}.`, '',
      '| Sample | Payments ledger ms | Offers/path payments ledger ms | Ratio (payments ms / offers ms) |', '|---|---|---|---|',
      ...payMs.map((p, i) => `| ${i + 1} | ${fmt(p)} | ${fmt(orderMs[i])} | ${ratios[i].toFixed(2)} |`), '',
      `Largest ledger under the 1 s cadence: a first guess from the cost per transaction at ${n} transactions, then candidate ledgers (the first n lanes' transactions; median of ${opts.searchSamples} closes each), narrowed between the largest under 1 s and the smallest over to within 2% (at most ${opts.searchSteps} candidates). This is the engine's close only: the node also encodes, converts and stores every ledger, so its own full cycle fits fewer. On a shared machine two sizes a few transactions apart can land on either side of 1 s (see the spread of the samples above): read the figure to within that spread, not to the transaction.`, '',
      searchLine('Payments', paySearch), searchLine('Offers and path payments', orderSearch), '',
      `Close and store: what the standalone network does to make a closed ledger stored (StandaloneNetwork.closeWith, without its slicing): \`closeLedgerSteps\`, \`encodeCloseMetaSteps\`, \`closedLedgerBatch\` (rows through the addon for a ledger this big), \`LedgerWriter.write\` (the state-size window, \`store.ingest\` in one SQLite transaction, the feed) and \`OrderBook.apply\` of the writes. Each sample stores its ledger, so each is a fresh ledger of ${n} payments (lanes 0 to ${opts.ledgerTxs - 1}, each paying the next), built and verified before the clock; ${opts.storeSamples} samples, run after the rows above; medians per step (the total is the median of the per-sample totals). Against the ${CLOSE_AND_STORE_TARGET_MS} ms bar: the close alone takes ${fmt(storedMs('close'))} ms here (${fmt(median(payMs))} ms in the close-only row), ${(storedMs('close') / CLOSE_AND_STORE_TARGET_MS).toFixed(2)}x the bar before anything is encoded or stored, so no change to the storing can meet it; the engine's close itself would have to get faster.`, '',
      '| Sample | Close ms | Encode ms | Convert ms | Write ms | Total ms | Process CPU ms |', '|---|---|---|---|---|---|---|',
      ...stored.map((m, i) => `| ${i + 1} | ${fmt(m.close)} | ${fmt(m.encode)} | ${fmt(m.convert)} | ${fmt(m.write)} | ${fmt(m.total)} | ${fmt(m.cpu)} |`), '',
    ];
    return { rows, details };
  } finally {
    engine.dispose();
  }
}

/** What the order-book ledger did: how many offers it crossed and created, from its results. */
function describeOrders(closed: ClosedLedger): string {
  let claimed = 0;
  let created = 0;
  let updatedOrDeleted = 0;
  const offerOf = (r: any) => r?.success?.offer;
  for (const p of closed.meta.v2.txProcessing) {
    const res = p.result.result.result;
    if (res.code !== 0) continue;
    for (const op of res.results) {
      const tr = (op as any).tr;
      const arm = tr && Object.entries(tr).find(([k]) => k !== 'type')?.[1] as any;
      if (!arm) continue;
      const atoms = arm.success?.offersClaimed ?? arm.success?.offers ?? [];
      claimed += atoms.length;
      const o = offerOf(arm);
      if (o?.effect === 0) created++; else if (o) updatedOrDeleted++;
    }
  }
  return `${claimed.toLocaleString('en-US')} offers crossed (claim atoms) and ${created.toLocaleString('en-US')} offers created in a ledger of ${closed.applied.length.toLocaleString('en-US')} transactions`;
}
