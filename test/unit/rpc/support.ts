// Shared fixtures for the transport tests: a server on port 0 with small test methods, and a raw
// HTTP client (node:http, so status, headers and body are seen exactly as sent).
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { defaultConfig, type Config } from '../../../src/config/config.ts';
import { createLogger, type LogSink } from '../../../src/log.ts';
import { RpcError } from '../../../src/rpc/errors.ts';
import { createHttpServer, type HttpServer } from '../../../src/transport/httpServer.ts';
import { RawJson } from '../../../src/rpc/rawJson.ts';
import { createMetrics, type Metrics } from '../../../src/rpc/metrics.ts';
import type { Method, MethodContext } from '../../../src/rpc/methods/types.ts';

export interface Probe {
  calls: Record<string, number>;
  aborted: string[];
  /** Pending `block` calls; resolve them to let those calls finish. */
  blocked: Array<(v: unknown) => void>;
  logs: string[];
}

export function testMethods(probe: Probe): Method[] {
  const meeting = new Map<number, Array<() => void>>();
  const count = (name: string): void => { probe.calls[name] = (probe.calls[name] ?? 0) + 1; };
  return [
    {
      name: 'echo',
      paramsSchema: {
        type: 'object',
        properties: {
          a: { type: 'integer' },
          b: { type: 'string' },
          nested: { type: 'object', properties: { x: { type: 'integer' } } },
          list: { type: 'array' },
        },
      },
      handler: (params) => { count('echo'); return params; },
    },
    {
      name: 'needs',
      paramsSchema: {
        type: 'object',
        required: ['startLedger'],
        properties: {
          startLedger: { type: 'integer', minimum: 1 },
          xdrFormat: { enum: ['base64', 'json'] },
        },
      },
      handler: (params) => ({ got: params.startLedger }),
    },
    {
      name: 'closed',
      paramsSchema: { type: 'object', additionalProperties: false, properties: { keep: { type: 'integer' } } },
      handler: (params) => params,
    },
    {
      name: 'strict',
      strictParams: true,
      paramsSchema: { type: 'object', properties: { count: { type: 'integer' }, step: { type: 'integer' } } },
      handler: (params) => params,
    },
    {
      name: 'asyncEcho',
      paramsSchema: { type: 'object', properties: { ms: { type: 'integer' }, v: {} } },
      handler: async (params) => {
        await new Promise((r) => setTimeout(r, (params.ms as number | undefined) ?? 0));
        return params.v ?? null;
      },
    },
    {
      // resolves once `n` calls are waiting together (proof that they run at the same time)
      name: 'meet',
      paramsSchema: { type: 'object', properties: { n: { type: 'integer' }, v: {} } },
      handler: (params) => new Promise((resolve) => {
        const here = (meeting.get(params.n as number) ?? []).concat(() => resolve(params.v));
        meeting.set(params.n as number, here);
        if (here.length === params.n) { meeting.delete(params.n as number); for (const go of here) go(); }
      }),
    },
    {
      name: 'slow',
      paramsSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
      handler: (params, _ctx, { signal }) => new Promise((resolve) => {
        const t = setTimeout(() => resolve('finished'), (params.ms as number | undefined) ?? 1000);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          probe.aborted.push((signal.reason as Error).message);
          resolve('aborted');
        });
      }),
    },
    {
      name: 'block',
      paramsSchema: { type: 'object' },
      handler: () => new Promise((resolve) => { probe.blocked.push(resolve); }),
    },
    {
      name: 'throwRpc',
      paramsSchema: { type: 'object' },
      handler: () => { throw new RpcError(-32602, 'start ledger must be between the oldest ledger: 10 and the latest ledger: 20 for this rpc instance', 'detail text'); },
    },
    {
      name: 'throwPlain',
      paramsSchema: { type: 'object' },
      handler: () => { throw new Error('kaboom'); },
    },
    {
      name: 'rejectPlain',
      paramsSchema: { type: 'object' },
      handler: async () => { throw new TypeError('async kaboom'); },
    },
    {
      name: 'simulateLike',
      paramsSchema: { type: 'object' },
      handler: () => ({ error: 'HostError: Error(Contract, #1)', latestLedger: 5 }),
    },
    {
      name: 'raw',
      paramsSchema: { type: 'object' },
      handler: () => new RawJson('{"cached":true,"n":[1,2,3]}'),
    },
    {
      // whether the call was stopped before its handler ran (its request already abandoned)
      name: 'stopped',
      paramsSchema: { type: 'object' },
      handler: (_params, _ctx, { signal }) => signal.aborted,
    },
    {
      name: 'noop',
      paramsSchema: { type: 'object' },
      handler: () => { count('noop'); return null; },
    },
  ];
}

export interface TestServer {
  server: HttpServer;
  port: number;
  probe: Probe;
  metrics: Metrics;
  config: Config;
  close(): Promise<void>;
}

export async function startServer(overrides: Partial<Config> = {}, extra: {
  registerRoutes?: (app: FastifyInstance) => void | Promise<void>;
  maxBatchSize?: number;
  methods?: Method[];
} = {}): Promise<TestServer> {
  const config: Config = {
    ...defaultConfig,
    endpoint: '127.0.0.1:0',
    logLevel: 'info',
    methodQueueLimits: { default: 1000, block: 2 },
    methodMaxDurations: { default: 5, slow: 0.2 },
    ...overrides,
  };
  const probe: Probe = { calls: {}, aborted: [], blocked: [], logs: [] };
  const sink: LogSink = { write: (s: string) => { probe.logs.push(s); } };
  const logger = createLogger(config, sink);
  const metrics = createMetrics({ processWide: false });
  const ctx = { config } as unknown as MethodContext;
  const server = createHttpServer({
    config, logger, metrics, ctx,
    methods: extra.methods ?? testMethods(probe),
    registerRoutes: extra.registerRoutes,
    maxBatchSize: extra.maxBatchSize,
  });
  const { port } = await server.listen();
  return {
    server, port, probe, metrics, config,
    async close() {
      for (const r of probe.blocked.splice(0)) r('released');
      await server.close();
    },
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One HTTP request; `body` as given (string) or JSON-encoded (anything else). */
export function request(port: number, opts: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: unknown;
} = {}): Promise<RawResponse> {
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** POST a JSON-RPC body; returns the status and the parsed JSON (undefined when empty). */
export async function rpc(port: number, body: unknown, path = '/'): Promise<{ status: number; json: unknown; text: string; headers: http.IncomingHttpHeaders }> {
  const r = await request(port, { body, path });
  return { status: r.status, json: r.text === '' ? undefined : JSON.parse(r.text), text: r.text, headers: r.headers };
}

/** A plain successful call: proves the server still answers. */
export async function assertAlive(port: number): Promise<void> {
  const r = await rpc(port, { jsonrpc: '2.0', id: 'alive', method: 'echo', params: { a: 1 } });
  if (r.status !== 200 || r.text !== '{"jsonrpc":"2.0","id":"alive","result":{"a":1}}') {
    throw new Error(`server not serving: ${r.status} ${r.text}`);
  }
}
