// Prometheus metrics, modelled on the reference node's (namespace `soroban_rpc` there, `lumen_rpc`
// here). Names and labels:
//   lumen_rpc_json_rpc_request_duration_seconds{endpoint,status}   summary (see WindowSummary); endpoint = method name,
//       status = ok | error (a result carrying a non-empty `error` string, i.e. a failed simulation)
//       | snake-cased JSON-RPC code name (invalid_parameters, internal_error, system_error, …)
//   lumen_rpc_network_<snake_method>_inflight_requests                gauge, per method
//   lumen_rpc_network_<snake_method>_execution_threshold_warning      counter (took > limit/3)
//   lumen_rpc_network_<snake_method>_execution_threshold_limit        counter (hit the per-method limit)
//   lumen_rpc_network_global_inflight_requests                        gauge (HTTP requests on the RPC paths)
//   lumen_rpc_network_global_request_execution_duration_threshold_warning / _limit   counters
//   lumen_rpc_ingest_ledger_ingestion_duration_seconds{type}          summary
//   lumen_rpc_ingest_local_latest_ledger                              gauge
//   lumen_rpc_preflight_pool_queue_length / _concurrent_requests      gauges (simulations waiting / running)
//   lumen_rpc_preflight_pool_queue_full_errors                        counter ("preflight queue full" answers)
//   lumen_rpc_stream_connections{transport}                          gauge (ws | sse)
//   lumen_rpc_stream_subscriptions{kind}                              gauge
//   lumen_rpc_stream_notifications_sent_total{kind}                   counter
//   lumen_rpc_stream_subscribers_dropped_total{reason}                counter (slow | error | ping | limit)
//   plus prom-client's default process/nodejs metrics (unprefixed, as the reference's Go/process
//   collectors are).
// In-flight gauges are read from the limiters at scrape time, so requests pay nothing for them.
// prom-client's parts, one module each: its index also loads the push gateway, the cluster
// aggregator, histograms and summaries, which this node does not use (a few ms of every start);
// its default (process and Node.js) metrics are loaded when first read (collectProcessMetrics).
import type { Metric } from 'prom-client';
import Registry from 'prom-client/lib/registry.js';
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';


/** What registerServingLoad reads at each scrape. */
export interface ServingLoad {
  openConnections: number;
  refusedConnections: number;
  writeTimeouts: number;
  queuedResponseBytes: number;
  heavyRunning: number;
  heavyWaiting: number;
}

/** What registerStreaming reads at each scrape. */
export interface StreamingLoad {
  connections: Record<string, number>;
  subscriptions: Record<string, number>;
  /** Bytes streaming connections hold that their clients have not taken (what --max-stream-total-bytes caps). */
  heldBytes: number;
}

export const METRICS_NAMESPACE = 'lumen_rpc';

const QUANTILES = [0.5, 0.9, 0.99];
const WINDOW_MS = 600_000;  // as the reference's summaries: quantiles over the last 10 minutes
const WINDOW_SIZE = 1024;   // … and at most this many observations per label set

interface SummarySeries {
  labels: Record<string, string>;
  count: number;
  sum: number;
  values: Float64Array;
  times: Float64Array;
  next: number;
  filled: number;
}

/**
 * A Prometheus summary that is cheap to observe (a few array writes; prom-client's Summary costs
 * several microseconds per observation, which matters on the request path). Count and sum are
 * exact; quantiles (0.5, 0.9, 0.99) are computed at scrape time from the latest observations of
 * each label set: at most WINDOW_SIZE of them, none older than WINDOW_MS. An empty window gives
 * NaN, as Go's client does.
 */
export class WindowSummary {
  readonly name: string;
  readonly help: string;
  readonly type = 'summary';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly string[];
  private readonly series = new Map<string, SummarySeries>();

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** The series for these label values (same order as labelNames); keep it to observe cheaply. */
  seriesFor(values: readonly string[]): SummarySeries {
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => { labels[n] = values[i]; });
      s = { labels, count: 0, sum: 0, values: new Float64Array(WINDOW_SIZE), times: new Float64Array(WINDOW_SIZE), next: 0, filled: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  static observe(s: SummarySeries, value: number): void {
    s.count++;
    s.sum += value;
    s.values[s.next] = value;
    s.times[s.next] = Date.now();
    s.next = (s.next + 1) % WINDOW_SIZE;
    if (s.filled < WINDOW_SIZE) s.filled++;
  }

  get(): { name: string; help: string; type: 'summary'; aggregator: 'sum'; values: { labels: Record<string, string | number>; value: number; metricName?: string }[] } {
    const out: { labels: Record<string, string | number>; value: number; metricName?: string }[] = [];
    const cutoff = Date.now() - WINDOW_MS;
    for (const s of this.series.values()) {
      const recent: number[] = [];
      for (let i = 0; i < s.filled; i++) if (s.times[i] >= cutoff) recent.push(s.values[i]);
      recent.sort((a, b) => a - b);
      for (const q of QUANTILES) {
        const value = recent.length === 0 ? NaN : recent[Math.max(0, Math.ceil(q * recent.length) - 1)];
        out.push({ labels: { ...s.labels, quantile: q }, value });
      }
      out.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: 'summary', aggregator: 'sum', values: out };
  }

  reset(): void { this.series.clear(); }
}

// jrpc2's names for its codes (code.go), snake-cased as the reference does for its status label.
const CODE_NAMES: Record<number, string> = {
  [-32700]: 'parse_error',
  [-32600]: 'invalid_request',
  [-32601]: 'method_not_found',
  [-32602]: 'invalid_parameters',
  [-32603]: 'internal_error',
  [-32099]: 'no_error_success',
  [-32098]: 'system_error',
  [-32097]: 'request_cancelled',
  [-32096]: 'deadline_exceeded',
};

/**
 * The status label for a JSON-RPC error code: the reference replaces " " and "-" with "_" in jrpc2's
 * `Code.String()`, which is the name above or "error code <n>" (so -32001 gives `error_code__32001`).
 */
export function statusLabelForCode(code: number): string {
  return CODE_NAMES[code] ?? `error code ${code}`.replace(/[ -]/g, '_');
}

/** getEvents -> get_events (the reference's toSnakeCase). */
export function toSnakeCase(s: string): string {
  // a character a metric name cannot hold (rpc.discover's dot) becomes '_'
  return s.replace(/[A-Z]/g, (c) => '_' + c).toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

export class Metrics {
  readonly registry: Registry;
  private readonly requestDuration: WindowSummary;
  private readonly requestSeries = new Map<string, Map<string, SummarySeries>>();
  private readonly ingestionDuration: WindowSummary;
  private readonly ingestionSeries = new Map<string, SummarySeries>();
  private readonly latestLedger: Gauge;
  private readonly methodCounters = new Map<string, { warn: Counter; limit: Counter }>();
  private readonly inflightSources = new Map<string, () => number>();
  private globalInflightSource: () => number = () => 0;
  private preflightSource: (() => { running: number; waiting: number; queueFullErrors: number }) | undefined;
  private servingSource: (() => ServingLoad) | undefined;
  private readonly globalWarn: Counter;
  private readonly streamSent: Counter;
  private readonly streamDropped: Counter;
  private streamingSource: (() => StreamingLoad) | undefined;
  private readonly globalLimit: Counter;
  private readonly processMetrics: boolean;
  private processCollecting: Promise<void> | undefined;

  constructor(options: { processMetrics?: boolean } = {}) {
    this.processMetrics = options.processMetrics !== false;
    const registry = new Registry();
    this.registry = registry;
    const ns = METRICS_NAMESPACE;
    this.requestDuration = new WindowSummary(`${ns}_json_rpc_request_duration_seconds`, 'JSON RPC request duration', ['endpoint', 'status']);
    registry.registerMetric(this.requestDuration as unknown as Metric);
    this.ingestionDuration = new WindowSummary(`${ns}_ingest_ledger_ingestion_duration_seconds`, 'ledger ingestion durations, sliding window = 10m', ['type']);
    registry.registerMetric(this.ingestionDuration as unknown as Metric);
    this.latestLedger = new Gauge({
      name: `${ns}_ingest_local_latest_ledger`,
      help: 'sequence number of the latest ledger ingested by this node',
      registers: [registry],
    });
    const self = this;
    new Gauge({
      name: `${ns}_network_global_inflight_requests`,
      help: 'Number of concurrently in-flight http requests',
      registers: [registry],
      collect() { this.set(self.globalInflightSource()); },
    });
    this.globalWarn = new Counter({
      name: `${ns}_network_global_request_execution_duration_threshold_warning`,
      help: 'The count of requests that surpassed the warning threshold for execution time',
      registers: [registry],
    });
    this.globalLimit = new Counter({
      name: `${ns}_network_global_request_execution_duration_threshold_limit`,
      help: 'The count of requests that surpassed the limit threshold for execution time',
      registers: [registry],
    });
    this.streamSent = new Counter({
      name: `${METRICS_NAMESPACE}_stream_notifications_sent_total`, help: 'streaming notifications sent, by subscription kind',
      labelNames: ['kind'], registers: [registry],
    });
    this.streamDropped = new Counter({
      name: `${METRICS_NAMESPACE}_stream_subscribers_dropped_total`,
      help: 'streaming connections closed by the node, by reason (slow: over the buffer limit; error; ping: unanswered; limit: refused)',
      labelNames: ['reason'], registers: [registry],
    });
  }

  /**
   * Starts prom-client's process and Node.js metrics (unless `processMetrics: false`), once. They are
   * read only through metricsText (the admin endpoint, which asks for them as it starts): a node
   * without one does not load or run their collectors (a few ms of every start).
   */
  collectProcessMetrics(): Promise<void> {
    if (!this.processMetrics) return Promise.resolve();
    this.processCollecting ??= import('prom-client/lib/defaultMetrics.js').then(({ default: collect }) => { collect({ register: this.registry }); });
    return this.processCollecting;
  }

  /** Prometheus text exposition of everything registered. */
  async metricsText(): Promise<string> {
    await this.collectProcessMetrics();
    return this.registry.metrics();
  }
  get contentType(): string { return this.registry.contentType; }

  /** One finished call of a known method. */
  observeRequest(method: string, status: string, seconds: number): void {
    let byStatus = this.requestSeries.get(method);
    if (byStatus === undefined) { byStatus = new Map(); this.requestSeries.set(method, byStatus); }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = this.requestDuration.seriesFor([method, status]);
      byStatus.set(status, series);
    }
    WindowSummary.observe(series, seconds);
  }

  /**
   * Declares a method: creates its in-flight gauge (read from `inflight` at scrape time) and its
   * threshold counters. Declaring again (a second server on the same Metrics) swaps the source.
   */
  registerMethod(method: string, inflight: () => number): void {
    const had = this.inflightSources.has(method);
    this.inflightSources.set(method, inflight);
    if (had) return;
    const snake = toSnakeCase(method);
    const ns = METRICS_NAMESPACE;
    const sources = this.inflightSources;
    new Gauge({
      name: `${ns}_network_${snake}_inflight_requests`,
      help: `Number of concurrently in-flight ${method} requests`,
      registers: [this.registry],
      collect() { this.set((sources.get(method) ?? (() => 0))()); },
    });
    this.methodCounters.set(method, {
      warn: new Counter({
        name: `${ns}_network_${snake}_execution_threshold_warning`,
        help: `The count of ${method} requests that surpassed the warning threshold for execution time`,
        registers: [this.registry],
      }),
      limit: new Counter({
        name: `${ns}_network_${snake}_execution_threshold_limit`,
        help: `The count of ${method} requests that surpassed the limit threshold for execution time`,
        registers: [this.registry],
      }),
    });
  }

  registerGlobalInflight(source: () => number): void { this.globalInflightSource = source; }

  /** The simulation pool's gauges and counter, read from `source` at scrape time (registered once). */
  registerPreflightPool(source: () => { running: number; waiting: number; queueFullErrors: number }): void {
    const had = this.preflightSource !== undefined;
    this.preflightSource = source;
    if (had) return;
    const self = this;
    const ns = METRICS_NAMESPACE;
    new Gauge({
      name: `${ns}_preflight_pool_queue_length`, help: 'number of preflight requests in the queue', registers: [this.registry],
      collect() { this.set(self.preflightSource!().waiting); },
    });
    new Gauge({
      name: `${ns}_preflight_pool_concurrent_requests`, help: 'number of preflight requests currently running', registers: [this.registry],
      collect() { this.set(self.preflightSource!().running); },
    });
    new Counter({
      name: `${ns}_preflight_pool_queue_full_errors`, help: 'number of preflight full queue errors', registers: [this.registry],
      collect() { this.reset(); this.inc(self.preflightSource!().queueFullErrors); },
    });
  }

  /**
   * The bounded-work state (connections, unread answers, heavy answers), read from `source` at
   * scrape time (registered once). Not in the reference: its goroutines need none of it.
   */
  registerServingLoad(source: () => ServingLoad): void {
    const had = this.servingSource !== undefined;
    this.servingSource = source;
    if (had) return;
    const self = this;
    const ns = METRICS_NAMESPACE;
    const gauge = (name: string, help: string, read: (l: ServingLoad) => number): void => {
      new Gauge({ name: `${ns}_${name}`, help, registers: [this.registry], collect() { this.set(read(self.servingSource!())); } });
    };
    const counter = (name: string, help: string, read: (l: ServingLoad) => number): void => {
      new Counter({ name: `${ns}_${name}`, help, registers: [this.registry], collect() { this.reset(); this.inc(read(self.servingSource!())); } });
    };
    gauge('http_open_connections', 'open HTTP connections', (l) => l.openConnections);
    counter('http_refused_connections', 'HTTP connections refused over max-connections or a per-address limit (max-connections-per-address, max-incomplete-requests-per-address)', (l) => l.refusedConnections);
    counter('http_write_timeouts', 'HTTP connections closed because an answer was not delivered within http-write-timeout', (l) => l.writeTimeouts);
    gauge('http_queued_response_bytes', 'answer bytes handed to sockets and not yet delivered', (l) => l.queuedResponseBytes);
    gauge('heavy_requests_running', 'getLedgers/getTransactions/getEvents answers being built', (l) => l.heavyRunning);
    gauge('heavy_requests_waiting', 'getLedgers/getTransactions/getEvents answers waiting for a slot', (l) => l.heavyWaiting);
  }

  /** Streaming's gauges, read from `source` at scrape time (registered once). */
  registerStreaming(source: () => StreamingLoad): void {
    const had = this.streamingSource !== undefined;
    this.streamingSource = source;
    if (had) return;
    const self = this;
    new Gauge({
      name: `${METRICS_NAMESPACE}_stream_connections`, help: 'open streaming connections, by transport (ws | sse)',
      labelNames: ['transport'], registers: [this.registry],
      collect() {
        const load = self.streamingSource!();
        for (const [transport, n] of Object.entries(load.connections)) this.set({ transport }, n);
      },
    });
    new Gauge({
      name: `${METRICS_NAMESPACE}_stream_subscriptions`, help: 'open subscriptions, by kind',
      labelNames: ['kind'], registers: [this.registry],
      collect() {
        for (const [kind, n] of Object.entries(self.streamingSource!().subscriptions)) this.set({ kind }, n);
      },
    });
    new Gauge({
      name: `${METRICS_NAMESPACE}_stream_held_bytes`, help: 'bytes streaming connections hold that their clients have not taken (capped by max-stream-total-bytes)',
      registers: [this.registry],
      collect() { this.set(self.streamingSource!().heldBytes); },
    });
  }

  streamNotificationSent(kind: string): void { this.streamSent.inc({ kind }); }
  streamSubscriberDropped(reason: string): void { this.streamDropped.inc({ reason }); }

  methodWarning(method: string): void { this.methodCounters.get(method)?.warn.inc(); }
  methodLimit(method: string): void { this.methodCounters.get(method)?.limit.inc(); }
  globalWarning(): void { this.globalWarn.inc(); }
  globalLimitReached(): void { this.globalLimit.inc(); }

  /**
   * Ingestion step durations. Types used by the reference: ledger_close_meta, transactions, events,
   * fee-window, trim_ledgers, trim_transactions, trim_events, commit, wal_checkpoint, total.
   */
  observeIngestion(type: string, seconds: number): void {
    let series = this.ingestionSeries.get(type);
    if (series === undefined) {
      series = this.ingestionDuration.seriesFor([type]);
      this.ingestionSeries.set(type, series);
    }
    WindowSummary.observe(series, seconds);
  }

  setLatestLedger(sequence: number): void { this.latestLedger.set(sequence); }
}

let processMetrics: Metrics | undefined;

/**
 * A new metrics set. Unless `{ processWide: false }`, it also becomes the target of the module-level
 * `observeIngestion` / `setLatestLedger` below (the last one created wins).
 */
export function createMetrics(options: { processMetrics?: boolean; processWide?: boolean } = {}): Metrics {
  const m = new Metrics(options);
  if (options.processWide !== false) processMetrics = m;
  return m;
}

/** The process-wide metrics set (created on first use). */
export function getMetrics(): Metrics {
  processMetrics ??= new Metrics();
  return processMetrics;
}

/** For ingestion code: record how long one ingestion step took. */
export function observeIngestion(type: string, seconds: number): void { getMetrics().observeIngestion(type, seconds); }

/** For ingestion code: the sequence of the ledger just committed. */
export function setLatestLedger(sequence: number): void { getMetrics().setLatestLedger(sequence); }
