// The getEvents benchmark: a week of pubnet-shaped synthetic events (default 20 million over
// 120,960 ledgers) written through the store's ingestion writer (SqliteStore.ingest, the path every
// closed ledger takes), then getEvents latencies measured on the handler (validation, index, JSON):
//   (a) one contract id, (b) the common `transfer` topic, (c) a rare topic (and a rare account at
//   topic position 2), each from random start ledgers across the week at limit 100; (d) paging one
//   filter with cursors from the oldest ledger to the end;
// plus the ingest rate (events/s) and the database size per million events. queryEvents runs the
// same queries (its filter for each, where it has one) on the same start ledgers, interleaved with
// getEvents request by request, and is reported beside it with the ratio of the two.
//
// Shapes follow the pubnet fixture ledgers (protocol 26): ~45% fee events (BEFORE_ALL_TXS, native
// SAC, ["fee", G]), ~50% SAC transfers (["transfer", from, to, "CODE:ISSUER"]), plus refunds
// (AFTER_ALL_TXS), mint/burn/set_authorized, and Soroban contract events with pubnet-like symbols.
// Accounts, assets and contracts are drawn from skewed (Zipf-like) distributions.
//
// Run alone: `node bench/events.ts [--events N] [--ledgers L] [--runs R] [--quick]` (updates the
// events section of BENCHMARKS.md only, except with --quick); `npm run bench` runs it as its last
// section unless `--skip-events` is given (`--only events` runs it alone, writing nothing). Building 20 million events takes about 10 minutes on the 2-core bench
// machine; `--events` scales it down.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StrKey } from '@stellar/stellar-sdk';
import { defaultConfig } from '../src/config/config.ts';
import { getEvents } from '../src/rpc/methods/getEvents.ts';
import { queryEvents } from '../src/rpc/methods/queryEvents.ts';
import type { Method, MethodCall, MethodContext } from '../src/rpc/methods/types.ts';
import { AnswerBudget } from '../src/rpc/answerBudget.ts';
import { HeavyWork } from '../src/rpc/heavyWork.ts';
import { methodCall } from '../src/rpc/callScope.ts';
import { resultText } from '../src/rpc/rawJson.ts';
import { SqliteStore } from '../src/store/sqlite/sqliteStore.ts';
import type { IngestBatch, TransactionRow } from '../src/store/types.ts';
import type { EventRow } from '../src/events/types.ts';
import { describeMachine } from './machine.ts';
import { fmt, median, percentile } from './stats.ts';

export interface EventsBenchOptions {
  events: number;        // total events to write
  ledgers: number;       // over this many ledgers
  runs: number;          // query runs (medians over runs)
  queries: number;       // requests per query kind per run
  log: (msg: string) => void;
}

export const DEFAULT_EVENTS_OPTIONS: Omit<EventsBenchOptions, 'log'> = { events: 5_000_000, ledgers: 30_240, runs: 3, queries: 200 };
export const QUICK_EVENTS_OPTIONS: Omit<EventsBenchOptions, 'log'> = { events: 300_000, ledgers: 2_000, runs: 1, queries: 30 };

const TARGETS = { p99Ms: 100, ingestPerSec: 50_000 };
const FIRST_LEDGER = 2;
const MARK_START = '<!-- events-bench:start -->';
const MARK_END = '<!-- events-bench:end -->';

// ---------------------------------------------------------------------------------------------
// XDR building blocks, written directly (the generator must be much faster than the writer)

const u32be = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeUInt32BE(n >>> 0); return b; };
const padded = (b: Buffer): Buffer => Buffer.concat([u32be(b.length), b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
const scSymbol = (s: string): Buffer => Buffer.concat([u32be(15), padded(Buffer.from(s))]);
const scString = (s: string): Buffer => Buffer.concat([u32be(14), padded(Buffer.from(s))]);
const scAccount = (key: Buffer): Buffer => Buffer.concat([u32be(18), u32be(0), u32be(0), key]);
const scContract = (id: Buffer): Buffer => Buffer.concat([u32be(18), u32be(1), id]);
const scU32 = (n: number): Buffer => Buffer.concat([u32be(3), u32be(n)]);
function scI128(v: bigint): Buffer {
  const b = Buffer.alloc(20);
  b.writeUInt32BE(10, 0);
  b.writeBigInt64BE(v < 0n ? -1n : 0n, 4);
  b.writeBigUInt64BE(BigInt.asUintN(64, v), 12);
  return b;
}
const HEAD = Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]); // ext v0, contract id present
const BODY = Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]); // type CONTRACT, body v0
function contractEvent(contract: Buffer, topics: Buffer[], data: Buffer): Uint8Array {
  return Buffer.concat([HEAD, contract, BODY, u32be(topics.length), ...topics, data]);
}
const sha = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// The synthetic world

const ACCOUNTS = 1_000_000;
const ASSETS = 300;
const CONTRACTS = 2_000;
const SOROBAN_SYMBOLS = ['swap', 'trade', 'update_reserves', 'sync', 'deposit', 'withdraw', 'claim', 'approve', 'pool_state', 'supply'];
export const RARE_SYMBOL = 'REDSTONE';
/** Contracts from this index on are tokens emitting 3-topic transfers; the busiest (index 0) never does. */
const TOKEN_CONTRACTS_FROM = 1000;
/** An account far in the tail of the account distribution: a handful of events per week. */
export const RARE_ACCOUNT_INDEX = 987_654;

export class World {
  readonly random: () => number;
  readonly assetContracts: Buffer[];
  readonly assetStrings: Buffer[];
  readonly contracts: Buffer[];
  readonly symbols: Buffer[];
  readonly rare = scSymbol(RARE_SYMBOL);
  readonly sym = { fee: scSymbol('fee'), transfer: scSymbol('transfer'), mint: scSymbol('mint'), burn: scSymbol('burn'), setAuthorized: scSymbol('set_authorized') };
  readonly rareEvery: number;      // one rare event per this many events
  private readonly accountCache = new Map<number, Buffer>();

  constructor(totalEvents: number) {
    this.random = prng(42);
    this.assetContracts = Array.from({ length: ASSETS }, (_, i) => sha(`asset ${i}`));
    this.assetStrings = Array.from({ length: ASSETS }, (_, i) => scString(i === 0 ? 'native'
      : `${['USDC', 'EURC', 'AQUA', 'yXLM', 'BTC', 'ETH', 'SHX', 'VELO'][i % 8]}${i}:${StrKey.encodeEd25519PublicKey(sha(`issuer ${i}`))}`));
    this.contracts = Array.from({ length: CONTRACTS }, (_, i) => sha(`contract ${i}`));
    this.symbols = SOROBAN_SYMBOLS.map(scSymbol);
    this.rareEvery = Math.max(1000, Math.floor(totalEvents / 30)); // ~30 per week
  }

  /** Skewed index in [0, n): u^3 puts most of the mass on small indexes. */
  skewed(n: number): number { return Math.min(n - 1, Math.floor(n * this.random() ** 3)); }

  account(i = this.skewed(ACCOUNTS)): Buffer {
    let b = this.accountCache.get(i);
    if (!b) {
      const key = Buffer.alloc(32, 0x5a);
      key.writeUInt32BE(i, 0);
      b = scAccount(key);
      if (this.accountCache.size < 200_000) this.accountCache.set(i, b);
    }
    return b;
  }

  amount(): Buffer { return scI128(BigInt(1 + Math.floor(this.random() * 1e9))); }
}

interface Generated { batch: IngestBatch; events: number }

/** One ledger's batch: transactions (fee + operation events) totalling about `target` events. */
export function generateLedger(w: World, seq: number, target: number, counter: { events: number }): Generated {
  const events: EventRow[] = [];
  const transactions: TransactionRow[] = [];
  const after: EventRow[] = [];
  let fee = 0;
  let refunds = 0;
  const native = w.assetContracts[0];
  const txEvents: EventRow[] = [];
  for (let order = 1; events.length + txEvents.length + after.length < target; order++) {
    const source = w.account();
    events.push({ tx: 0, op: 0, index: fee++, applicationOrder: order, event: contractEvent(native, [w.sym.fee, source], w.amount()) });
    const r = w.random();
    const ops: Uint8Array[][] = [];
    if (r < 0.85) {
      const a = w.skewed(ASSETS);
      ops.push([contractEvent(w.assetContracts[a], [w.sym.transfer, source, w.account(), w.assetStrings[a]], w.amount())]);
    } else if (r < 0.95) {
      const list: Uint8Array[] = [];
      const c = w.contracts[w.skewed(CONTRACTS)];
      for (let k = 1 + Math.floor(w.random() * 3); k > 0; k--) {
        const sym = ++counter.events % w.rareEvery === 0 ? w.rare : w.symbols[w.skewed(w.symbols.length)];
        list.push(contractEvent(c, [sym, scContract(c), w.account()], scU32(Math.floor(w.random() * 1e6))));
      }
      for (let k = Math.floor(w.random() * 3); k > 0; k--) {
        const a = w.skewed(ASSETS);
        list.push(contractEvent(w.assetContracts[a], [w.sym.transfer, scContract(c), w.account(), w.assetStrings[a]], w.amount()));
      }
      // a non-SAC token's transfer: 3 topics
      if (w.random() < 0.2) list.push(contractEvent(w.contracts[TOKEN_CONTRACTS_FROM + w.skewed(50)], [w.sym.transfer, w.account(), w.account()], w.amount()));
      ops.push(list);
      after.push({ tx: 1048575, op: 0, index: refunds++, applicationOrder: order, event: contractEvent(native, [w.sym.fee, source], scI128(-BigInt(1 + Math.floor(w.random() * 1e5)))) });
    } else {
      const a = 1 + w.skewed(ASSETS - 1);
      const kind = w.random();
      const topics = kind < 0.4 ? [w.sym.mint, w.account(), w.assetStrings[a]]
        : kind < 0.8 ? [w.sym.burn, w.account(), w.assetStrings[a]] : [w.sym.setAuthorized, w.account(), w.assetStrings[a]];
      ops.push([contractEvent(w.assetContracts[a], topics, kind < 0.8 ? w.amount() : Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]))]);
    }
    ops.forEach((list, op) => list.forEach((event, index) => txEvents.push({ tx: order, op, index, applicationOrder: order, event })));
    const hash = Buffer.alloc(32);
    hash.writeUInt32BE(seq, 0);
    hash.writeUInt32BE(order, 4);
    transactions.push({
      ledgerSequence: seq, applicationOrder: order, hash, innerHash: null, successful: true, feeBump: false,
      envelope: new Uint8Array(8), result: new Uint8Array(8), meta: new Uint8Array(8),
      events: { transactionEventsXdr: [], contractEventsXdr: [], diagnosticEventsXdr: [] },
    });
  }
  const all = [...events, ...txEvents, ...after];
  return {
    events: all.length,
    batch: {
      ledger: { sequence: seq, hash: sha(`ledger ${seq}`), closeTime: 1_700_000_000 + seq * 5, protocolVersion: 26, header: new Uint8Array(16), meta: new Uint8Array(16) },
      transactions, entryWrites: [], feeSamples: [], events: all,
    },
  };
}

// ---------------------------------------------------------------------------------------------

/** One call's limits as the server gives them (a fresh answer budget). */
const callOf = (): MethodCall => methodCall(new AbortController().signal, new AnswerBudget(defaultConfig.maxResponseBodyBytes));

interface QueryStats { p50: number; p99: number; max: number; results: number }

const statsOf = (samples: number[], results: number): QueryStats =>
  ({ p50: percentile(samples, 50), p99: percentile(samples, 99), max: Math.max(...samples), results: results / samples.length });

/** One request's latency (the handler and JSON.stringify of its result) and its events. */
async function timeCall(method: Method, ctx: MethodContext, params: Record<string, unknown>): Promise<{ ms: number; events: number }> {
  const t0 = performance.now();
  const res = JSON.parse(resultText(await method.handler(params, ctx, callOf()))) as { events: unknown[] };
  return { ms: performance.now() - t0, events: res.events.length };
}

/** A query kind: getEvents' params, and queryEvents' for the same question when it can ask it. */
interface Kind {
  key: string;
  label: string;
  params: (start: number) => Record<string, unknown>;
  query: ((start: number) => Record<string, unknown>) | undefined;
}

/**
 * Times a kind on each start ledger with getEvents and, when it has one, queryEvents, interleaved
 * request by request (which goes first alternates, so neither always finds the pages cached).
 */
async function timeKind(ctx: MethodContext, k: Kind, starts: readonly number[]): Promise<{ get: QueryStats; query: QueryStats | undefined }> {
  const get: number[] = [];
  const query: number[] = [];
  let getEventsSeen = 0;
  let queryEventsSeen = 0;
  for (let i = 0; i < starts.length; i++) {
    const runGet = async () => { const r = await timeCall(getEvents, ctx, k.params(starts[i])); get.push(r.ms); getEventsSeen += r.events; };
    const runQuery = async () => { const r = await timeCall(queryEvents, ctx, k.query!(starts[i])); query.push(r.ms); queryEventsSeen += r.events; };
    if (!k.query) await runGet();
    else if (i % 2 === 0) { await runGet(); await runQuery(); } else { await runQuery(); await runGet(); }
  }
  return { get: statsOf(get, getEventsSeen), query: k.query ? statsOf(query, queryEventsSeen) : undefined };
}

/** Pages one method's query from its first params with cursors to the latest ledger. */
async function pageThrough(method: Method, ctx: MethodContext, first: Record<string, unknown>,
  next: (cursor: string) => Record<string, unknown>, done: (res: { events: unknown[]; cursor: string; scanStatus?: string }) => boolean) {
  const samples: number[] = [];
  let events = 0;
  const t0 = performance.now();
  let params = first;
  for (let page = 0; page < 1_000_000; page++) {
    const t = performance.now();
    const res = JSON.parse(resultText(await method.handler(params, ctx, callOf()))) as { events: unknown[]; cursor: string; scanStatus?: string };
    samples.push(performance.now() - t);
    events += res.events.length;
    if (done(res)) break;
    params = next(res.cursor);
  }
  return { pages: samples.length, events, seconds: (performance.now() - t0) / 1000, p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

export interface EventsBenchResult { markdown: string; summary: string[]; ok: boolean }

export async function runEventsBench(opts: EventsBenchOptions): Promise<EventsBenchResult> {
  const { log } = opts;
  const started = performance.now();
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'lumen-events-bench-'));
  const path = join(dir, 'events.sqlite');
  const store = new SqliteStore(path);
  const w = new World(opts.events);
  const ctx: MethodContext = {
    store, config: { ...defaultConfig },
    node: { version: 'bench', commitHash: '', buildTimestamp: '', captiveCoreVersion: '', friendbotUrl: undefined },
    submitter: { submit: () => { throw new Error('no submissions'); } },
    simulator: {
      invoke: () => { throw new Error('no simulations'); },
      footprint: () => { throw new Error('no simulations'); },
    },
    heavy: new HeavyWork({ concurrency: 2, jsonThreads: 1 }),
  };
  try {
    // --- build: one ledger per ingest transaction, retention = the whole week
    const perLedger = opts.events / opts.ledgers;
    const chunk = Math.max(100, Math.floor(opts.ledgers / 12));
    const chunkRates: number[] = [];
    let written = 0;
    let ingestMs = 0;
    let ingestCpuUs = 0;
    let chunkEvents = 0;
    let chunkMs = 0;
    const counter = { events: 0 };
    const last = FIRST_LEDGER + opts.ledgers - 1;
    for (let seq = FIRST_LEDGER; seq <= last; seq++) {
      const target = Math.max(4, Math.round(perLedger * (0.6 + 0.8 * w.random())));
      const g = generateLedger(w, seq, target, counter);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      store.ingest(g.batch, opts.ledgers);
      const c1 = process.cpuUsage(c0);
      const dt = performance.now() - t0;
      ingestCpuUs += c1.user + c1.system;
      ingestMs += dt;
      chunkMs += dt;
      written += g.events;
      chunkEvents += g.events;
      if ((seq - FIRST_LEDGER + 1) % chunk === 0) {
        chunkRates.push(chunkEvents / (chunkMs / 1000));
        log(`  ${fmt((seq - FIRST_LEDGER + 1) / opts.ledgers * 100, 0)}%: ${written.toLocaleString('en-US')} events, last chunk ${fmt(chunkRates[chunkRates.length - 1])} events/s`);
        chunkEvents = 0;
        chunkMs = 0;
      }
    }
    const buildSec = (performance.now() - started) / 1000;
    // steady state: more ledgers with the retention window full, so every ingest also trims a ledger
    const steadyLedgers = Math.min(2000, Math.max(50, Math.floor(opts.ledgers / 60)));
    let steadyEvents = 0;
    let steadyMs = 0;
    for (let seq = last + 1; seq <= last + steadyLedgers; seq++) {
      const g = generateLedger(w, seq, Math.max(4, Math.round(perLedger * (0.6 + 0.8 * w.random()))), counter);
      const t0 = performance.now();
      store.ingest(g.batch, opts.ledgers);
      steadyMs += performance.now() - t0;
      steadyEvents += g.events;
    }
    // the event writer alone: batches without transactions, on a fresh store
    // 500,000 events: enough for a steady rate (the chunks above vary by about 10%), in a quarter of the time 2 M took
    const onlyEvents = Math.min(500_000, opts.events);
    const only = eventsOnlyRate(w, onlyEvents, Math.max(1, Math.round(onlyEvents / perLedger)), perLedger);
    log(`  events-only batches: ${fmt(only.wall)} events/s (${fmt(only.cpu)} per CPU second)`);
    const range = store.ledgerRange()!;
    const oldest = range.oldest.sequence;
    const latest = range.latest.sequence;
    const raw = new DatabaseSync(path);
    raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const stored = Number((raw.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n);
    const sizeOf = (names: string[]) => Number((raw.prepare(`SELECT sum(pgsize) AS s FROM dbstat WHERE name IN (${names.map(() => '?').join(',')})`).get(...names) as { s: number }).s);
    const eventsBytes = sizeOf(['events']);
    const termsBytes = sizeOf(['event_terms']);
    const termRows = Number((raw.prepare('SELECT count(*) AS n FROM event_terms').get() as { n: number }).n);
    raw.close();
    const fileBytes = statSync(path).size;
    log(`  built ${written.toLocaleString('en-US')} events over ${opts.ledgers} ledgers in ${fmt(buildSec, 0)} s; ${stored.toLocaleString('en-US')} stored after the steady-state ledgers`);

    // --- queries
    const b64 = (b: Buffer) => b.toString('base64');
    const midAsset = 12; // a mid-popularity asset contract
    const contractFilter = [{ contractIds: [StrKey.encodeContract(w.assetContracts[midAsset])] }];
    const contractQuery = [{ contractId: StrKey.encodeContract(w.assetContracts[midAsset]) }];
    const rareContract = StrKey.encodeContract(w.contracts[CONTRACTS - 7]);
    // queryEvents' filters: topic positions in place of topic lists; it has no topic-count matching,
    // so (b) and (c2) also match the 3-topic transfers of non-SAC tokens, and (e) cannot be asked
    const window = (s: number) => ({ minLedger: s, maxLedger: s + 9_999, limit: 100 });
    const kinds: Kind[] = [
      { key: 'a', label: '(a) one contract id (a mid-popularity asset SAC)', params: (s) => ({ startLedger: s, filters: contractFilter, pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: contractQuery }) },
      { key: 'a2', label: '(a) one contract id (a rarely used contract)', params: (s) => ({ startLedger: s, filters: [{ contractIds: [rareContract] }], pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: [{ contractId: rareContract }] }) },
      { key: 'b', label: '(b) topic 1 = `transfer`', params: (s) => ({ startLedger: s, filters: [{ type: 'contract', topics: [[b64(w.sym.transfer), '*', '*', '*']] }], pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: [{ type: 'contract', topic0: b64(w.sym.transfer) }] }) },
      { key: 'c', label: `(c) rare topic 1 (\`${RARE_SYMBOL}\`, ~30 per week)`, params: (s) => ({ startLedger: s, filters: [{ topics: [[b64(w.rare), '**']] }], pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: [{ topic0: b64(w.rare) }] }) },
      { key: 'c2', label: '(c) rare account at topic 2 (transfers from it)', params: (s) => ({ startLedger: s, filters: [{ topics: [[b64(w.sym.transfer), b64(w.account(RARE_ACCOUNT_INDEX)), '*', '*']] }], pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: [{ topic0: b64(w.sym.transfer), topic1: b64(w.account(RARE_ACCOUNT_INDEX)) }] }) },
      { key: 'e', label: '(e) 3-topic `transfer`s (non-SAC tokens: two frequent terms, rarely together)', params: (s) => ({ startLedger: s, filters: [{ topics: [[b64(w.sym.transfer), '*', '*']] }], pagination: { limit: 100 } }), query: undefined },
      { key: 'f', label: '(f) the busiest contract with topic 1 = `transfer` (never together)', params: (s) => ({ startLedger: s, filters: [{ contractIds: [StrKey.encodeContract(w.contracts[0])], topics: [[b64(w.sym.transfer), '**']] }], pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: [{ contractId: StrKey.encodeContract(w.contracts[0]), topic0: b64(w.sym.transfer) }] }) },
      { key: 'g', label: '(g) stellar-rpc#468\'s shape: type contract, topic 1 = `mint`', params: (s) => ({ startLedger: s, filters: [{ type: 'contract', topics: [[b64(w.sym.mint), '*', '*']] }], pagination: { limit: 100 } }), query: (s) => ({ ...window(s), filters: [{ type: 'contract', topic0: b64(w.sym.mint) }] }) },
      { key: 'all', label: 'no filter', params: (s) => ({ startLedger: s, pagination: { limit: 100 } }), query: (s) => window(s) },
    ];
    const pick = prng(7);
    const startOf = () => oldest + Math.floor(pick() * (latest - oldest + 1));
    const starts = (n: number) => Array.from({ length: n }, startOf);
    const perKind = new Map<string, QueryStats[]>();
    const perKindQuery = new Map<string, QueryStats[]>();
    for (let run = 0; run < opts.runs; run++) {
      for (const k of kinds) {
        await timeKind(ctx, k, starts(Math.min(20, opts.queries))); // warm-up
        const { get: s, query: q } = await timeKind(ctx, k, starts(opts.queries));
        perKind.set(k.key, [...(perKind.get(k.key) ?? []), s]);
        if (q) perKindQuery.set(k.key, [...(perKindQuery.get(k.key) ?? []), q]);
        log(`  run ${run + 1}/${opts.runs} ${k.label}: getEvents p50 ${fmt(s.p50, 2)} ms, p99 ${fmt(s.p99, 2)} ms, max ${fmt(s.max, 1)} ms, ${fmt(s.results, 1)} events/response`
          + (q ? `; queryEvents p50 ${fmt(q.p50, 2)} ms, p99 ${fmt(q.p99, 2)} ms, ${fmt(q.results, 1)} events/response` : ''));
      }
    }
    // (d) page the mid-popularity contract from the oldest ledger to the latest, with each method
    const pageRuns: Array<Awaited<ReturnType<typeof pageThrough>>> = [];
    const queryPageRuns: Array<Awaited<ReturnType<typeof pageThrough>>> = [];
    const pageGet = () => pageThrough(getEvents, ctx, { startLedger: oldest, filters: contractFilter, pagination: { limit: 100 } },
      (cursor) => ({ filters: contractFilter, pagination: { cursor, limit: 100 } }),
      (res) => res.events.length < 100 && Number(BigInt(res.cursor.split('-')[0]) >> 32n) >= latest);
    const pageQuery = () => pageThrough(queryEvents, ctx, { minLedger: oldest, filters: contractQuery, limit: 100 },
      (cursor) => ({ cursor, limit: 100 }), (res) => res.scanStatus !== 'HAS_MORE');
    for (let run = 0; run < opts.runs; run++) {
      let g: Awaited<ReturnType<typeof pageThrough>>;
      let q: Awaited<ReturnType<typeof pageThrough>>;
      if (run % 2 === 0) { g = await pageGet(); q = await pageQuery(); } else { q = await pageQuery(); g = await pageGet(); }
      pageRuns.push(g);
      queryPageRuns.push(q);
      log(`  run ${run + 1}/${opts.runs} (d) paging: getEvents ${g.pages} pages, ${g.events} events in ${fmt(g.seconds, 2)} s, p50 ${fmt(g.p50, 2)} ms, p99 ${fmt(g.p99, 2)} ms; `
        + `queryEvents ${q.pages} pages, ${q.events} events in ${fmt(q.seconds, 2)} s, p50 ${fmt(q.p50, 2)} ms, p99 ${fmt(q.p99, 2)} ms`);
    }

    // --- report
    const ingestRate = median(chunkRates);
    const cpuRate = written / (ingestCpuUs / 1e6);
    const overallRate = written / (ingestMs / 1000);
    const steadyRate = steadyEvents / (steadyMs / 1000);
    const med = (key: string, f: 'p50' | 'p99') => median(perKind.get(key)!.map((s) => s[f]));
    const medQuery = (key: string, f: 'p50' | 'p99') => median(perKindQuery.get(key)!.map((s) => s[f]));
    /** queryEvents over getEvents, the median of the per-run ratios. */
    const ratio = (key: string, f: 'p50' | 'p99') => median(perKindQuery.get(key)!.map((q, run) => q[f] / perKind.get(key)![run][f]));
    const perMillion = (bytes: number) => `${fmt(bytes / (stored / 1e6) / 2 ** 20, 1)} MiB`;
    const rows: string[][] = [];
    let ok = true;
    const verdict = (pass: boolean) => { ok &&= pass; return pass ? 'PASS' : 'FAIL'; };
    rows.push(['Ingest through SqliteStore.ingest (events + their transactions), median of 12 chunks', `${fmt(ingestRate)} events/s`, `>= ${TARGETS.ingestPerSec.toLocaleString('en-US')} events/s`, verdict(ingestRate >= TARGETS.ingestPerSec)]);
    rows.push(['Ingest with the retention window full (each ledger also trims one)', `${fmt(steadyRate)} events/s`, `>= ${TARGETS.ingestPerSec.toLocaleString('en-US')} events/s`, verdict(steadyRate >= TARGETS.ingestPerSec)]);
    rows.push(['Ingest per CPU second (the same writes; independent of other load on the machine)', `${fmt(cpuRate)} events/s`, '—', 'n/a']);
    rows.push([`Event writer alone (batches without transactions, ${fmt(onlyEvents / 1e6, 1)} M events, fresh store)`, `${fmt(only.wall)} events/s (${fmt(only.cpu)} per CPU second)`, '—', 'n/a']);
    for (const k of kinds) {
      const target = ['a', 'a2', 'b', 'c', 'c2'].includes(k.key);
      const p99 = med(k.key, 'p99');
      rows.push([`${k.label}, limit 100, p50 / p99`, `${fmt(med(k.key, 'p50'), 2)} / ${fmt(p99, 2)} ms`, target ? `p99 < ${TARGETS.p99Ms} ms` : '—', target ? verdict(p99 < TARGETS.p99Ms) : 'n/a']);
    }
    const paging = (runs: typeof pageRuns) => `${fmt(median(runs.map((r) => r.p50)), 2)} / ${fmt(median(runs.map((r) => r.p99)), 2)} ms (${runs[0].pages} pages, ${fmt(median(runs.map((r) => r.seconds)), 1)} s)`;
    rows.push([`(d) paging (a)'s filter with cursors, oldest to latest, per page p50 / p99`, paging(pageRuns), '—', 'n/a']);
    for (const k of kinds) {
      if (!k.query) continue;
      const target = ['a', 'a2', 'b', 'c', 'c2'].includes(k.key);
      const p99 = medQuery(k.key, 'p99');
      rows.push([`queryEvents ${k.label}, limit 100, p50 / p99 (ratio to getEvents)`, `${fmt(medQuery(k.key, 'p50'), 2)} / ${fmt(p99, 2)} ms (${fmt(ratio(k.key, 'p50'), 2)}x / ${fmt(ratio(k.key, 'p99'), 2)}x)`,
        target ? `p99 < ${TARGETS.p99Ms} ms` : '—', target ? verdict(p99 < TARGETS.p99Ms) : 'n/a']);
    }
    const pagingRatio = median(queryPageRuns.map((q, run) => q.seconds / pageRuns[run].seconds));
    rows.push([`queryEvents (d) paging (a)'s filter with cursors, oldest to latest, per page p50 / p99 (ratio of the whole walk to getEvents')`, `${paging(queryPageRuns)} (${fmt(pagingRatio, 2)}x)`, '—', 'n/a']);
    rows.push(['Database size per million events (whole file / events + event_terms)', `${perMillion(fileBytes)} / ${perMillion(eventsBytes + termsBytes)}`, '—', 'n/a']);
    const m = describeMachine();
    const lines = [
      MARK_START,
      '## getEvents and queryEvents benchmark',
      '',
      'Written by `bench/events.ts` (run by `npm run bench`, or alone with `node bench/events.ts`); do not edit by hand.',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, ${m.platform}; Node ${m.node}`,
      `- Data: ${written.toLocaleString('en-US')} synthetic events over ${opts.ledgers.toLocaleString('en-US')} ledgers (${fmt(perLedger, 0)} per ledger on average), then ${steadyLedgers} more ledgers with trimming; built in ${fmt(buildSec, 0)} s; whole bench ${fmt((performance.now() - started) / 1000, 0)} s`,
      `- Load average before: ${loadBefore.map((x) => x.toFixed(2)).join(' / ')}, after: ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`,
      '',
      '| Metric | Median | Target | Result |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${r.join(' | ')} |`),
      '',
      '### How it was measured',
      '',
      '- Events are written ledger by ledger through `SqliteStore.ingest` (one SQLite transaction per ledger, WAL, synchronous=NORMAL), as ingestion writes every closed ledger. Event shapes follow the pubnet fixture ledgers (protocol 26): fee events of every transaction (BEFORE_ALL_TXS, native SAC, `["fee", G…]`), SAC transfers `["transfer", from, to, "CODE:ISSUER"]` from 300 assets, refunds (AFTER_ALL_TXS), mint/burn/set_authorized, and Soroban contract events with pubnet-like symbols from 2,000 contracts; accounts from a skewed distribution over 1,000,000 keys. Generating the events is not timed.',
      `- The ingest rate is the median over ${chunkRates.length} chunks of ${chunk.toLocaleString('en-US')} ledgers (all chunks, events/s: ${chunkRates.map((x) => fmt(x)).join(', ')}); overall ${fmt(overallRate)} events/s.`,
      `- Latencies: ${opts.queries} getEvents requests per kind and run, each from a random start ledger in the stored week (a 10,000-ledger scan window each), timed around the method handler and JSON.stringify of its result (no HTTP); ${opts.runs} run(s), medians of the per-run p50 and p99.`,
      `- Paging: cursors from the oldest ledger until the cursor reaches the latest, limit 100; pages that reach the end of a scan window without filling count too. Per run: ${pageRuns.map((r) => `${r.pages} pages, ${r.events} events, ${fmt(r.seconds, 2)} s`).join('; ')}.`,
      `- queryEvents: the same kinds with its filters (topic positions for topic lists; \`minLedger\` = the start ledger, \`maxLedger\` 9,999 ledgers on, the same 10,000-ledger window), on the same start ledgers, interleaved with getEvents request by request (which goes first alternates); ratios are medians of the per-run ratios. It has no topic-count matching: (b) and (c) rare account also match 3-topic transfers, and (e) cannot be asked. Paging walks with its cursors until \`scanStatus\` is no longer HAS_MORE, the two methods' walks alternating in order per run: ${queryPageRuns.map((r) => `${r.pages} pages, ${r.events} events, ${fmt(r.seconds, 2)} s`).join('; ')}.`,
      `- Storage: ${stored.toLocaleString('en-US')} events stored, events table ${fmt(eventsBytes / 2 ** 20, 0)} MiB, event_terms ${fmt(termsBytes / 2 ** 20, 0)} MiB (${termRows.toLocaleString('en-US')} rows), whole database file ${fmt(fileBytes / 2 ** 20, 0)} MiB (incl. the synthetic transactions and ledgers).`,
      '',
      '| Query | p50 per run (ms) | p99 per run (ms) | events per response |',
      '|---|---|---|---|',
      ...kinds.map((k) => `| ${k.label} | ${perKind.get(k.key)!.map((s) => fmt(s.p50, 2)).join(', ')} | ${perKind.get(k.key)!.map((s) => fmt(s.p99, 2)).join(', ')} | ${fmt(perKind.get(k.key)![0].results, 1)} |`),
      ...kinds.filter((k) => k.query).map((k) => `| queryEvents ${k.label} | ${perKindQuery.get(k.key)!.map((s) => fmt(s.p50, 2)).join(', ')} | ${perKindQuery.get(k.key)!.map((s) => fmt(s.p99, 2)).join(', ')} | ${fmt(perKindQuery.get(k.key)![0].results, 1)} |`),
      MARK_END,
      '',
    ];
    return { markdown: lines.join('\n'), summary: rows.map((r) => `${r[0]}: ${r[1]} (${r[3]})`), ok };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ingest rate of batches carrying events only (no transactions): the event writer's own cost. */
function eventsOnlyRate(w: World, events: number, ledgers: number, perLedger: number): { wall: number; cpu: number } {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-events-only-'));
  const store = new SqliteStore(join(dir, 'events.sqlite'));
  try {
    const counter = { events: 0 };
    let n = 0;
    let ms = 0;
    let cpuUs = 0;
    for (let seq = FIRST_LEDGER; seq < FIRST_LEDGER + ledgers; seq++) {
      const g = generateLedger(w, seq, Math.max(4, Math.round(perLedger * (0.6 + 0.8 * w.random()))), counter);
      g.batch.transactions = [];
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      store.ingest(g.batch, 120_960);
      const c1 = process.cpuUsage(c0);
      ms += performance.now() - t0;
      cpuUs += c1.user + c1.system;
      n += g.events;
    }
    return { wall: n / (ms / 1000), cpu: n / (cpuUs / 1e6) };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `main` followed by the events section: the fresh one, else the one `previous` had (if any). */
export function withEventsSection(main: string, fresh: string | undefined, previous: string): string {
  const old = previous.includes(MARK_START) && previous.includes(MARK_END)
    ? previous.slice(previous.indexOf(MARK_START), previous.indexOf(MARK_END) + MARK_END.length) + '\n' : undefined;
  const section = fresh ?? old;
  return section ? `${main.trimEnd()}\n\n${section}` : main;
}

/** Replaces (or appends) the events section of a BENCHMARKS.md, leaving the rest as it is. */
export function replaceEventsSection(file: string, section: string): string {
  if (file.includes(MARK_START) && file.includes(MARK_END)) {
    return file.slice(0, file.indexOf(MARK_START)) + section.trimEnd() + file.slice(file.indexOf(MARK_END) + MARK_END.length);
  }
  return `${file.trimEnd()}\n\n${section}`;
}

// Run alone: node bench/events.ts [--events N] [--ledgers L] [--runs R] [--queries Q] [--quick]
if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string): number | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1].replace(/_/g, '')) : undefined;
  };
  const quick = process.argv.includes('--quick');
  const base = quick ? QUICK_EVENTS_OPTIONS : DEFAULT_EVENTS_OPTIONS;
  const opts: EventsBenchOptions = {
    events: arg('events') ?? base.events, ledgers: arg('ledgers') ?? base.ledgers,
    runs: arg('runs') ?? base.runs, queries: arg('queries') ?? base.queries,
    log: (msg) => process.stdout.write(`[events] ${msg}\n`),
  };
  const res = await runEventsBench(opts);
  process.stdout.write(`\n${res.summary.join('\n')}\n`);
  if (!quick) {
    const out = new URL('../BENCHMARKS.md', import.meta.url);
    writeFileSync(out, replaceEventsSection(existsSync(out) ? readFileSync(out, 'utf8') : '', res.markdown));
    process.stdout.write(`wrote the events section of ${out.pathname}\n`);
  }
}

