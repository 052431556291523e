// Streaming subscriptions (issue 15): how long an event takes from the node's commit to a
// subscribed WebSocket client, with 1,000 subscribers on distinct contract ids, then with 10,000
// idle connections open as well; the memory an idle connection costs the node; and, as the
// baseline for the same events, a client polling getEvents at one request per ledger. Then fan-out
// (issue 31): 1,000 unfiltered subscribers, each sent every event of every ledger, against one
// unfiltered subscriber alone on the same ledgers, with a getLatestLedger probe beside both.
//
// Processes: the node (standalone network, instant closes) runs alone; the subscribers run in a
// child process (bench/wsClients.ts), the idle connections in two more (each process may hold at
// most 20,000 descriptors), the poller in another (bench/eventsPoller.ts). This process only sends
// one transaction per ledger and reads the node's log.
//
// Events: bench/assetMints.ts (one ledger = one event from each of 100 Stellar Asset Contracts).
// 100 of the 1,000 subscribers watch those contracts; 900 watch random contract ids that never
// emit, so matching has 1,000 live filters to choose from. The baseline for the cost of matching
// and fanning out is one subscriber alone on the same events, measured in the same run.
//
// Commit time: the node's `closed ledger` log line (bench/commitLog.ts); receipt: Date.now() in the
// client at the frame; same machine, same clock, 1 ms resolution on both sides.
//
// A driven ledger is sent every `periodMs`; the ledger closes as soon as its transaction arrives
// (instant mode). The ledger cadence enters none of the subscription figures (they start at the
// commit), and the bench checks that the slowest delivery came before the next ledger, i.e. that
// no delivery queued behind a later ledger's work. The polling figure does depend on the cadence:
// a poller that asks once per ledger has the event on average half a ledger after its commit.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { StrKey } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from '../test/integration/support/nodeProcess.ts';
import { setUpAssetMints } from './assetMints.ts';
import { CommitLog } from './commitLog.ts';
import { IpcChild, type Message } from './ipcChild.ts';
import { cpuSeconds, INSPECT_ARG, inspectorUrl, settledMemory, type Memory } from './nodeMemory.ts';
import type { Row } from './report.ts';
import { RpcClient } from './rpcClient.ts';
import { send, type SignedTx } from './stellar.ts';
import { fmt, median, percentile, sleep } from './stats.ts';

export interface StreamingBenchOptions {
  rounds: number;
  /** Driven ledgers per phase. */
  ledgers: number;
  periodMs: number;
  subscribers: number;
  /** Contracts that emit (one event each per driven ledger); as many of the subscribers watch them. */
  emitting: number;
  idle: number;
  idleProcesses: number;
  /** Unfiltered subscribers of the fan-out phase, the ledgers it drives, and their cadence. */
  fanOutSubscribers: number;
  fanOutLedgers: number;
  fanOutPeriodMs: number;
}

export const DEFAULT_STREAMING_OPTIONS: StreamingBenchOptions = {
  // 100 ledgers a phase (10,000 deliveries to the 1,000 subscribers: their p99 is the 100th
  // slowest) and 3 fan-out ledgers (300,000 deliveries each), in each of 3 rounds
  rounds: 3, ledgers: 100, periodMs: 100, subscribers: 1000, emitting: 100, idle: 10_000, idleProcesses: 2,
  fanOutSubscribers: 1000, fanOutLedgers: 3, fanOutPeriodMs: 2000,
};
export const QUICK_STREAMING_OPTIONS: StreamingBenchOptions = {
  rounds: 1, ledgers: 15, periodMs: 250, subscribers: 1000, emitting: 100, idle: 2000, idleProcesses: 2,
  fanOutSubscribers: 1000, fanOutLedgers: 2, fanOutPeriodMs: 2000,
};

/** How often the fan-out phases' probe asks getLatestLedger. */
const PROBE_EVERY_MS = 20;

const TARGETS = { p99Ms: 50, idleKiB: 20 };
const WS_CLIENTS = new URL('./wsClients.ts', import.meta.url);
const POLLER = new URL('./eventsPoller.ts', import.meta.url);

interface Latencies { count: number; p50: number; p99: number; max: number }

interface Phase extends Latencies {
  name: string;
  /** Deliveries expected (driven ledgers x subscribers on emitting contracts) and not received. */
  missing: number;
  unexpected: number;
  outOfOrder: number;
  closed: number;
  /** The node's CPU use over the phase (100% = one core), and the subscriber process's event-loop utilization. */
  nodeCpuPct: number;
  clientElu: number;
  /** The machine's 1-minute load average at the phase's end: work of other processes shows here. */
  load: number;
  /** The subscription also watched by the lone subscriber of phase A, within this phase. */
  first?: Latencies;
  /**
   * Medians over the ledgers of each ledger's first and last delivery: the first is what reading,
   * matching and rendering a ledger cost before any send; last minus first, the fan-out.
   */
  ledgerFirst: number;
  ledgerLast: number;
  /** getLatestLedger answer times during the phase (fan-out phases only). */
  probe?: Latencies;
}

interface Poll extends Latencies { requests: number; events: number; empty: number; errors: number; firstError?: string }

interface IdleMemory { opened: number; failed: number; openSec: number; before: Memory; after: Memory; closedDuring?: number }

interface Round { alone: Phase; poll: Poll; many: Phase; idle: Phase; memory: IdleMemory; fanAlone: Phase; fanOut: Phase }

/** What a phase drives and what its subscribers should receive. */
interface PhasePlan {
  ledgers: number;
  periodMs: number;
  /** Subscribers that receive what each ledger sends them. */
  receiving: number;
  /** Notifications a receiving subscriber gets from the driven `ledgers` (one per ledger: a filtered one). */
  perSubscriber?: (ledgers: number[]) => Promise<number>;
  /** Times getLatestLedger while the ledgers are driven. */
  probe?: boolean;
}

function latencies(ms: number[]): Latencies {
  return { count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms.length ? ms.reduce((a, b) => Math.max(a, b)) : NaN };
}

const randomContractId = () => StrKey.encodeContract(randomBytes(32));

function shuffled<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

class StreamingBench {
  private readonly node: NodeProcess;
  private readonly commits: CommitLog;
  private readonly rpc: RpcClient;
  private readonly wsUrl: string;
  private readonly o: StreamingBenchOptions;
  private readonly log: (m: string) => void;
  private contractIds: string[] = [];
  private txs: SignedTx[] = [];
  private nextTx = 0;

  constructor(node: NodeProcess, o: StreamingBenchOptions, log: (m: string) => void) {
    this.node = node;
    this.commits = new CommitLog(node.child.stdout!);
    this.rpc = new RpcClient(node.url, 4);
    this.wsUrl = node.url.replace(/^http/, 'ws') + '/';
    this.o = o;
    this.log = log;
  }

  async setUp(): Promise<void> {
    const t0 = performance.now();
    const mints = await setUpAssetMints(this.node.url, this.o.emitting, this.o.rounds * (3 * this.o.ledgers + 2 * this.o.fanOutLedgers));
    this.contractIds = mints.contractIds;
    this.txs = mints.txs;
    this.log(`  ${this.o.emitting} assets, ${this.txs.length} transactions of ${this.o.emitting} payments signed in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }

  close(): void { this.rpc.close(); }

  /** Sends one transaction every periodMs, each closed into its own ledger; returns those ledgers. */
  private async drive(count: number, periodMs: number): Promise<number[]> {
    const ledgers: number[] = [];
    const t0 = performance.now();
    for (let k = 0; k < count; k++) {
      const due = t0 + k * periodMs;
      await sleep(Math.max(0, due - performance.now()));
      const tx = this.txs[this.nextTx++];
      if (!tx) throw new Error('out of pre-signed transactions');
      const sent = await send(this.rpc, tx);
      if (sent.status !== 'PENDING') throw new Error(`sendTransaction answered ${JSON.stringify(sent)}`);
      // asked late in the period: the ledger's deliveries are long done, the check disturbs nothing
      await sleep(Math.max(0, due + periodMs * 0.8 - performance.now()));
      for (const deadline = Date.now() + 10_000; ;) {
        const r = await this.rpc.call<{ status: string; ledger?: number }>('getTransaction', { hash: tx.hash });
        if (r.status === 'SUCCESS') { ledgers.push(r.ledger!); break; }
        if (r.status === 'FAILED' || Date.now() > deadline) throw new Error(`transaction ${tx.hash}: ${r.status}`);
        await sleep(10);
      }
    }
    return ledgers;
  }

  /** Events of every kind in `ledgers` (what an unfiltered subscriber is sent), counted by getEvents. */
  private async eventsIn(ledgers: number[]): Promise<number> {
    let n = 0;
    for (const ledger of ledgers) {
      const page = await this.rpc.call<{ events: unknown[] }>('getEvents', { startLedger: ledger, endLedger: ledger + 1, pagination: { limit: 10_000 } });
      n += page.events.length;
    }
    return n;
  }

  /** getLatestLedger, one call every PROBE_EVERY_MS on a connection of its own, until `stop` resolves. */
  private async probe(stop: Promise<void>): Promise<number[]> {
    const client = new RpcClient(this.node.url, 1);
    const ms: number[] = [];
    let stopped = false;
    void stop.then(() => { stopped = true; });
    try {
      while (!stopped) {
        const t = performance.now();
        await client.call('getLatestLedger');
        ms.push(performance.now() - t);
        await sleep(Math.max(0, t + PROBE_EVERY_MS - performance.now()));
      }
    } finally {
      client.close();
    }
    return ms;
  }

  /**
   * Drives the ledgers of one phase while `subscribers` (already subscribed) record, and `poller`
   * (if given) polls; then takes the latencies of what arrived. `plan.receiving` says how many
   * connections receive; `firstConnection` is the one watching contractIds[0] (or the first).
   */
  private async phase(name: string, subscribers: IpcChild, plan: PhasePlan, firstConnection: number, poller?: IpcChild): Promise<{ phase: Phase; poll?: Poll }> {
    await subscribers.ask({ type: 'record' }, 'recording');
    const latest = (await this.rpc.call<{ sequence: number }>('getLatestLedger')).sequence;
    // One request per ledger, on a period one ledger in `ledgers` longer than the cadence: the poll's
    // offset from the commit drifts through a whole period over the phase, so every offset is
    // sampled evenly (on the exact cadence it would stay wherever the poller happened to start).
    const intervalMs = plan.periodMs * (1 + 1 / plan.ledgers);
    if (poller) await poller.ask({ type: 'start', url: this.node.url, contractId: this.contractIds[0], startLedger: latest, intervalMs }, 'started');
    const cpu0 = cpuSeconds(this.node.child.pid!);
    const t0 = performance.now();
    let endProbe!: () => void;
    const probing = plan.probe ? this.probe(new Promise<void>((resolve) => { endProbe = resolve; })) : undefined;
    const ledgers = await this.drive(plan.ledgers, plan.periodMs);
    const cpu = (cpuSeconds(this.node.child.pid!) - cpu0) / ((performance.now() - t0) / 1000);
    // the last ledger's deliveries, and a poll after it: drive() returned at least 0.8 periods after
    // sending it, and a fan-out ledger's last delivery comes well within one period
    await sleep(Math.max(500, plan.periodMs));
    endProbe?.();
    const probed = probing ? await probing : undefined;
    const got = await subscribers.ask<Message & { samples: [number, number, number][]; outOfOrder: number; closed: number; firstClose?: string; elu: number }>({ type: 'collect' }, 'collected');
    const polled = poller ? await poller.ask<Message & { samples: [number, number][]; requests: number; empty: number; errors: number; firstError?: string }>({ type: 'stop' }, 'stopped') : undefined;
    await this.commits.waitFor(ledgers);
    const driven = new Set(ledgers);
    const all: number[] = [];
    const first: number[] = [];
    const byLedger = new Map<number, { first: number; last: number }>();
    let unexpected = 0;
    for (const [ledger, at, connection] of got.samples) {
      if (!driven.has(ledger)) { unexpected++; continue; }
      const ms = at - this.commits.at(ledger)!;
      all.push(ms);
      if (connection === firstConnection) first.push(ms);
      const span = byLedger.get(ledger);
      if (!span) byLedger.set(ledger, { first: ms, last: ms });
      else { span.first = Math.min(span.first, ms); span.last = Math.max(span.last, ms); }
    }
    if (got.closed) this.log(`  ${got.closed} subscriber connections closed by the node (first: ${got.firstClose})`);
    const phase: Phase = {
      name, ...latencies(all), missing: plan.receiving * (plan.perSubscriber ? await plan.perSubscriber(ledgers) : ledgers.length) - all.length,
      unexpected, outOfOrder: got.outOfOrder, probe: probed ? latencies(probed) : undefined,
      closed: got.closed, nodeCpuPct: cpu * 100, clientElu: got.elu, load: loadavg()[0], first: latencies(first),
      ledgerFirst: median([...byLedger.values()].map((x) => x.first)), ledgerLast: median([...byLedger.values()].map((x) => x.last)),
    };
    this.log(`  ${name}: ${all.length} deliveries over ${ledgers.length} ledgers, p50 ${fmt(phase.p50, 1)} ms, p99 ${fmt(phase.p99, 1)} ms, max ${fmt(phase.max, 0)} ms; a ledger's first / last delivery ${fmt(phase.ledgerFirst, 0)} / ${fmt(phase.ledgerLast, 0)} ms (median); missing ${phase.missing}; node CPU ${fmt(phase.nodeCpuPct, 0)}%, client event loop ${fmt(phase.clientElu * 100, 1)}% busy${phase.probe ? `; getLatestLedger probe p50 ${fmt(phase.probe.p50, 1)} ms, p99 ${fmt(phase.probe.p99, 1)} ms (${phase.probe.count} calls)` : ''}`);
    if (!polled) return { phase };
    const have = polled.samples.filter(([ledger]) => driven.has(ledger)).map(([ledger, at]) => at - this.commits.at(ledger)!);
    const poll: Poll = { ...latencies(have), requests: polled.requests, events: have.length, empty: polled.empty, errors: polled.errors, firstError: polled.firstError };
    this.log(`  getEvents poller: ${poll.events} events in ${poll.requests} requests (${poll.empty} empty, ${poll.errors} errors${poll.firstError ? `: ${poll.firstError}` : ''}), p50 ${fmt(poll.p50, 1)} ms, p99 ${fmt(poll.p99, 1)} ms`);
    return { phase, poll };
  }

  /** A client process of subscribers: one per contract id, or `unfiltered` ones. */
  private async subscribers(contractIds: string[], name: string): Promise<IpcChild>;
  private async subscribers(unfiltered: number, name: string): Promise<IpcChild>;
  private async subscribers(which: string[] | number, name: string): Promise<IpcChild> {
    const child = new IpcChild(WS_CLIENTS, name);
    const ask = typeof which === 'number' ? { count: which, unfiltered: true } : { count: which.length, contractIds: which };
    const r = await child.ask<Message & { open: number; failed: number; firstFailure?: string; ms: number }>({ type: 'open', url: this.wsUrl, ...ask }, 'opened');
    if (r.failed) { await child.stop(); throw new Error(`${r.failed} of ${ask.count} subscriptions failed: ${r.firstFailure}`); }
    return child;
  }

  /**
   * D: fan-out. One unfiltered subscriber alone (the baseline), then `fanOutSubscribers` of them,
   * on the same kind of ledgers at a cadence slow enough for each ledger's fan-out to end before the
   * next; the probe runs through both.
   */
  private async fanOut(): Promise<{ fanAlone: Phase; fanOut: Phase }> {
    const plan = (receiving: number): PhasePlan => ({
      ledgers: this.o.fanOutLedgers, periodMs: this.o.fanOutPeriodMs, receiving, probe: true,
      perSubscriber: (ledgers) => this.eventsIn(ledgers),
    });
    const run = async (count: number, name: string): Promise<Phase> => {
      const child = await this.subscribers(count, name);
      try {
        return (await this.phase(name, child, plan(count), 0)).phase;
      } finally {
        await child.ask({ type: 'close' }, 'closed').catch(() => undefined);
        await child.stop();
      }
    };
    const fanAlone = await run(1, '1 unfiltered subscriber');
    const fanOut = await run(this.o.fanOutSubscribers, `${this.o.fanOutSubscribers} unfiltered subscribers`);
    return { fanAlone, fanOut };
  }

  private async memory(): Promise<Memory> {
    return settledMemory(inspectorUrl(this.node.output()), this.node.child.pid!);
  }

  async round(): Promise<Round> {
    // A: one subscriber alone (the baseline), with the getEvents poller on the same contract
    const alone = await this.subscribers([this.contractIds[0]], 'subscriber');
    const poller = new IpcChild(POLLER, 'poller');
    let a: { phase: Phase; poll?: Poll };
    try {
      a = await this.phase('1 subscriber', alone, this.filteredPlan(1), 0, poller);
    } finally {
      await poller.stop();
      await alone.ask({ type: 'close' }, 'closed');
      await alone.stop();
    }

    // B: 1,000 subscribers on distinct contract ids, `emitting` of them receiving
    const silent = Array.from({ length: this.o.subscribers - this.o.emitting }, randomContractId);
    const ids = shuffled([...this.contractIds, ...silent]);
    const many = await this.subscribers(ids, 'subscribers');
    const idleChildren: IpcChild[] = [];
    let filtered: Omit<Round, 'fanAlone' | 'fanOut'>;
    try {
      const b = await this.phase(`${this.o.subscribers} subscribers`, many, this.filteredPlan(this.o.emitting), ids.indexOf(this.contractIds[0]));

      // C: the same with idle connections open; the node's memory before and after opening them
      const before = await this.memory();
      const t0 = performance.now();
      const per = Math.ceil(this.o.idle / this.o.idleProcesses);
      for (let i = 0; i < this.o.idleProcesses; i++) idleChildren.push(new IpcChild(WS_CLIENTS, `idle clients ${i + 1}`));
      const opened = await Promise.all(idleChildren.map((c, i) => c.ask<Message & { open: number; failed: number; firstFailure?: string }>(
        { type: 'open', url: this.wsUrl, count: Math.min(per, this.o.idle - i * per) }, 'opened', 300_000)));
      const openSec = (performance.now() - t0) / 1000;
      const open = opened.reduce((n, r) => n + r.open, 0);
      const failed = opened.reduce((n, r) => n + r.failed, 0);
      if (failed) this.log(`  ${failed} idle connections failed to open: ${opened.find((r) => r.firstFailure)?.firstFailure}`);
      const after = await this.memory();
      const memory: IdleMemory = { opened: open, failed, openSec, before, after };
      this.log(`  ${open} idle connections opened in ${fmt(openSec, 1)} s: RSS ${fmt(before.rssBytes / 2 ** 20, 0)} -> ${fmt(after.rssBytes / 2 ** 20, 0)} MiB (${fmt((after.rssBytes - before.rssBytes) / open / 1024, 1)} KiB each), heap ${fmt(before.heapUsedBytes / 2 ** 20, 0)} -> ${fmt(after.heapUsedBytes / 2 ** 20, 0)} MiB (${fmt((after.heapUsedBytes - before.heapUsedBytes) / open / 1024, 1)} KiB each)`);
      const c = await this.phase(`${this.o.subscribers} subscribers + ${open} idle`, many, this.filteredPlan(this.o.emitting), ids.indexOf(this.contractIds[0]));
      // idle connections the node closed meanwhile (ping timeouts, limits) would make the phase lighter than it claims
      const states = await Promise.all(idleChildren.map((ch) => ch.ask<Message & { closed: number; firstClose?: string }>({ type: 'collect' }, 'collected')));
      memory.closedDuring = states.reduce((n, st) => n + st.closed, 0);
      if (memory.closedDuring) this.log(`  ${memory.closedDuring} idle connections were closed by the node (first: ${states.find((st) => st.firstClose)?.firstClose})`);
      filtered = { alone: a.phase, poll: a.poll!, many: b.phase, idle: c.phase, memory };
    } finally {
      await Promise.all(idleChildren.map(async (c) => { await c.ask({ type: 'close' }, 'closed').catch(() => undefined); await c.stop(); }));
      await many.ask({ type: 'close' }, 'closed').catch(() => undefined);
      await many.stop();
    }
    return { ...filtered, ...await this.fanOut() };
  }

  /** The filtered phases: each receiving subscriber gets one event per driven ledger. */
  private filteredPlan(receiving: number): PhasePlan {
    return { ledgers: this.o.ledgers, periodMs: this.o.periodMs, receiving };
  }
}

export async function runStreamingBench(o: StreamingBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const node = await startNodeProcess({
    nodeArgs: [INSPECT_ARG],
    args: [
      // debug: the `closed ledger` line is the commit time; json: pino's millisecond `time`
      '--log-level', 'debug', '--log-format', 'json',
      '--close-mode', 'instant', '--ledger-close-interval', '10s',
      // --max-websocket-connections: the default (20,000) holds the idle connections and the subscribers
    ],
  });
  const bench = new StreamingBench(node, o, log);
  const rounds: Round[] = [];
  try {
    await bench.setUp();
    for (let r = 0; r < o.rounds; r++) {
      log(`  round ${r + 1}/${o.rounds}`);
      rounds.push(await bench.round());
    }
  } finally {
    bench.close();
    await node.stop();
    rmSync(node.dbPath, { force: true });
  }
  return report(rounds, o);
}

function report(rounds: Round[], o: StreamingBenchOptions): { rows: Row[]; details: string[] } {
  const med = (f: (r: Round) => number) => median(rounds.map(f));
  // per round, then the median; at 1 ms resolution a baseline can be 0 ms, which divides nothing
  const ratio = (a: (r: Round) => number, b: (r: Round) => number): string => {
    const rs = rounds.filter((r) => b(r) > 0).map((r) => a(r) / b(r));
    return rs.length ? `${median(rs).toFixed(2)}x` : 'n/a (baseline 0 ms)';
  };
  const perConn = (r: Round, k: keyof Memory) => (r.memory.after[k] - r.memory.before[k]) / r.memory.opened / 1024;
  const idleOpened = med((r) => r.memory.opened);
  const rssKiB = med((r) => perConn(r, 'rssBytes'));
  const heapKiB = med((r) => perConn(r, 'heapUsedBytes'));
  const latencyRow = (metric: string, k: 'many' | 'idle'): Row => {
    const p50 = med((r) => r[k].p50);
    const p99 = med((r) => r[k].p99);
    const complete = rounds.every((r) => r[k].missing === 0 && r[k].unexpected === 0 && r[k].outOfOrder === 0 && r[k].closed === 0);
    return {
      metric, value: `p50 ${fmt(p50, 1)} ms, p99 ${fmt(p99, 1)} ms`,
      ratio: `p99 ${ratio((r) => r[k].p99, (r) => r.alone.p99)} one subscriber's (${fmt(med((r) => r.alone.p99), 1)} ms; its p50 ${fmt(med((r) => r.alone.p50), 1)} ms)`,
      target: `p99 < ${TARGETS.p99Ms} ms, every event delivered once`, verdict: complete && p99 < TARGETS.p99Ms ? 'PASS' : 'FAIL',
    };
  };
  const pollP50 = med((r) => r.poll.p50);
  const perEvent = med((r) => r.poll.requests / r.poll.events);
  const rows: Row[] = [
    latencyRow(`Events subscription, commit to client: ${o.subscribers.toLocaleString('en-US')} subscribers on distinct contract ids (${o.emitting} receiving an event per ledger)`, 'many'),
    latencyRow(`The same with ${fmt(idleOpened, 0)} idle WebSocket connections open`, 'idle'),
    {
      // the heap grows inside pages RSS may already count (freed, not returned): the larger of the two is judged
      metric: 'Memory per idle WebSocket connection (node RSS / JS heap growth after GC)', value: `${fmt(rssKiB, 1)} KiB RSS, ${fmt(heapKiB, 1)} KiB heap`,
      target: `< ${TARGETS.idleKiB} KiB`, verdict: Math.max(rssKiB, heapKiB) < TARGETS.idleKiB ? 'PASS' : 'FAIL',
    },
    {
      metric: 'getEvents polling at one request per ledger, commit to client (baseline: the same events as one subscriber)',
      value: `p50 ${fmt(pollP50, 1)} ms, p99 ${fmt(med((r) => r.poll.p99), 1)} ms; ${fmt(perEvent, 2)} requests per event`,
      ratio: `p99 ${ratio((r) => r.poll.p99, (r) => r.alone.p99)} the subscription's (${fmt(med((r) => r.alone.p99), 1)} ms; its p50 ${fmt(med((r) => r.alone.p50), 1)} ms)`, target: 'reported (baseline)', verdict: 'n/a',
    },
  ];
  const fanComplete = rounds.every((r) => [r.fanAlone, r.fanOut].every((p) => p.missing === 0 && p.unexpected === 0 && p.outOfOrder === 0 && p.closed === 0));
  const fanProbeP99 = med((r) => r.fanOut.probe!.p99);
  rows.push(
    {
      metric: `Fan-out: events subscription, commit to client, ${o.fanOutSubscribers.toLocaleString('en-US')} unfiltered subscribers (each sent every event of a ${o.emitting}-event ledger)`,
      value: `p50 ${fmt(med((r) => r.fanOut.p50), 1)} ms, p99 ${fmt(med((r) => r.fanOut.p99), 1)} ms; a ledger's last delivery ${fmt(med((r) => r.fanOut.ledgerLast), 0)} ms`,
      ratio: `p99 ${ratio((r) => r.fanOut.p99, (r) => r.fanAlone.p99)} one unfiltered subscriber's (${fmt(med((r) => r.fanAlone.p99), 1)} ms); ${o.subscribers.toLocaleString('en-US')} filtered subscribers: p99 ${fmt(med((r) => r.many.p99), 1)} ms`,
      target: 'reported; every event delivered once, in order, no subscriber dropped', verdict: fanComplete ? 'PASS' : 'FAIL',
    },
    {
      metric: `Fan-out: getLatestLedger probe while ${o.fanOutSubscribers.toLocaleString('en-US')} unfiltered subscribers are served`,
      value: `p50 ${fmt(med((r) => r.fanOut.probe!.p50), 1)} ms, p99 ${fmt(fanProbeP99, 1)} ms`,
      ratio: `p99 ${ratio((r) => r.fanOut.probe!.p99, (r) => r.fanAlone.probe!.p99)} the probe's beside one unfiltered subscriber (${fmt(med((r) => r.fanAlone.probe!.p99), 1)} ms)`,
      target: 'p99 < 100 ms', verdict: fanProbeP99 < 100 ? 'PASS' : 'FAIL',
    },
  );
  const fanRow = (i: number, p: Phase) =>
    `| ${i + 1} | ${p.name} | ${p.count} | ${fmt(p.p50, 1)} | ${fmt(p.p99, 1)} | ${fmt(p.max, 0)} | ${fmt(p.ledgerFirst, 0)} / ${fmt(p.ledgerLast, 0)} | ${p.missing} / ${p.unexpected} / ${p.outOfOrder} / ${p.closed} | ${fmt(p.probe!.p50, 1)} / ${fmt(p.probe!.p99, 1)} / ${fmt(p.probe!.max, 0)} | ${fmt(p.nodeCpuPct, 0)}% | ${fmt(p.clientElu * 100, 1)}% | ${p.load.toFixed(1)} |`;
  const phaseRow = (i: number, p: Phase) =>
    `| ${i + 1} | ${p.name} | ${p.count} | ${fmt(p.p50, 1)} | ${fmt(p.p99, 1)} | ${fmt(p.max, 0)} | ${fmt(p.ledgerFirst, 0)} / ${fmt(p.ledgerLast, 0)} | ${p.first ? `${fmt(p.first.p50, 1)} / ${fmt(p.first.p99, 1)}` : '—'} | ${p.missing} / ${p.unexpected} / ${p.outOfOrder} / ${p.closed} | ${fmt(p.nodeCpuPct, 0)}% | ${fmt(p.clientElu * 100, 1)}% | ${p.load.toFixed(1)} |`;
  const mib = (b: number) => fmt(b / 2 ** 20, 1);
  const details = ['### Streaming subscriptions', '',
    `The node runs as its own process (standalone network, instant closes, \`--log-level debug --log-format json\`; its default \`--max-websocket-connections\` of 20,000 holds every connection opened here). Every ${o.periodMs} ms this process sends one pre-signed transaction in which an issuer pays one account 0.0000001 of each of ${o.emitting} assets: one ledger holding one CAP-67 \`mint\` event from each of ${o.emitting} Stellar Asset Contracts (and a fee event). Subscribers are WebSocket connections (\`ws\`) in a separate process, one \`subscribe {kind: "events", filters: [{contractIds: [one id]}]}\` each: ${o.emitting} on the emitting contracts and ${o.subscribers - o.emitting} on random contract ids that never emit. Latency: the client's Date.now() when the notification frame arrives (parsed only after the phase) minus the \`time\` of the node's \`closed ledger\` log line for the event's ledger, which the standalone network writes right after the ledger writer committed the ledger and announced it on the ledger feed (same machine, same clock; both ends have 1 ms resolution). ${o.ledgers} driven ledgers per phase; each round runs: one subscriber alone (the baseline) with the getEvents poller beside it, then ${o.subscribers.toLocaleString('en-US')} subscribers, then the same with ${o.idle.toLocaleString('en-US')} idle connections (no subscription; ${o.idleProcesses} client processes) opened. Figures in the table are medians over ${rounds.length} rounds of each round's percentile.`, '',
    '| Round | Phase | Deliveries | p50 ms | p99 ms | max ms | a ledger\'s first / last delivery ms (median) | the contractIds[0] subscriber p50 / p99 ms | missing / unexpected / out of order / closed | node CPU | client event loop busy | load (1 min) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.flatMap((r, i) => [phaseRow(i, r.alone), phaseRow(i, r.many), phaseRow(i, r.idle)]), '',
    `Bound by delivery: the latencies start at the commit, so the ${o.periodMs} ms cadence is not in them; the slowest delivery of every phase (max column) against the ${o.periodMs} ms between ledgers shows whether any delivery waited behind a later ledger. A ledger's first delivery is the fixed cost of a ledger before any send (the hub reading its events from the store, matching them against the live filters, rendering each once); from the first to the last, the fan-out to the receiving subscribers. Each p99 is close to the worst of the phase's ${o.ledgers} ledgers (a pause of the node hits every delivery of its ledger), so one stall of the shared machine moves it; the load column (this bench adds about 1.5) shows when other processes shared the cores. The subscriber process's event loop was busy the share of the phase given in the last column (a client near 100% would be measuring itself); node CPU is the node's user + system time over the phase (100% = one of the machine's ${availableParallelism()} cores), mostly applying and storing the ledgers and answering this process's sendTransaction/getTransaction.`, '',
    `Idle connections: the node's RSS (/proc/<pid>/status VmRSS) and JS heap (inspector Runtime.getHeapUsage, the node started with \`${INSPECT_ARG}\`), each after two forced full collections (HeapProfiler.collectGarbage), with the ${o.subscribers.toLocaleString('en-US')} subscribers connected, before and after opening the idle connections. Kernel socket buffers are not in RSS. The verdict takes the larger of the two growths: the heap can grow inside pages RSS already counted (freed earlier, not returned to the system).`, '',
    '| Round | Idle connections | Opened in s | RSS before / after MiB | RSS per connection | heap before / after MiB | heap per connection |', '|---|---|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${r.memory.opened}${r.memory.failed ? ` (${r.memory.failed} failed)` : ''}${r.memory.closedDuring ? ` (${r.memory.closedDuring} closed by the node during the phase)` : ''} | ${fmt(r.memory.openSec, 1)} | ${mib(r.memory.before.rssBytes)} / ${mib(r.memory.after.rssBytes)} | ${fmt(perConn(r, 'rssBytes'), 1)} KiB | ${mib(r.memory.before.heapUsedBytes)} / ${mib(r.memory.after.heapUsedBytes)} | ${fmt(perConn(r, 'heapUsedBytes'), 1)} KiB |`), '',
    `Polling baseline: a client process calls getEvents for contractIds[0] (the lone subscriber's contract) once per ledger on its own timer (every ${fmt(o.periodMs * (1 + 1 / o.ledgers), 1)} ms: one ledger in ${o.ledgers} slower than the cadence, so that over the phase its requests fall at every offset from the commits evenly, as independent clients' would), the first time from the latest ledger, then with each answer's cursor; "commit to client" is from the ledger's commit to the moment the answer holding its event has been read. It ran during the one-subscriber phase, so both saw the same events. Its latency is set by the polling interval (about half an interval on average, plus the request): at pubnet's ~5 s ledgers it would be seconds, while a subscription's does not depend on the cadence. A subscription costs one subscribe request for all its events.`, '',
    '| Round | Requests | Events | Requests per event | Empty answers | Errors | p50 ms | p99 ms | subscription p50 / p99 ms |', '|---|---|---|---|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${r.poll.requests} | ${r.poll.events} | ${fmt(r.poll.requests / r.poll.events, 2)} | ${r.poll.empty} | ${r.poll.errors} | ${fmt(r.poll.p50, 1)} | ${fmt(r.poll.p99, 1)} | ${fmt(r.alone.p50, 1)} / ${fmt(r.alone.p99, 1)} |`), '',
    `Fan-out: after the phases above, each round opens one WebSocket connection with one unfiltered \`subscribe {kind: "events"}\` (the baseline), then ${o.fanOutSubscribers.toLocaleString('en-US')} such connections (one client process), and drives ${o.fanOutLedgers} ledgers of the same ${o.emitting}-mint transactions every ${o.fanOutPeriodMs} ms for each: every subscriber is sent every event of every ledger (the mints and the fee events), about ${o.fanOutSubscribers.toLocaleString('en-US')} x ${o.emitting} notifications a ledger, the node encoding each event once and sharing its bytes. The expected count is every event getEvents finds in the driven ledgers, for each subscriber. The subscriber process keeps each notification's receipt time, ledger and event id (a byte search, no parse). Meanwhile this process asks getLatestLedger every ${PROBE_EVERY_MS} ms on a connection of its own (the probe). The cadence leaves each ledger's fan-out time to end before the next (compare the last-delivery column with ${o.fanOutPeriodMs} ms).`, '',
    '| Round | Phase | Deliveries | p50 ms | p99 ms | max ms | a ledger\'s first / last delivery ms (median) | missing / unexpected / out of order / closed | probe p50 / p99 / max ms | node CPU | client event loop busy | load (1 min) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.flatMap((r, i) => [fanRow(i, r.fanAlone), fanRow(i, r.fanOut)]), ''];
  return { rows, details };
}
