// The JSON-RPC HTTP endpoint (fastify). Behaviour follows the reference node's stack, outermost
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
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyCors from '@fastify/cors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { ConnectionGuard, CHECK_INTERVAL_MS } from './connectionGuard.ts';
import { Dispatcher } from '../rpc/jsonrpc.ts';
import { GlobalGate } from '../rpc/limits.ts';
import { rpcPostHandler } from './rpcPost.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { Method, MethodContext } from '../rpc/methods/types.ts';

export { contentTypeProblem } from './rpcPost.ts';

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
  readonly app: FastifyInstance;
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

const TEXT_PLAIN = 'text/plain; charset=utf-8';

/**
 * CORS headers of an actual (non-preflight) request on the JSON-RPC paths, set inline: a fastify
 * hook (as @fastify/cors installs) costs about a tenth of a cached request's time.
 */
function cors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  reply.header('vary', 'Origin');
  if (origin !== undefined) reply.header('access-control-allow-origin', origin);
}

function sendText(reply: FastifyReply, status: number, text: string): void {
  reply.code(status)
    .header('content-type', TEXT_PLAIN)
    .header('x-content-type-options', 'nosniff')
    .header('accept-post', 'application/json')
    .send(text);
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
  const connections = options.connections ?? ConnectionGuard.fromConfig(config);

  const app = Fastify({
    logger: false,
    bodyLimit,
    // The reference's ReadTimeout (5 s) covers headers and body; Go's idle timeout defaults to it.
    requestTimeout: readTimeoutMs,
    keepAliveTimeout: Math.max(1, config.httpIdleTimeout * 1000),
    http: { headersTimeout: readTimeoutMs, requestTimeout: readTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // fastify's handler of the server's requests, taken off the server: the dispatch below calls it
  const [fastifyHandler, ...others] = app.server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  if (fastifyHandler === undefined || others.length > 0) throw new Error('fastify\'s server has not one request listener');
  app.server.removeListener('request', fastifyHandler);
  let closing = false;
  connections.attach(app.server);

  const servePost = rpcPostHandler({ dispatcher, logger, metrics, connections, global, bodyLimit });

  function onOtherMethod(request: FastifyRequest, reply: FastifyReply): void {
    cors(request, reply);
    reply.code(405).header('accept-post', 'application/json').send();
  }

  const paths = options.rpcPaths ?? DEFAULT_RPC_PATHS;

  // JSON-RPC routes. POST is answered by servePost (rpcPost.ts): mostly before fastify routes it (see
  // below), else from onRequest; the handler is never reached.
  void app.register(async (rpc) => {
    rpc.setErrorHandler((err, _request, reply) => {
      logger.error({ err }, 'JSON-RPC HTTP route error');
      sendText(reply, 500, 'internal error\n');
    });
    for (const url of paths) {
      rpc.route({
        method: 'POST',
        url,
        // the POSTs that did not skip fastify (see below): answered the same way, fastify stepping aside
        onRequest: (request, reply) => { reply.hijack(); servePost(request.raw, reply.raw); },
        handler: (_request, reply) => { sendText(reply, 500, 'internal error\n'); },
      });
      rpc.route({ method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH'], url, exposeHeadRoute: false, handler: onOtherMethod });
    }
  });

  // Everything else: @fastify/cors (its hook covers the routes of this context; its `OPTIONS *`
  // route answers preflights on every path, the JSON-RPC ones included), then the caller's routes.
  void app.register(async (web) => {
    await web.register(fastifyCors, {
      origin: true,
      methods: ['GET', 'PUT', 'POST', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
      strictPreflight: false,
      optionsSuccessStatus: 204,
    });
    if (options.registerRoutes !== undefined) await options.registerRoutes(web);
  });

  // POSTs to a JSON-RPC path, spelled exactly as one (a query string aside), go to servePost before
  // fastify sees them; fastify routes the rest (other spellings it normalizes, and every request
  // once the server is closing, which it answers 503). Servers fastify adds for a name's other
  // addresses (localhost's ::1 next to 127.0.0.1) route everything through it: the same answers.
  const rpcPathSet = new Set(paths);
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && !closing && rpcPathSet.has(pathOf(req.url!))) servePost(req, res);
    else fastifyHandler(req, res);
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).header('content-type', TEXT_PLAIN).header('x-content-type-options', 'nosniff').send('404 page not found\n');
  });

  let closed: Promise<void> | undefined;

  return {
    app,
    dispatcher,
    connections,
    async listen() {
      const { host, port } = parseEndpoint(config.endpoint);
      await app.listen({ host, port });
      const addr = app.server.address();
      if (addr === null || typeof addr === 'string') return { host, port };
      logger.info({ subsys: 'jsonrpc', addr: `${addr.address}:${addr.port}` }, 'JSON-RPC server listening');
      return { host: addr.address, port: addr.port };
    },
    close() {
      closing = true;
      closed ??= (async () => {
        const timer = setTimeout(() => { app.server.closeAllConnections(); }, SHUTDOWN_GRACE_MS);
        timer.unref();
        try {
          await app.close();
        } finally {
          clearTimeout(timer);
        }
      })();
      return closed;
    },
  };
}
