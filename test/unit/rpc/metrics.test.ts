// Metrics and the admin endpoint.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdminServer } from '../../../src/transport/adminServer.ts';
import { createLogger } from '../../../src/log.ts';
import { createMetrics, getMetrics, observeIngestion, setLatestLedger, statusLabelForCode, toSnakeCase } from '../../../src/rpc/metrics.ts';
import { request, rpc, startServer } from './support.ts';

/** The value of one sample line, e.g. `name{a="b"} 3`. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe('admin /metrics', () => {
  it('exposes request durations per method and status after calls', async () => {
    const t = await startServer();
    const admin = createAdminServer({ config: { adminEndpoint: '127.0.0.1:0' }, metrics: t.metrics, logger: createLogger({ logLevel: 'error', logFormat: 'json' }, { write() {} }) });
    assert.ok(admin);
    try {
      const { port } = await admin.listen();
      await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } });
      await rpc(t.port, { jsonrpc: '2.0', id: 2, method: 'echo', params: { a: 2 } });
      await rpc(t.port, { jsonrpc: '2.0', id: 3, method: 'echo', params: { a: 'x' } });
      await rpc(t.port, { jsonrpc: '2.0', id: 4, method: 'throwPlain' });
      await rpc(t.port, { jsonrpc: '2.0', id: 5, method: 'simulateLike' });
      await rpc(t.port, { jsonrpc: '2.0', id: 6, method: 'throwRpc' });
      await rpc(t.port, { jsonrpc: '2.0', id: 7, method: 'nope' }); // never reaches a method: not counted

      const r = await request(port, { method: 'GET', path: '/metrics' });
      assert.equal(r.status, 200);
      assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const m = r.text;
      assert.match(m, /# TYPE lumen_rpc_json_rpc_request_duration_seconds summary/);
      assert.equal(sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_count{endpoint="echo",status="ok"}'), 2);
      assert.equal(sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_count{endpoint="echo",status="invalid_parameters"}'), 1);
      assert.equal(sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_count{endpoint="throwPlain",status="internal_error"}'), 1);
      assert.equal(sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_count{endpoint="simulateLike",status="error"}'), 1);
      assert.equal(sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_count{endpoint="throwRpc",status="invalid_parameters"}'), 1);
      assert.ok(!m.includes('endpoint="nope"'));
      const p50 = sample(m, 'lumen_rpc_json_rpc_request_duration_seconds{endpoint="echo",status="ok",quantile="0.5"}');
      assert.ok(p50 !== undefined && p50 >= 0 && p50 < 1, String(p50));
      assert.ok((sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_sum{endpoint="echo",status="ok"}') ?? -1) >= 0);
      assert.equal(sample(m, 'lumen_rpc_network_echo_inflight_requests'), 0);
      assert.equal(sample(m, 'lumen_rpc_network_global_inflight_requests'), 0);
      assert.match(m, /^process_cpu_user_seconds_total /m);

      assert.equal((await request(port, { method: 'GET', path: '/other' })).status, 404);
      assert.equal((await request(port, { method: 'POST', path: '/metrics', body: '{}' })).status, 405);
    } finally {
      await admin.close();
      await t.close();
    }
  });

  it('shows in-flight requests per method and globally', async () => {
    const t = await startServer();
    try {
      const pending = rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'block' });
      while (t.probe.blocked.length === 0) await new Promise((r) => setTimeout(r, 5));
      const m = await t.metrics.metricsText();
      assert.equal(sample(m, 'lumen_rpc_network_block_inflight_requests'), 1);
      assert.equal(sample(m, 'lumen_rpc_network_global_inflight_requests'), 1);
      t.probe.blocked.splice(0)[0]('x');
      await pending;
      const m2 = await t.metrics.metricsText();
      assert.equal(sample(m2, 'lumen_rpc_network_block_inflight_requests'), 0);
    } finally {
      await t.close();
    }
  });

  it('counts per-method time limits and labels them by code', async () => {
    const t = await startServer();
    try {
      await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'slow', params: { ms: 2000 } });
      const m = await t.metrics.metricsText();
      assert.equal(sample(m, 'lumen_rpc_network_slow_execution_threshold_limit'), 1);
      assert.equal(sample(m, 'lumen_rpc_json_rpc_request_duration_seconds_count{endpoint="slow",status="error_code__32001"}'), 1);
    } finally {
      await t.close();
    }
  });

  it('is off without an admin endpoint', () => {
    assert.equal(createAdminServer({ config: { adminEndpoint: '' }, metrics: createMetrics({ processWide: false, processMetrics: false }), logger: createLogger({ logLevel: 'error', logFormat: 'json' }, { write() {} }) }), undefined);
  });
});

describe('ingestion metrics', () => {
  it('records ingestion durations and the latest ledger through the module functions', async () => {
    const m = createMetrics({ processMetrics: false });
    assert.equal(getMetrics(), m);
    observeIngestion('commit', 0.25);
    observeIngestion('commit', 0.75);
    observeIngestion('total', 1);
    setLatestLedger(1234);
    const text = await m.metricsText();
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds_count{type="commit"}'), 2);
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds_sum{type="commit"}'), 1);
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds{type="commit",quantile="0.5"}'), 0.25);
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds{type="commit",quantile="0.99"}'), 0.75);
    assert.equal(sample(text, 'lumen_rpc_ingest_local_latest_ledger'), 1234);
  });

  it('computes quantiles over the window', async () => {
    const m = createMetrics({ processWide: false, processMetrics: false });
    for (let i = 1; i <= 100; i++) m.observeIngestion('x', i);
    const text = await m.metricsText();
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds{type="x",quantile="0.5"}'), 50);
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds{type="x",quantile="0.9"}'), 90);
    assert.equal(sample(text, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds{type="x",quantile="0.99"}'), 99);
    // only the latest 1024 observations count for quantiles; count and sum stay exact
    for (let i = 0; i < 2000; i++) m.observeIngestion('x', 1000);
    const text2 = await m.metricsText();
    assert.equal(sample(text2, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds{type="x",quantile="0.5"}'), 1000);
    assert.equal(sample(text2, 'lumen_rpc_ingest_ledger_ingestion_duration_seconds_count{type="x"}'), 2100);
  });
});

describe('labels', () => {
  it('snake-cases code names like the reference', () => {
    assert.equal(statusLabelForCode(-32602), 'invalid_parameters');
    assert.equal(statusLabelForCode(-32603), 'internal_error');
    assert.equal(statusLabelForCode(-32600), 'invalid_request');
    assert.equal(statusLabelForCode(-32098), 'system_error');
    assert.equal(statusLabelForCode(-32001), 'error_code__32001');
    assert.equal(toSnakeCase('getLatestLedger'), 'get_latest_ledger');
  });
});

describe('serving load metrics', () => {
  it('reads connections, unread answers and heavy answers at scrape time', async () => {
    const m = createMetrics({ processMetrics: false, processWide: false });
    let load = { openConnections: 7, refusedConnections: 2, writeTimeouts: 1, queuedResponseBytes: 4096, heavyRunning: 2, heavyWaiting: 5 };
    m.registerServingLoad(() => load);
    let text = await m.metricsText();
    assert.equal(sample(text, 'lumen_rpc_http_open_connections'), 7);
    assert.match(text, /# TYPE lumen_rpc_http_refused_connections counter/);
    assert.equal(sample(text, 'lumen_rpc_http_refused_connections'), 2);
    assert.equal(sample(text, 'lumen_rpc_http_write_timeouts'), 1);
    assert.equal(sample(text, 'lumen_rpc_http_queued_response_bytes'), 4096);
    assert.equal(sample(text, 'lumen_rpc_heavy_requests_running'), 2);
    assert.equal(sample(text, 'lumen_rpc_heavy_requests_waiting'), 5);
    load = { ...load, openConnections: 0, refusedConnections: 9 };
    text = await m.metricsText();
    assert.equal(sample(text, 'lumen_rpc_http_open_connections'), 0);
    assert.equal(sample(text, 'lumen_rpc_http_refused_connections'), 9);
  });
});

describe('preflight pool metrics', () => {
  it('reads the simulation pool at scrape time', async () => {
    const m = createMetrics({ processMetrics: false, processWide: false });
    let state = { running: 2, waiting: 1, queueFullErrors: 3 };
    m.registerPreflightPool(() => state);
    let text = await m.metricsText();
    assert.equal(sample(text, 'lumen_rpc_preflight_pool_concurrent_requests'), 2);
    assert.equal(sample(text, 'lumen_rpc_preflight_pool_queue_length'), 1);
    assert.match(text, /# TYPE lumen_rpc_preflight_pool_queue_full_errors counter/);
    assert.equal(sample(text, 'lumen_rpc_preflight_pool_queue_full_errors'), 3);
    state = { running: 0, waiting: 0, queueFullErrors: 5 };
    text = await m.metricsText();
    assert.equal(sample(text, 'lumen_rpc_preflight_pool_concurrent_requests'), 0);
    assert.equal(sample(text, 'lumen_rpc_preflight_pool_queue_full_errors'), 5);
  });
});
