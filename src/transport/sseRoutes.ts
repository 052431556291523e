// Server-Sent Events: the subscriptions of the WebSocket transport as plain HTTP GETs, for browsers'
// EventSource and curl. `GET /stream/<kind>?<params>` opens one subscription of that kind (the
// subscribe params as query parameters; `filters` is the getEvents filters as URL-encoded JSON) and
// answers `text/event-stream`, one event per item: `id: <item id>`, `event: <kind>`, `data: <item>`.
// A `Last-Event-ID` header (what EventSource sends when it reconnects) replaces the URL's start, so
// a reconnect resumes after the last item received, with no gap and no duplicate.
//
// The hub decides what to send; this file only frames, queues and ends. The rules are the
// WebSocket transport's: the same flow control and limits (a stream too slow for them is ended once,
// with its resume point in the close event: its client resumes from its last id), the same connection cap (--max-websocket-connections, counted separately; a stream's
// connection leaves the HTTP connection count, as an upgraded one does), and a shutdown ends every
// stream. Bad params are refused before the stream starts, with HTTP 400 and the
// JSON-RPC error the subscribe method would give (`{"code":-32602,"message":...}`).
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import type { ConnectionGuard } from './connectionGuard.ts';
import { ErrorCode, RpcError } from '../rpc/errors.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { SubscriptionHub } from '../stream/subscriptionHub.ts';
import {
  CloseCode, SSE_EVENT_TAIL, sseEventHead, STREAM_KINDS,
  type DroppedSubscription, type StreamKindName, type StreamNotification, type StreamSink,
} from '../stream/streamSink.ts';

/**
 * How long a stream closed as too slow keeps what it holds for its client to read up to the close
 * event, before its connection is dropped (the WebSocket transport's grace, too).
 */
const CLOSE_GRACE_MS = 30_000;

/** Comment lines keep proxies and clients from taking a quiet stream for a dead one. */
const HEARTBEAT_MS = 15_000;
const HEARTBEAT = ': ping\n\n';

/** The query parameters a stream takes; any other is refused, so a misspelt start is not silently ignored. */
const QUERY_PARAMS: ReadonlySet<string> = new Set(['startLedger', 'cursor', 'xdrFormat', 'account', 'hash', 'filters']);

export interface SseOptions {
  hub: SubscriptionHub;
  config: Pick<Config, 'maxWebsocketConnections'>;
  metrics?: Metrics;
  /** The HTTP connection count, which a stream's connection leaves (as a WebSocket's does). */
  connections?: ConnectionGuard;
}

/** A bad request: HTTP 400 with this JSON-RPC-style error. */
class BadStream extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The subscribe params of a request: the query's parameters (integers where the param is one), the
 * kind from the path, and Last-Event-ID as the cursor (in place of the URL's own start).
 */
export function streamParams(kind: string, query: Record<string, unknown>, lastEventId: string | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = { kind };
  for (const [name, value] of Object.entries(query)) {
    if (!QUERY_PARAMS.has(name)) {
      throw new BadStream(ErrorCode.invalidParams, `unknown query parameter ${JSON.stringify(name)} (known: ${[...QUERY_PARAMS].join(', ')})`);
    }
    if (typeof value !== 'string') throw new BadStream(ErrorCode.invalidParams, `query parameter ${name} given more than once`);
    params[name] = value;
  }
  // a decimal startLedger is the number the subscribe schema wants; anything else goes on as text
  // for the schema to refuse with its own message
  if (typeof params.startLedger === 'string' && /^[0-9]{1,10}$/.test(params.startLedger)) params.startLedger = Number(params.startLedger);
  if (typeof params.filters === 'string') {
    try {
      params.filters = JSON.parse(params.filters);
    } catch (e) {
      throw new BadStream(ErrorCode.invalidParams, `filters must be the JSON array of getEvents filters: ${(e as Error).message}`);
    }
  }
  if (lastEventId !== undefined && lastEventId !== '') {
    delete params.startLedger;
    params.cursor = lastEventId;
  }
  return params;
}

/** One open stream: the hub's sink over an HTTP response. */
class SseSink implements StreamSink {
  readonly transport = 'sse' as const;
  private readonly res: ServerResponse;
  private ended = false;

  constructor(res: ServerResponse) { this.res = res; }

  send(note: StreamNotification): number {
    if (this.ended) return 0;
    // the item's shared bytes as they are, between its id and kind lines and the blank line
    const head = sseEventHead(note);
    this.res.write(head);
    this.res.write(note.item);
    this.res.write(SSE_EVENT_TAIL);
    return head.length + note.item.length + SSE_EVENT_TAIL.length;
  }

  // the socket's, not the response's: a response corked when it ends (a `transaction` stream's last
  // event) drops what was written since the cork
  cork(): void { this.res.socket?.cork(); }
  uncork(): void { this.res.socket?.uncork(); }

  /** What the response and its socket hold unsent. */
  get bufferedBytes(): number { return this.ended && this.res.destroyed ? 0 : this.res.writableLength; }

  heartbeat(): void {
    // a client that does not read gets no more bytes queued by the heartbeat
    if (!this.ended && this.res.writableLength === 0) this.res.write(HEARTBEAT);
  }

  close(code: number, reason: string, dropped?: readonly DroppedSubscription[]): void {
    if (this.ended) return;
    this.ended = true;
    // an event the client may listen for (EventSource: addEventListener('close', ...)), then the end;
    // a client too slow for the stream finds where it resumes there (its Last-Event-ID, too)
    const resume = dropped?.[0]?.resume;
    this.res.end(`event: close\ndata: ${JSON.stringify(resume === undefined ? { code, reason } : { code, reason, resume })}\n\n`);
    if (code === CloseCode.tooSlow) {
      // a client that does not read it soon loses the connection, and what it holds
      const timer = setTimeout(() => this.res.destroy(), CLOSE_GRACE_MS);
      timer.unref();
      this.res.once('close', () => clearTimeout(timer));
    }
  }

  terminate(): void {
    this.ended = true;
    this.res.destroy();
  }

  /** The subscription ended by itself (`transaction` delivered its result): so does the stream. */
  subscriptionEnded(_id: string, final: boolean): void {
    if (this.ended || !final) return;
    this.ended = true;
    this.res.end();
  }
}

/** The SSE transport: its routes, its open streams, their heartbeats. */
export class SseStreams {
  private readonly hub: SubscriptionHub;
  private readonly maxStreams: number;
  private readonly metrics: Metrics | undefined;
  private readonly connections: ConnectionGuard | undefined;
  private readonly streams = new Set<SseSink>();
  private heartbeats: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: SseOptions) {
    this.hub = options.hub;
    this.maxStreams = options.config.maxWebsocketConnections;
    this.metrics = options.metrics;
    this.connections = options.connections;
  }

  /** Streams open now (the stream connections gauge, transport=sse). */
  get open(): number { return this.streams.size; }

  /** Mounts GET /stream/<kind> on `app` (a context with the CORS of the other GET routes). */
  register(app: FastifyInstance): void {
    app.get('/stream/:kind', (request, reply) => { this.serve(request, reply); });
    // before the server waits for its connections: a stream never ends by itself
    app.addHook('preClose', (done) => { this.close(); done(); });
  }

  /** Ends every stream (shutdown; the hub has usually closed them already, with the same event). */
  close(): void {
    this.closed = true;
    for (const sink of [...this.streams]) sink.close(CloseCode.goingAway, 'node shutting down');
    this.streams.clear();
    this.stopHeartbeats();
  }

  private serve(request: FastifyRequest, reply: FastifyReply): void {
    const kind = (request.params as { kind: string }).kind;
    if (!(STREAM_KINDS as readonly string[]).includes(kind)) {
      this.refuse(reply, 400, ErrorCode.invalidParams, `unknown subscription kind ${JSON.stringify(kind)}: ${STREAM_KINDS.join(', ')}`);
      return;
    }
    const lastEventId = headerText(request.headers['last-event-id']);
    if ((kind as StreamKindName) === 'transaction' && lastEventId !== undefined && lastEventId !== '') {
      // the one result was received: 204 is how a server tells an EventSource not to reconnect
      reply.code(204).send();
      return;
    }
    if (this.closed) {
      this.refuse(reply, 503, ErrorCode.internalError, 'the node is shutting down');
      return;
    }
    if (this.maxStreams > 0 && this.streams.size >= this.maxStreams) {
      this.metrics?.streamSubscriberDropped('limit');
      this.refuse(reply, 503, ErrorCode.internalError, `too many open streams (limit ${this.maxStreams})`);
      return;
    }
    let params: Record<string, unknown>;
    try {
      params = streamParams(kind, request.query as Record<string, unknown>, lastEventId);
    } catch (e) {
      const bad = e as BadStream;
      this.refuse(reply, 400, bad.code, bad.message);
      return;
    }

    const res = reply.raw;
    const sink = new SseSink(res);
    try {
      // validates before anything is written; the first item comes after a turn of the event loop
      this.hub.subscribe(sink, params);
    } catch (e) {
      if (!(e instanceof RpcError)) throw e; // fastify's error handler answers 500
      this.refuse(reply, e.code === ErrorCode.invalidParams ? 400 : 503, e.code, e.message);
      return;
    }
    reply.hijack();
    // the CORS headers set so far, then the stream's own
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no', // a proxy (nginx) must pass events on as they come
      // the connection ends with the stream, so it can leave the HTTP connections for good: streams
      // are capped by their own limit and do not crowd out JSON-RPC clients
      connection: 'close',
    });
    res.flushHeaders();
    if (res.socket !== null) this.connections?.handOver(res.socket);
    this.streams.add(sink);
    this.startHeartbeats();
    const gone = (): void => {
      if (!this.streams.delete(sink)) return;
      this.hub.dropSink(sink);
      if (this.streams.size === 0) this.stopHeartbeats();
    };
    res.once('close', gone);
    if (res.socket === null || res.socket.destroyed) gone(); // the client left before the stream began
  }

  private refuse(reply: FastifyReply, status: number, code: number, message: string): void {
    reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ code, message }));
  }

  /** One timer for every stream: a stream costs no timer of its own. */
  private startHeartbeats(): void {
    if (this.heartbeats !== undefined) return;
    this.heartbeats = setInterval(() => { for (const sink of this.streams) sink.heartbeat(); }, HEARTBEAT_MS);
    this.heartbeats.unref();
  }

  private stopHeartbeats(): void {
    if (this.heartbeats === undefined) return;
    clearInterval(this.heartbeats);
    this.heartbeats = undefined;
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
