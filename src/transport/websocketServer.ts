// JSON-RPC over WebSocket, on the RPC port and paths (an HTTP Upgrade on `/`, `/rpc`, ...; any other
// path: 404). Text frames carry JSON-RPC requests (one or a batch) answered by the shared
// Dispatcher, so every method works as over HTTP; `subscribe` / `unsubscribe` act on this
// connection's subscriptions in the hub, whose notifications come as JSON-RPC notifications.
//
// Limits: --max-websocket-connections (over it the Upgrade is answered 503); a frame over
// --max-request-body-bytes is closed with 1009 (ws, from maxPayload); a binary frame with 1003; a
// client that does not keep up with what it asked for (notifications and answers alike go through
// the hub's flow control) with 4001; a ping unanswered by the next one (--websocket-ping-interval)
// with 1008. Shutdown: 1001. A connection's messages are handled one per turn of the event loop
// (ws's allowSynchronousEvents off): one that pipelines thousands of requests takes turns with
// the others instead of holding the loop, and its socket is paused while they wait. Its calls are
// budgeted as its client address's (webSocketClient.ts): the heavy slots' turns and the unread-answer
// share, counted on what the connection holds untaken.
//
// A notification is one WebSocket message sent as three frames: the head naming the subscription
// (the one part that differs per subscriber), the item's bytes as the hub encoded them once for
// every subscriber (sent as they are, never copied), and the tail.
// Per-message compression (permessage-deflate) only with --websocket-permessage-deflate: its coder
// costs each connection that uses it about 100 KiB (an idle connection costs 3.6 KiB, and 10,000 of
// those must fit), and a notification is compressed once per connection, not once for all of them.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import * as wsModule from 'ws';
import type { Config } from '../config/config.ts';
import { Abandonment } from '../rpc/callScope.ts';
import type { ConnectionGuard } from './connectionGuard.ts';
import { clientKey } from './clientAddress.ts';
import { WebSocketClient } from './webSocketClient.ts';
import { ErrorCode } from '../rpc/errors.ts';
import type { CallerHeaders } from '../rpc/callerPolicy.ts';
import { answerText, errorResponseText, type Answer, type Dispatcher } from '../rpc/jsonrpc.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { StreamConnection } from '../rpc/methods/types.ts';
import { parseRequestBody } from './requestBody.ts';
import {
  CloseCode, droppedNotification, FINAL_NOTIFICATION_TAIL, notificationHead, NOTIFICATION_TAIL,
  type DroppedSubscription, type StreamKindName, type StreamNotification, type StreamSink,
} from '../stream/streamSink.ts';
import type { SubscriptionHub } from '../stream/subscriptionHub.ts';

/**
 * How long a closing connection may take to answer our close frame before its socket is dropped
 * (ws's own close timeout): a slow client that reads again in that time still gets its 4001.
 */
const CLOSE_GRACE_MS = 30_000;
/** The same at shutdown, which waits for every connection to be gone. */
const SHUTDOWN_GRACE_MS = 2_000;

/** ws's extension-header parser and permessage-deflate negotiation (exported by ws, not in its types). */
const { extension: wsExtension, PerMessageDeflate } = wsModule as unknown as {
  extension: { parse(header: string): Record<string, unknown[] | undefined> };
  PerMessageDeflate: new (options: object) => { accept(offers: unknown[]): unknown };
};

/**
 * permessage-deflate (RFC 7692, ws's implementation) when --websocket-permessage-deflate is given, for
 * clients that offer it. Bounded:
 *  - messages under 1 KiB go uncompressed (sendText; ws itself would compress every message, as the
 *    context is kept from one to the next): a small answer is not worth a trip to the threadpool,
 *    while an event notification of about 1 KiB shrinks well, its window still holding the previous
 *    ones;
 *  - the server compresses with a 4 KiB window (server_max_window_bits 12) and memLevel 5: 32 KiB of
 *    deflate state a connection instead of zlib's default 256 KiB, kept while the connection lasts
 *    (measured with 1,000 connections, one compressed message each: 104 KiB of RSS a connection in
 *    all, 217 KiB with zlib's defaults);
 *    pubnet ledgers then shrink 3.1x (base64) and 5.5x (JSON) instead of 4.4x and 9x. 12 is also
 *    what Python's `websockets` client asks the server for by default;
 *  - a client that asks the server for a smaller window still (server_max_window_bits under 12),
 *    which ws would answer with HTTP 400, is served uncompressed instead (acceptableOffers);
 *  - a client's compressed requests are decompressed with its own window (at most 32 KiB, held once
 *    it sends one), and their decompressed size stays capped by --max-request-body-bytes (ws closes
 *    with 1009 beyond it);
 *  - at most 4 messages are compressed or decompressed at once across all connections (ws's zlib
 *    limiter), the threadpool's size; the others wait, counted (uncompressed) in the connection's
 *    unsent bytes, so --max-stream-buffer-bytes still closes a connection that falls behind.
 */
const PER_MESSAGE_DEFLATE = {
  serverMaxWindowBits: 12,
  zlibDeflateOptions: { level: 3, memLevel: 5 },
  concurrencyLimit: 4,
} as const;

export interface WebSocketServerOptions {
  /** The HTTP server (fastify's app.server) whose Upgrade requests are taken. */
  server: Server;
  rpcPaths: readonly string[];
  dispatcher: Dispatcher;
  hub: SubscriptionHub;
  config: Pick<Config, 'maxWebsocketConnections' | 'maxRequestBodyBytes' | 'websocketPingInterval' | 'websocketPermessageDeflate'>;
  logger?: Logger;
  metrics?: Metrics;
  /** The HTTP connection count, which an upgraded connection leaves. */
  connections?: ConnectionGuard;
}

export interface WebSocketTransport {
  /** Open WebSocket connections. */
  readonly open: number;
  /** Closes every connection with 1001 and stops taking Upgrades; resolves once they are gone. */
  close(): Promise<void>;
}

/** One connection as the hub sees it. */
class WebSocketSink implements StreamSink {
  readonly transport = 'ws' as const;
  private readonly ws: WebSocket;
  /** The connection's socket (ws writes its frames there): corked while a turn's frames are written. */
  private readonly socket: Duplex;
  /** Each subscription's notification head, made once. */
  private readonly heads = new Map<string, Buffer>();
  constructor(ws: WebSocket, socket: Duplex) {
    this.ws = ws;
    this.socket = socket;
  }

  cork(): void { this.socket.cork(); }
  uncork(): void { this.socket.uncork(); }

  send(note: StreamNotification): number {
    if (this.ws.readyState !== WebSocket.OPEN) return 0;
    const head = this.head(note.subscription, note.kind);
    const tail = note.final ? FINAL_NOTIFICATION_TAIL : NOTIFICATION_TAIL;
    const bytes = head.length + note.item.length + tail.length;
    // one message in three frames: the shared item is written as it is
    const compress = bytes >= COMPRESS_FROM_BYTES;
    this.ws.send(head, { binary: false, fin: false, compress });
    this.ws.send(note.item, { binary: false, fin: false, compress });
    this.ws.send(tail, { binary: false, fin: true, compress });
    return bytes;
  }

  answer(text: string): number {
    if (this.ws.readyState !== WebSocket.OPEN) return 0;
    sendText(this.ws, text);
    return text.length;
  }

  /** Ended at once: what its socket held is freed. */
  private terminated = false;

  get bufferedBytes(): number { return this.terminated ? 0 : this.ws.bufferedAmount; }

  close(code: number, reason: string, dropped?: readonly DroppedSubscription[]): void {
    // after what the socket holds, each subscription's resume point, then the close frame
    if (this.ws.readyState === WebSocket.OPEN && dropped !== undefined && dropped.length > 0) {
      this.cork();
      try {
        for (const d of dropped) sendText(this.ws, droppedNotification(d, code, reason));
      } finally {
        this.uncork();
      }
    }
    closeSoon(this.ws, code, reason);
  }

  terminate(): void {
    this.terminated = true;
    this.ws.terminate();
  }

  subscriptionEnded(id: string): void { this.heads.delete(id); }

  private head(subscription: string, kind: StreamKindName): Buffer {
    let head = this.heads.get(subscription);
    if (head === undefined) {
      head = notificationHead(subscription, kind);
      this.heads.set(subscription, head);
    }
    return head;
  }
}

/** Sends a close frame; a peer that does not complete the closing handshake soon loses the socket. */
function closeSoon(ws: WebSocket, code: number, reason: string, graceMs = CLOSE_GRACE_MS): void {
  if (ws.readyState === WebSocket.CLOSED) return;
  if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, reason);
  // ws waits for the peer's close frame; this bounds it whatever ws's setting
  const timer = setTimeout(() => ws.terminate(), graceMs);
  timer.unref();
  ws.once('close', () => clearTimeout(timer));
}

/**
 * False when the Upgrade's permessage-deflate offers are all ones PER_MESSAGE_DEFLATE cannot take (or
 * unreadable): ws would refuse the whole Upgrade for them, where going on uncompressed serves the
 * client. Checked with ws's own parser and negotiation.
 */
function acceptableOffers(header: string): boolean {
  try {
    const offers = wsExtension.parse(header)['permessage-deflate'];
    if (offers !== undefined) new PerMessageDeflate({ ...PER_MESSAGE_DEFLATE, isServer: true }).accept(offers);
    return true;
  } catch {
    return false;
  }
}

/** Messages from this size on are compressed, when the connection has permessage-deflate. */
const COMPRESS_FROM_BYTES = 1024;

/** Sends a text message, compressed only when large enough to be worth it (and negotiated). */
function sendText(ws: WebSocket, text: string): void {
  ws.send(text, { compress: text.length >= COMPRESS_FROM_BYTES });
}

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
}

export function attachWebSocketServer(options: WebSocketServerOptions): WebSocketTransport {
  const { server, dispatcher, hub, config, logger, metrics, connections } = options;
  const paths = new Set(options.rpcPaths);
  const wss = new WebSocketServer({
    noServer: true, maxPayload: config.maxRequestBodyBytes, clientTracking: true,
    // one message per connection and turn of the event loop (see the top of this file)
    allowSynchronousEvents: false,
    perMessageDeflate: config.websocketPermessageDeflate ? PER_MESSAGE_DEFLATE : false,
  });
  const alive = new WeakMap<WebSocket, boolean>();
  const sinks = new WeakMap<WebSocket, WebSocketSink>();
  let closing = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (!paths.has(path)) {
      refuse(socket, '404 Not Found');
      return;
    }
    if (closing) {
      refuse(socket, '503 Service Unavailable');
      return;
    }
    if (config.maxWebsocketConnections > 0 && wss.clients.size >= config.maxWebsocketConnections) {
      metrics?.streamSubscriberDropped('limit');
      refuse(socket, '503 Service Unavailable');
      return;
    }
    const offered = req.headers['sec-websocket-extensions'];
    if (config.websocketPermessageDeflate && offered !== undefined && !acceptableOffers(offered)) delete req.headers['sec-websocket-extensions'];
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections?.handOver(socket as Socket);
      serve(ws, socket, { origin: req.headers.origin, host: req.headers.host });
    });
  };
  server.on('upgrade', onUpgrade);

  /** `caller`: the Upgrade's Origin and Host, which every call on the connection is judged by. */
  function serve(ws: WebSocket, socket: Duplex, caller: CallerHeaders): void {
    const sink = new WebSocketSink(ws, socket);
    sinks.set(ws, sink);
    /** This connection's subscriptions, for one message: its subscriptions start once its answer is sent. */
    const streamFor = (answered: Promise<void>): StreamConnection => ({
      subscribe: (params) => hub.subscribe(sink, params, answered),
      unsubscribe: (id) => hub.unsubscribe(sink, id),
    });
    // its calls are budgeted per client, as HTTP calls are (webSocketClient.ts)
    const client = new WebSocketClient(clientKey((socket as Socket).remoteAddress), () => hub.heldBy(sink),
      connections?.limits.maxQueuedResponseBytesPerAddress ?? 0, connections);
    // the connection's requests stop working when it goes away
    const abandonment = new Abandonment();
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('error', (err) => logger?.debug({ err }, 'WebSocket connection error'));
    ws.on('close', () => {
      hub.dropSink(sink);
      abandonment.abandon(new Error('the WebSocket connection closed'));
    });
    // through the hub's flow control: after what the connection was given before, as its client
    // takes it, so an answer bigger than the buffer reaches a client that reads, and the next too
    const send = (answer: Answer): void => {
      if (answer === null || ws.readyState !== WebSocket.OPEN) return;
      hub.answer(sink, answerText(answer));
    };
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        closeSoon(ws, CloseCode.unsupportedData, 'binary frames are not supported: send JSON-RPC requests as text');
        return;
      }
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as Buffer).toString('utf8');
      const parsed = parseRequestBody(text);
      if (parsed === undefined) {
        send(errorResponseText('null', ErrorCode.parseError, 'invalid request value'));
        return;
      }
      let sent!: () => void;
      const answered = new Promise<void>((resolve) => { sent = resolve; });
      const reply = (a: Answer): void => {
        send(a);
        sent();
      };
      const failed = (err: unknown): void => {
        logger?.error({ err }, 'JSON-RPC WebSocket request failed');
        reply(errorResponseText('null', ErrorCode.internalError, 'internal error'));
      };
      let answer: Answer | Promise<Answer>;
      try {
        answer = dispatcher.handle(parsed.value, { abandonment, idTexts: parsed.idTexts, stream: streamFor(answered), caller, client });
      } catch (err) {
        failed(err);
        return;
      }
      if (answer instanceof Promise) answer.then(reply, failed);
      else reply(answer);
    });
  }

  // heartbeat: a connection that did not answer the previous ping is gone (or stuck)
  const pingMs = config.websocketPingInterval * 1000;
  const heartbeat = pingMs > 0 ? setInterval(() => {
    for (const ws of wss.clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (alive.get(ws) === false) {
        metrics?.streamSubscriberDropped('ping');
        // through the hub: each subscription is told where it resumes, as after a 4001
        const sink = sinks.get(ws);
        if (sink !== undefined) hub.disconnect(sink, CloseCode.policy, 'no pong to the last ping; resume from your last id');
        else closeSoon(ws, CloseCode.policy, 'no pong to the last ping');
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, pingMs) : undefined;
  heartbeat?.unref();

  return {
    get open() { return wss.clients.size; },
    async close() {
      if (closing) return;
      closing = true;
      if (heartbeat !== undefined) clearInterval(heartbeat);
      const gone = [...wss.clients].map((ws) => new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) resolve();
        else ws.once('close', () => resolve());
      }));
      for (const ws of wss.clients) closeSoon(ws, CloseCode.goingAway, 'node shutting down', SHUTDOWN_GRACE_MS);
      await Promise.all(gone);
      server.off('upgrade', onUpgrade);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
