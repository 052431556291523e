// A JSON-RPC POST, answered on node's request and response themselves (the behaviour is described in
// httpServer.ts, which routes the POSTs here). Fastify's routing, request and reply objects and hook
// runs cost about a third of a small cached answer's time, and none of them does anything for a POST
// to a JSON-RPC path, so these answers are written as fastify wrote them (the same status lines,
// headers in the same order, bodies) without it.
// Buffer and performance imported: Node's globals of those names are getters, called at each use.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ConnectionGuard } from './connectionGuard.ts';
import { Abandonment } from '../rpc/callScope.ts';
import type { Answer, Dispatcher } from '../rpc/jsonrpc.ts';
import type { JsonChunks } from '../rpc/rawJson.ts';
import { type GlobalGate, TIMED_OUT, processingLimitError, withTimeout } from '../rpc/limits.ts';
import { parseRequestBody } from './requestBody.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { AnswerCompression } from './answerCompression.ts';

/** How long a large answer is written before the event loop gets a turn. */
const WRITE_SLICE_MS = 1;
/** Answers from this size on are written piece by piece. */
const STREAM_FROM_BYTES = 64 * 1024;

const TEXT_PLAIN = 'text/plain; charset=utf-8';
/** What fastify made of our `application/json` for a text body. */
const JSON_UTF8 = 'application/json; charset=utf-8';
const ACCEPT_POST = 'application/json';

export interface RpcPostOptions {
  dispatcher: Dispatcher;
  logger: Logger;
  metrics?: Metrics;
  connections: ConnectionGuard;
  global: GlobalGate;
  /** Longest request body, bytes. */
  bodyLimit: number;
  /** Large answers go out compressed when the client accepts it. */
  compression: AnswerCompression;
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

/** The CORS headers of an actual (non-preflight) request, which every answer here starts with. */
function corsHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const origin = req.headers.origin;
  return origin === undefined ? { vary: 'Origin' } : { vary: 'Origin', 'access-control-allow-origin': origin };
}

/**
 * The last small body measured: a cached answer (RawJson.answer) is the same string request after
 * request. Only small ones are kept, so that no large answer stays in memory past its request.
 */
let lastBody = '';
let lastBodyBytes = 0;
const REMEMBERED_BODY_CHARS = 16 * 1024;

/** UTF-8 length of `body`. */
function byteLengthOf(body: string): number {
  if (body.length > REMEMBERED_BODY_CHARS) return Buffer.byteLength(body);
  if (body !== lastBody) {
    lastBodyBytes = Buffer.byteLength(body);
    lastBody = body;
  }
  return lastBodyBytes;
}

/** An answer with a body (a text one: Content-Length is its UTF-8 length), or without (Content-Length 0, none for 204). */
function send(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body?: string): void {
  if (body !== undefined) headers['content-length'] = byteLengthOf(body);
  else if (status !== 204) headers['content-length'] = '0';
  res.writeHead(status, headers);
  res.end(body);
}

function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  const headers = corsHeaders(req);
  headers['content-type'] = TEXT_PLAIN;
  headers['x-content-type-options'] = 'nosniff';
  headers['accept-post'] = ACCEPT_POST;
  send(res, status, headers, text);
}

/** The handler of JSON-RPC POSTs. */
export function rpcPostHandler(options: RpcPostOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { dispatcher, logger, metrics, connections, global, bodyLimit, compression } = options;

  function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
    if (answer === null) {
      const headers = corsHeaders(req);
      headers['accept-post'] = ACCEPT_POST;
      send(res, 204, headers);
      return;
    }
    const headers = corsHeaders(req);
    headers['accept-post'] = ACCEPT_POST;
    // answers of 4 KiB and more, to clients that accept zstd or gzip (headers gain Vary either way)
    if (compression.send(req, res, headers, answer)) return;
    if (typeof answer !== 'string') {
      // a small one (getTransaction's) goes out whole, in one write with a Content-Length
      if (answer.bytes > STREAM_FROM_BYTES) {
        streamAnswer(res, headers, answer);
        return;
      }
      answer = answer.text();
    }
    // a small answer fits the socket's buffers at once; a large one is accounted until delivered
    if (answer.length > STREAM_FROM_BYTES) connections.track(res, answer.length);
    headers['content-type'] = JSON_UTF8;
    // A string body goes out in one write with the headers (a Buffer would take a writev).
    send(res, 200, headers, answer);
  }

  /**
   * Writes a page's answer piece by piece (chunked transfer encoding), a few milliseconds of writing
   * per turn of the event loop, and waits while the client's socket is backed up.
   */
  function streamAnswer(res: ServerResponse, headers: OutgoingHttpHeaders, answer: JsonChunks): void {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value!);
    res.writeHead(200, { 'content-type': 'application/json' });
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

  function failed(req: IncomingMessage, res: ServerResponse, err: unknown, message: string): void {
    logger.error({ err }, message);
    if (!res.headersSent) sendText(req, res, 500, 'internal error\n');
  }

  function answerBody(req: IncomingMessage, res: ServerResponse, text: string): void {
    let answer: Answer | Promise<Answer>;
    // Fires at the global time limit or when the client goes away: the handlers stop working.
    const abandon = new Abandonment();
    try {
      const parsed = parseRequestBody(text);
      if (parsed === undefined) {
        global.exit();
        const headers = corsHeaders(req);
        headers['accept-post'] = ACCEPT_POST;
        headers['content-type'] = TEXT_PLAIN;
        send(res, 500, headers, '[-32700] invalid request value\n');
        return;
      }
      answer = dispatcher.handle(parsed.value, { abandonment: abandon, idTexts: parsed.idTexts, caller: req.headers, client: connections.clientOf(req.socket) });
      if (!(answer instanceof Promise)) {
        global.exit();
        sendAnswer(req, res, answer);
        return;
      }
    } catch (err) {
      global.exit();
      failed(req, res, err, 'JSON-RPC HTTP request failed');
      return;
    }
    const start = performance.now();
    res.once('close', () => { if (!res.writableFinished) abandon.abandon(processingLimitError()); });
    withTimeout(answer, global.maxDurationMs, () => {
      abandon.abandon(processingLimitError());
      metrics?.globalLimitReached();
      logger.info({ subsys: 'jsonrpc' }, `Request processing for ${req.url} exceed limiting threshold of ${global.maxDurationMs / 1000}s`);
    }).then(
      (settled) => {
        global.exit();
        if (settled === TIMED_OUT) {
          send(res, 504, corsHeaders(req));
          return;
        }
        const ms = performance.now() - start;
        if (ms > global.warnMs) {
          metrics?.globalWarning();
          logger.info({ subsys: 'jsonrpc' }, `Request processing for ${req.url} exceed warning threshold of ${global.warnMs / 1000}s`);
        }
        sendAnswer(req, res, settled);
      },
      (err: unknown) => {
        global.exit();
        failed(req, res, err, 'JSON-RPC HTTP request failed');
      },
    );
  }

  function serve(req: IncomingMessage, res: ServerResponse): void {
    // unread answers refuse calls in the dispatcher, by method and client (rpc/answerBacklog.ts)
    if (!global.enter()) {
      send(res, 503, corsHeaders(req));
      return;
    }
    const problem = contentTypeProblem(req.headers['content-type']);
    if (problem !== undefined) {
      global.exit();
      sendText(req, res, 415, problem + '\n');
      return;
    }
    readBody(req, bodyLimit, (text) => {
      if (text === undefined) { // client went away
        global.exit();
        return;
      }
      if (text === TOO_LARGE) {
        global.exit();
        sendText(req, res, 500, 'http: request body too large\n');
        return;
      }
      answerBody(req, res, text);
    });
  }

  return (req, res) => {
    try {
      serve(req, res);
    } catch (err) { // as the route's error handler did
      failed(req, res, err, 'JSON-RPC HTTP route error');
    }
  };
}
