// What one event loop needs to stay answerable with many clients: a cap on open connections (one
// more is answered 503 and closed, instead of exhausting file descriptors), and a cap on answer bytes
// written but not yet taken by clients (a client that does not read pins its answer in memory).
// Each answer must be delivered within the write timeout, or its connection is closed and the bytes
// freed. A new connection must have sent its first request's headers within the read timeout:
// Node's own read timeouts (headersTimeout / requestTimeout, checked every CHECK_INTERVAL_MS) only
// cover a request once its first byte is in, and keepAliveTimeout the wait after an answer (see
// httpServer.ts). Node's parser reads the socket natively, so the first request is what is seen.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Config } from '../config/config.ts';
import type { Socket } from 'node:net';

/** How often Node's HTTP server looks for connections past their read timeout (its default is 30 s). */
export const CHECK_INTERVAL_MS = 250;

const REFUSAL_TEXT = 'too many open connections\n';
const REFUSAL = 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n'
  + `Connection: close\r\nRetry-After: 1\r\nContent-Length: ${Buffer.byteLength(REFUSAL_TEXT)}\r\n\r\n${REFUSAL_TEXT}`;

export interface ConnectionLimits {
  maxConnections: number;          // <= 0: no limit
  readTimeoutMs: number;           // a new connection's wait for its first byte; <= 0: no limit
  writeTimeoutMs: number;          // <= 0: no limit
  maxQueuedResponseBytes: number;  // <= 0: no limit
}

export class ConnectionGuard {
  private readonly limits: ConnectionLimits;
  /** Connections being served now. */
  open = 0;
  /** Connections refused since start. */
  refused = 0;
  /** Answer bytes handed to the sockets and not yet delivered. */
  queuedBytes = 0;
  /** Connections closed because an answer was not delivered in time. */
  writeTimeouts = 0;

  constructor(limits: ConnectionLimits) { this.limits = limits; }

  static fromConfig(config: Pick<Config, 'maxConnections' | 'httpReadTimeout' | 'httpWriteTimeout' | 'maxQueuedResponseBytes'>): ConnectionGuard {
    return new ConnectionGuard({
      maxConnections: config.maxConnections,
      readTimeoutMs: config.httpReadTimeout * 1000,
      writeTimeoutMs: config.httpWriteTimeout * 1000,
      maxQueuedResponseBytes: config.maxQueuedResponseBytes,
    });
  }

  /** A new connection's first-request timer, until its first request is seen. */
  private readonly silent = new WeakMap<Socket, NodeJS.Timeout>();
  /** How many connections wait for their first request. */
  private waiting = 0;
  /** Connections that left HTTP (a WebSocket Upgrade): counted by their own transport's limit. */
  private readonly handedOver = new WeakSet<Socket>();
  /** Called when no connection waits for its first request any more (set by attach). */
  private onNoneWaiting: () => void = () => {};

  /** The connection's first request is in (or it is gone): its first-request timer stops. */
  private heard(socket: Socket): void {
    const timer = this.silent.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.silent.delete(socket);
    if (--this.waiting === 0) this.onNoneWaiting();
  }

  /**
   * A connection that became a WebSocket: it no longer counts against the HTTP connections nor
   * waits for a request (the WebSocket transport has its own limit and heartbeat).
   */
  handOver(socket: Socket): void {
    if (this.handedOver.has(socket)) return;
    this.handedOver.add(socket);
    this.heard(socket);
    this.open--;
  }

  /** Counts the server's connections and refuses those over the cap, before Node's HTTP parser sees them. */
  attach(server: Server): void {
    // Requests are listened to only while a connection waits for its first one: a server busy with
    // established connections then calls its one request listener, not two, per request.
    const onRequest = (req: IncomingMessage): void => this.heard(req.socket);
    this.onNoneWaiting = () => { server.removeListener('request', onRequest); };
    server.prependListener('connection', (socket: Socket) => {
      if (this.limits.maxConnections > 0 && this.open >= this.limits.maxConnections) {
        this.refused++;
        // Written before the client's request is read; the connection is then closed, so the HTTP
        // server never answers on it (a request already read is dropped with the socket).
        socket.end(REFUSAL);
        socket.destroySoon();
        return;
      }
      this.open++;
      if (this.limits.readTimeoutMs > 0) {
        const timer = setTimeout(() => socket.destroy(), this.limits.readTimeoutMs);
        timer.unref();
        this.silent.set(socket, timer);
        if (this.waiting++ === 0) server.prependListener('request', onRequest);
      }
      socket.once('close', () => {
        if (!this.handedOver.has(socket)) this.open--;
        this.heard(socket);
      });
    });
  }

  /** False when clients already hold more unread answer bytes than allowed: refuse new work (503). */
  admits(): boolean {
    return this.limits.maxQueuedResponseBytes <= 0 || this.queuedBytes < this.limits.maxQueuedResponseBytes;
  }

  /**
   * Accounts an answer of `bytes` being written to `res` until it is delivered (or its connection
   * closes), and closes the connection if delivery takes longer than the write timeout.
   */
  track(res: ServerResponse, bytes: number): void {
    this.queuedBytes += bytes;
    let timer: NodeJS.Timeout | undefined;
    if (this.limits.writeTimeoutMs > 0) {
      timer = setTimeout(() => {
        this.writeTimeouts++;
        res.socket?.destroy();
      }, this.limits.writeTimeoutMs);
      timer.unref();
    }
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      this.queuedBytes -= bytes;
    };
    res.once('finish', done);
    res.once('close', done);
  }
}
