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
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyCors from '@fastify/cors';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { ConnectionGuard, CHECK_INTERVAL_MS } from './connectionGuard.ts';
import { AnswerCompression } from './answerCompression.ts';
import { Abandonment } from '../rpc/callScope.ts';
import { Dispatcher, type Answer } from '../rpc/jsonrpc.ts';
import type { JsonChunks } from '../rpc/rawJson.ts';
import { GlobalGate, TIMED_OUT, processingLimitError, withTimeout } from '../rpc/limits.ts';
import { parseRequestBody } from './requestBody.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { Method, MethodContext } from '../rpc/methods/types.ts';

export const DEFAULT_RPC_PATHS: readonly string[] = ['/', '/rpc', '/rpc/', '/soroban/rpc', '/soroban/rpc/'];

/** How long a large answer is written before the event loop gets a turn. */
const WRITE_SLICE_MS = 1;
/** Answers from this size on are written piece by piece. */
const STREAM_FROM_BYTES = 64 * 1024;
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

const TOO_LARGE: unique symbol = Symbol('too large');

/**
 * Reads the whole request body: `done` gets its text, TOO_LARGE once it passes `limit` bytes (the
 * rest is discarded), or undefined if the request failed (client gone).
 */
function readBody(raw: IncomingMessage, limit: number, done: (text: string | typeof TOO_LARGE | undefined) => void): void {
  const declared = raw.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    done(TOO_LARGE);
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let finished = false;
  function onData(chunk: Buffer): void {
    total += chunk.length;
    if (total > limit) {
      raw.removeListener('data', onData);
      raw.resume();
      if (!finished) { finished = true; done(TOO_LARGE); }
      return;
    }
    chunks.push(chunk);
  }
  raw.on('data', onData);
  raw.on('end', () => {
    if (finished) return;
    finished = true;
    done(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, total).toString('utf8'));
  });
  raw.on('error', () => {
    if (finished) return;
    finished = true;
    done(undefined);
  });
}

/** jhttp's check, via Go's mime.ParseMediaType: undefined when acceptable, else the 415 text. */
export function contentTypeProblem(header: string | undefined): string | undefined {
  if (header === 'application/json') return undefined;
  if (header === undefined) return 'content-type must be application/json';
  const parts = header.split(';');
  if (parts[0].trim().toLowerCase() !== 'application/json') return 'content-type must be application/json';
  for (let i = 1; i < parts.length; i++) {
    const eq = parts[i].indexOf('=');
    if (eq < 0) continue;
    if (parts[i].slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    let v = parts[i].slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    // The reference compares case-sensitively (so "UTF-8" fails there); we accept any case.
    v = v.toLowerCase();
    if (v !== 'utf-8' && v !== 'utf8') return 'invalid content-type charset';
  }
  return undefined;
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
  connections.attach(app.server);
  const compression = new AnswerCompression({ enabled: config.httpCompression, connections, logger });

  function sendAnswer(reply: FastifyReply, answer: Answer): void {
    if (answer === null) {
      reply.code(204).header('accept-post', 'application/json').send();
      return;
    }
    // answers of 4 KiB and more, to clients that accept zstd or gzip
    if (compression.send(reply, answer)) return;
    if (typeof answer !== 'string') {
      // a small one (getTransaction's) goes out whole, in one write with a Content-Length
      if (answer.bytes > STREAM_FROM_BYTES) {
        streamAnswer(reply, answer);
        return;
      }
      answer = answer.text();
    }
    // a small answer fits the socket's buffers at once; a large one is accounted until delivered
    if (answer.length > STREAM_FROM_BYTES) connections.track(reply.raw, answer.length);
    // A string body goes out in one write with the headers (a Buffer would take a writev).
    reply.header('accept-post', 'application/json').header('content-type', 'application/json').send(answer);
  }

  /**
   * Writes a page's answer piece by piece (chunked transfer encoding), a few milliseconds of writing
   * per turn of the event loop, and waits while the client's socket is backed up.
   */
  function streamAnswer(reply: FastifyReply, answer: JsonChunks): void {
    reply.hijack();
    const res = reply.raw;
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
    res.writeHead(200, { 'accept-post': 'application/json', 'content-type': 'application/json' });
    connections.track(res, answer.bytes);
    const parts = answer.parts;
    let i = 0;
    const writeSome = (): void => {
      const until = performance.now() + WRITE_SLICE_MS;
      while (i < parts.length) {
        if (res.destroyed) return;
        if (!res.write(parts[i++])) {
          res.once('drain', writeSome);
          return;
        }
        if (performance.now() >= until) {
          setImmediate(writeSome);
          return;
        }
      }
      res.end();
    };
    writeSome();
  }

  function failed(reply: FastifyReply, err: unknown): void {
    logger.error({ err }, 'JSON-RPC HTTP request failed');
    if (!reply.sent) sendText(reply, 500, 'internal error\n');
  }

  /**
   * Answers a JSON-RPC POST. It runs as the route's onRequest hook and replies from there (a
   * documented fastify pattern), so the request skips fastify's body-parsing stage, which costs
   * about a tenth of a cached call; the body is read (and capped) here instead.
   */
  function servePost(request: FastifyRequest, reply: FastifyReply): void {
    cors(request, reply);
    if (!connections.admits() || !global.enter()) {
      reply.code(503).send();
      return;
    }
    const problem = contentTypeProblem(request.headers['content-type']);
    if (problem !== undefined) {
      global.exit();
      sendText(reply, 415, problem + '\n');
      return;
    }
    readBody(request.raw, bodyLimit, (text) => {
      if (text === undefined) { // client went away
        global.exit();
        return;
      }
      if (text === TOO_LARGE) {
        global.exit();
        sendText(reply, 500, 'http: request body too large\n');
        return;
      }
      let answer: Answer | Promise<Answer>;
      // Fires at the global time limit or when the client goes away: the handlers stop working.
      const abandon = new Abandonment();
      try {
        const parsed = parseRequestBody(text);
        if (parsed === undefined) {
          global.exit();
          reply.header('accept-post', 'application/json').code(500).header('content-type', TEXT_PLAIN).send('[-32700] invalid request value\n');
          return;
        }
        answer = dispatcher.handle(parsed.value, { abandonment: abandon, idTexts: parsed.idTexts, caller: request.headers });
        if (!(answer instanceof Promise)) {
          global.exit();
          sendAnswer(reply, answer);
          return;
        }
      } catch (err) {
        global.exit();
        failed(reply, err);
        return;
      }
      const start = performance.now();
      reply.raw.once('close', () => { if (!reply.raw.writableFinished) abandon.abandon(processingLimitError()); });
      withTimeout(answer, global.maxDurationMs, () => {
        abandon.abandon(processingLimitError());
        metrics?.globalLimitReached();
        logger.info({ subsys: 'jsonrpc' }, `Request processing for ${request.url} exceed limiting threshold of ${global.maxDurationMs / 1000}s`);
      }).then(
        (settled) => {
          global.exit();
          if (settled === TIMED_OUT) {
            reply.code(504).send();
            return;
          }
          const ms = performance.now() - start;
          if (ms > global.warnMs) {
            metrics?.globalWarning();
            logger.info({ subsys: 'jsonrpc' }, `Request processing for ${request.url} exceed warning threshold of ${global.warnMs / 1000}s`);
          }
          sendAnswer(reply, settled);
        },
        (err: unknown) => {
          global.exit();
          failed(reply, err);
        },
      );
    });
  }

  function onOtherMethod(request: FastifyRequest, reply: FastifyReply): void {
    cors(request, reply);
    reply.code(405).header('accept-post', 'application/json').send();
  }

  const paths = options.rpcPaths ?? DEFAULT_RPC_PATHS;

  // JSON-RPC routes. POST is answered by servePost in onRequest; the handler is never reached.
  void app.register(async (rpc) => {
    rpc.setErrorHandler((err, _request, reply) => {
      logger.error({ err }, 'JSON-RPC HTTP route error');
      sendText(reply, 500, 'internal error\n');
    });
    for (const url of paths) {
      rpc.route({
        method: 'POST',
        url,
        onRequest: (request, reply) => { servePost(request, reply); },
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

  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).header('content-type', TEXT_PLAIN).header('x-content-type-options', 'nosniff').send('404 page not found\n');
  });

  let closing: Promise<void> | undefined;

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
      closing ??= (async () => {
        const timer = setTimeout(() => { app.server.closeAllConnections(); }, SHUTDOWN_GRACE_MS);
        timer.unref();
        try {
          await app.close();
        } finally {
          clearTimeout(timer);
        }
      })();
      return closing;
    },
  };
}
