// The routes of the JSON-RPC port other than its POSTs, on fastify: the JSON-RPC paths' other methods
// (405), the POSTs to those paths that fastify normalizes, CORS (@fastify/cors: actual requests and
// the `OPTIONS *` preflights of every path), the routes the node mounts (`registerRoutes`: faucet,
// SSE, /tx) and the 404s. httpServer.ts loads this module at the first request for one of them (see
// there), and fastify is built on its listening server (serverFactory): fastify never listens itself.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyCors from '@fastify/cors';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

export interface WebRoutesOptions {
  /** The listening server the routes answer on; fastify adds its clientError handler to it. */
  server: Server;
  rpcPaths: readonly string[];
  bodyLimit: number;
  logger: Logger;
  /** Answers a JSON-RPC POST (rpcPost.ts). */
  servePost(req: IncomingMessage, res: ServerResponse): void;
  registerRoutes?: (app: FastifyInstance) => void | Promise<void>;
}

export interface WebRoutes {
  readonly app: FastifyInstance;
  /** Answers a request (fastify's handler). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** From now on, every request is answered 503; resolves when fastify's close hooks have run. */
  close(): Promise<void>;
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

/** Builds the routes and resolves once fastify is ready to answer them. */
export async function buildWebRoutes(options: WebRoutesOptions): Promise<WebRoutes> {
  const { logger, servePost } = options;
  let fastifyHandler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit,
    return503OnClosing: true,
    // the server, its timeouts and its closing are httpServer.ts's
    serverFactory: (handler) => {
      fastifyHandler = handler;
      return options.server;
    },
  });
  if (fastifyHandler === undefined) throw new Error('fastify did not take its request handler');
  const handle = fastifyHandler;

  function onOtherMethod(request: FastifyRequest, reply: FastifyReply): void {
    cors(request, reply);
    reply.code(405).header('accept-post', 'application/json').send();
  }

  // JSON-RPC routes. POST is answered by servePost (rpcPost.ts): mostly before fastify routes it (see
  // httpServer.ts), else from onRequest; the handler is never reached.
  void app.register(async (rpc) => {
    rpc.setErrorHandler((err, _request, reply) => {
      logger.error({ err }, 'JSON-RPC HTTP route error');
      sendText(reply, 500, 'internal error\n');
    });
    for (const url of options.rpcPaths) {
      rpc.route({
        method: 'POST',
        url,
        // the POSTs that did not skip fastify: answered the same way, fastify stepping aside
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

  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).header('content-type', TEXT_PLAIN).header('x-content-type-options', 'nosniff').send('404 page not found\n');
  });

  await app.ready();
  return { app, handle, close: () => app.close() };
}
