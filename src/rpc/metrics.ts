// Prometheus metrics, modelled on the reference node's (namespace `soroban_rpc` there, `lumen_rpc`
// here). Names and labels:
//   lumen_rpc_json_rpc_request_duration_seconds{endpoint,status}   summary; endpoint = method name,
//       status = ok | error (a result carrying a non-empty `error` string, i.e. a failed simulation)
//       | snake-cased JSON-RPC code name (invalid_parameters, internal_error, system_error, …)
//   lumen_rpc_network_<snake_method>_inflight_requests                gauge, per method
//   lumen_rpc_network_<snake_method>_execution_threshold_warning      counter (took > limit/3)
//   lumen_rpc_network_<snake_method>_execution_threshold_limit        counter (hit the per-method limit)
//   lumen_rpc_network_global_inflight_requests                        gauge (HTTP requests on the RPC paths)
//   lumen_rpc_network_global_request_execution_duration_threshold_warning / _limit   counters
//   lumen_rpc_ingest_ledger_ingestion_duration_seconds{type}          summary
//   lumen_rpc_ingest_local_latest_ledger                              gauge
//   plus prom-client's default process/nodejs metrics (unprefixed, as the reference's Go/process
//   collectors are).
// In-flight gauges are read from the limiters at scrape time, so requests pay nothing for them.
import { Counter, Gauge, Registry, Summary, collectDefaultMetrics } from 'prom-client';

export const METRICS_NAMESPACE = 'lumen_rpc';

const SUMMARY_OPTS = { percentiles: [0.5, 0.9, 0.99], maxAgeSeconds: 600, ageBuckets: 2 };

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
  return s.replace(/[A-Z]/g, (c) => '_' + c).toLowerCase();
}

interface Observer { observe(v: number): void }

export class Metrics {
  readonly registry: Registry;
  private readonly requestDuration: Summary<'endpoint' | 'status'>;
  private readonly requestChildren = new Map<string, Map<string, Observer>>();
  private readonly ingestionDuration: Summary<'type'>;
  private readonly ingestionChildren = new Map<string, Observer>();
  private readonly latestLedger: Gauge;
  private readonly methodCounters = new Map<string, { warn: Counter; limit: Counter }>();
  private readonly inflightSources = new Map<string, () => number>();
  private globalInflightSource: () => number = () => 0;
  private readonly globalWarn: Counter;
  private readonly globalLimit: Counter;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registry = new Registry();
    this.registry = registry;
    const ns = METRICS_NAMESPACE;
    this.requestDuration = new Summary({
      name: `${ns}_json_rpc_request_duration_seconds`,
      help: 'JSON RPC request duration',
      labelNames: ['endpoint', 'status'] as const,
      registers: [registry],
      ...SUMMARY_OPTS,
    });
    this.ingestionDuration = new Summary({
      name: `${ns}_ingest_ledger_ingestion_duration_seconds`,
      help: 'ledger ingestion durations, sliding window = 10m',
      labelNames: ['type'] as const,
      registers: [registry],
      ...SUMMARY_OPTS,
    });
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
    if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  }

  /** Prometheus text exposition of everything registered. */
  metricsText(): Promise<string> { return this.registry.metrics(); }
  get contentType(): string { return this.registry.contentType; }

  /** One finished call of a known method. */
  observeRequest(method: string, status: string, seconds: number): void {
    let byStatus = this.requestChildren.get(method);
    if (byStatus === undefined) { byStatus = new Map(); this.requestChildren.set(method, byStatus); }
    let child = byStatus.get(status);
    if (child === undefined) {
      child = this.requestDuration.labels(method, status);
      byStatus.set(status, child);
    }
    child.observe(seconds);
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

  methodWarning(method: string): void { this.methodCounters.get(method)?.warn.inc(); }
  methodLimit(method: string): void { this.methodCounters.get(method)?.limit.inc(); }
  globalWarning(): void { this.globalWarn.inc(); }
  globalLimitReached(): void { this.globalLimit.inc(); }

  /**
   * Ingestion step durations. Types used by the reference: ledger_close_meta, transactions, events,
   * fee-window, trim_ledgers, trim_transactions, trim_events, commit, wal_checkpoint, total.
   */
  observeIngestion(type: string, seconds: number): void {
    let child = this.ingestionChildren.get(type);
    if (child === undefined) {
      child = this.ingestionDuration.labels(type);
      this.ingestionChildren.set(type, child);
    }
    child.observe(seconds);
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
