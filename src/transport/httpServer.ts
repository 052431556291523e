// The JSON-RPC HTTP endpoint. Behaviour follows the reference node's stack, outermost
// first: CORS (any origin, echoed) -> 512 KiB body cap -> global time limit (HTTP 504, empty) ->
// global concurrency cap (HTTP 503, empty) -> jrpc2's jhttp bridge:
//   - only POST: other methods get 405 with `Accept-Post: application/json` and no body;
//   - Content-Type must be application/json (charset, if any, utf-8/utf8): else 415 text/plain
//     "content-type must be application/json" (or "invalid content-type charset");
//   - a body over the cap: HTTP 500 text/plain "http: request body too large" (Go's MaxBytesReader
//     error surfacing through the bridge's generic 500);
//   - a body that is not JSON: HTTP 500 text/plain "[-32700] invalid request value";
//   - nothing to answer (notifications only, empty batch): 204; everything else 200, JSON-RPC
//     errors included. Every bridge answer carries `Accept-Post: application/json`, as jhttp's does.
// The JSON-RPC paths are `/` plus `/rpc` and `/soroban/rpc` (with or without a trailing slash),
// which JS SDK users commonly configure; the reference serves only `/`. Other paths answer 404
// "404 page not found" as the reference's router does, unless `registerRoutes` mounts them.
// OPTIONS on any path is a CORS preflight: 204 with Allow-Origin (echo), Allow-Methods and
// Allow-Headers (the requested ones echoed, so X-Client-Name / X-Client-Version / Content-Type pass).
// A preflight carries no body, so it cannot tell a developer method from a reference one: it is
// answered for every origin, and the request's Origin and Host go to the dispatcher, whose
// CallerPolicy refuses a developer method from a page it does not trust (rpc/callerPolicy.ts).
//
// Beyond the reference (one event loop serves everyone here, where Go gives each request a
// goroutine): a body nested deeper than Go's decoder accepts is "not JSON"; numeric ids are echoed
// as sent; a request is abandoned (its handlers' signals fire) at the global time limit or when its
// client goes away; connections are capped and timed out, and answers not taken by clients are
// bounded (connectionGuard.ts).
//
// The POSTs themselves are answered by rpcPost.ts on node's request and response, without fastify.
// Fastify, for everything else (webRoutes.ts), is built at the first request for one of its routes:
// building it (its modules, plugins and routes: about 30 ms) was a tenth of a fresh node's time to
// its first answer, which JSON-RPC does not need. Requests that come while it is built wait for it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { ConnectionGuard, CHECK_INTERVAL_MS } from './connectionGuard.ts';
import { Dispatcher } from '../rpc/jsonrpc.ts';
import { GlobalGate } from '../rpc/limits.ts';
import { rpcPostHandler } from './rpcPost.ts';
import { AnswerCompression } from './answerCompression.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { Method, MethodContext } from '../rpc/methods/types.ts';
import type { WebRoutes } from './webRoutes.ts';

export { contentTypeProblem } from './rpcPost.ts';

// Not `import ... from 'node:http'` (see adminServer.ts): its lazy exports would load undici.
const { createServer } = process.getBuiltinModule('node:http');

export const DEFAULT_RPC_PATHS: readonly string[] = ['/', '/rpc', '/rpc/', '/soroban/rpc', '/soroban/rpc/'];

/** The reference's graceful-shutdown window. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface HttpServerOptions {
  config: Config;
  /** The node's dispatcher (shared with the other transports); else one is built from `methods` and `ctx`. */
  dispatcher?: Dispatcher;
  methods?: readonly Method[];
  ctx?: MethodContext;
  logger: Logger;
  metrics?: Metrics;
  /**
   * Mounts extra routes (e.g. the faucet at /friendbot). `app` is a plugin context with CORS and
   * fastify's default body parsers (JSON, text; limit = maxRequestBodyBytes).
   */
  registerRoutes?: (app: FastifyInstance) => void | Promise<void>;
  /** Where JSON-RPC is served (default DEFAULT_RPC_PATHS). */
  rpcPaths?: readonly string[];
  /** Longest batch accepted (default 1000). */
  maxBatchSize?: number;
  /** The connection and unread-answer limits (default: from config). */
  connections?: ConnectionGuard;
}

export interface HttpServer {
  /** Binds `config.endpoint` (host:port; port 0 picks one) and resolves to the bound address. */
  listen(): Promise<{ host: string; port: number }>;
  /** Stops accepting, lets in-flight requests finish (10 s at most), then closes. */
  close(): Promise<void>;
  /** The server JSON-RPC is served on (the first of a name's addresses, see listen). */
  readonly server: Server;
  /**
   * Settles, with the error, when the routes besides the JSON-RPC POSTs (fastify, built at the first
   * request for one) cannot be built: the node cannot go on. Never otherwise.
   */
  readonly routesFailure: Promise<Error>;
  readonly dispatcher: Dispatcher;
  readonly connections: ConnectionGuard;
}

/** A request target's path: up to its query string. */
const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/** Splits "host:port" / "[v6]:port" / ":port" (empty host = all interfaces). */
export function parseEndpoint(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  if (i < 0) throw new Error(`endpoint ${JSON.stringify(endpoint)} must be host:port`);
  let host = endpoint.slice(0, i);
  const portText = endpoint.slice(i + 1);
  const port = Number(portText);
  if (portText === '' || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port in endpoint ${JSON.stringify(endpoint)}`);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === '') host = '0.0.0.0';
  return { host, port };
}

function bind(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The other addresses of a name (localhost: ::1 next to 127.0.0.1); none when it cannot be looked up. */
function otherAddresses(host: string, bound: string): Promise<string[]> {
  return new Promise((resolve) => {
    process.getBuiltinModule('node:dns').lookup(host, { all: true }, (err, addresses) => {
      resolve(err ? [] : addresses.map((a) => a.address).filter((a) => a !== bound));
    });
  });
}

function answerText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(text);
}

/** Fastify's answer while it closes (return503OnClosing), for the requests of a server that never built it. */
const CLOSING_BODY = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';
function closingAnswer(res: ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json', 'content-length': String(CLOSING_BODY.length) }).end(CLOSING_BODY);
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { config, logger, metrics } = options;
  if (!options.dispatcher && !options.ctx) throw new Error('createHttpServer needs a dispatcher or a method context');
  const dispatcher = options.dispatcher ?? new Dispatcher({
    methods: options.methods ?? [],
    ctx: options.ctx as MethodContext,
    logger,
    metrics,
    limits: config,
    maxBatchSize: options.maxBatchSize,
  });
  const global = GlobalGate.fromConfig(config);
  metrics?.registerGlobalInflight(() => global.inflight);
  const bodyLimit = config.maxRequestBodyBytes;
  const readTimeoutMs = Math.max(1, config.httpReadTimeout * 1000);
  const keepAliveTimeoutMs = Math.max(1, config.httpIdleTimeout * 1000);
  const connections = options.connections ?? ConnectionGuard.fromConfig(config);
  const compression = new AnswerCompression({ enabled: config.httpCompression, connections, logger });
  const servePost = rpcPostHandler({ dispatcher, logger, metrics, connections, global, bodyLimit, compression });
  const paths = options.rpcPaths ?? DEFAULT_RPC_PATHS;
  const rpcPathSet = new Set(paths);
  let closing = false;

  // fastify's routes (webRoutes.ts) once built; the requests for them that came while they were built
  let routes: WebRoutes | undefined;
  let routesFailed = false;
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let routesLoading: Promise<void> | undefined;
  let routesFailedWith!: (e: Error) => void;
  const routesFailure = new Promise<Error>((resolve) => { routesFailedWith = resolve; });

  // POSTs to a JSON-RPC path, spelled exactly as one (a query string aside), go to servePost before
  // fastify sees them; fastify routes the rest (other spellings it normalizes, and every request
  // once the server is closing, which it answers 503).
  function dispatch(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'POST' && !closing && rpcPathSet.has(pathOf(req.url!))) servePost(req, res);
    else if (routes !== undefined) routes.handle(req, res);
    else if (closing && routesLoading === undefined) closingAnswer(res);
    else if (routesFailed) answerText(res, 500, 'internal error\n');
    else {
      waiting.push([req, res]);
      routesLoading ??= loadRoutes();
    }
  }

  /** A server as fastify made its own: the reference's ReadTimeout (5 s) covers headers and body; Go's idle timeout defaults to it. */
  function newServer(): Server {
    const s = createServer({ headersTimeout: readTimeoutMs, requestTimeout: readTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS }, dispatch);
    s.keepAliveTimeout = keepAliveTimeoutMs;
    connections.attach(s);
    return s;
  }
  const server = newServer();
  /** The servers of a name's other addresses. */
  const others: Server[] = [];

  async function loadRoutes(): Promise<void> {
    try {
      const { buildWebRoutes } = await import('./webRoutes.ts');
      routes = await buildWebRoutes({ server, rpcPaths: paths, bodyLimit, logger, servePost, registerRoutes: options.registerRoutes });
    } catch (e) {
      routesFailed = true;
      logger.error({ err: e }, 'the HTTP routes besides JSON-RPC could not be built');
      for (const [, res] of waiting.splice(0)) answerText(res, 500, 'internal error\n');
      routesFailedWith(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    for (const [req, res] of waiting.splice(0)) routes.handle(req, res);
  }

  let closed: Promise<void> | undefined;

  return {
    server,
    routesFailure,
    dispatcher,
    connections,
    async listen() {
      const { host, port } = parseEndpoint(config.endpoint);
      await bind(server, host, port);
      const addr = server.address() as AddressInfo;
      // 'localhost' may name several addresses (127.0.0.1 and ::1): each is served, as fastify's
      // listen did (an address that cannot be bound is left out, as there)
      if (host === 'localhost') {
        for (const address of await otherAddresses(host, addr.address)) {
          const other = newServer();
          try {
            await bind(other, address, addr.port);
          } catch {
            continue;
          }
          other.on('upgrade', (...args: unknown[]) => server.emit('upgrade', ...args));
          others.push(other);
        }
      }
      logger.info({ subsys: 'jsonrpc', addr: `${addr.address}:${addr.port}` }, 'JSON-RPC server listening');
      return { host: addr.address, port: addr.port };
    },
    close() {
      closing = true;
      closed ??= (async () => {
        const servers = [server, ...others];
        const timer = setTimeout(() => { for (const s of servers) s.closeAllConnections(); }, SHUTDOWN_GRACE_MS);
        timer.unref();
        try {
          // fastify's close first (its hooks end the SSE streams; it answers 503 from now on), once built
          await routesLoading;
          await routes?.close();
          // no new connections; idle keep-alive ones are closed now, the others once their answer is out
          await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeIdleConnections();
          })));
        } finally {
          clearTimeout(timer);
        }
      })();
      return closed;
    },
  };
}
