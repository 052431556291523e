// What one event loop needs to stay answerable with many clients, some of them hostile. Everything
// is counted per client, a client being its source address (clientAddress.ts), with a ceiling for
// all clients behind:
//  - open connections: beyond the global cap, or beyond one address's cap, a new connection is
//    answered 503 and closed (instead of exhausting file descriptors, or one address holding every
//    slot);
//  - connections still sending a request (new ones before their first request, and any whose request
//    body is still arriving): beyond one address's cap, a new connection from it is answered 503 and
//    closed, so half-sent requests from one address cannot fill the global cap for the read timeout;
//  - answer bytes written but not yet taken by clients (a client that does not read pins its answer
//    in memory): a client holding its share is refused new work, alone (CallClient, -32098); past the
//    ceiling for all clients, every method but the light ones is (rpc/answerBacklog.ts).
// Each answer must be delivered within the write timeout, or its connection is closed and the bytes
// freed. A new connection must have sent its first request's headers within the read timeout:
// Node's own read timeouts (headersTimeout / requestTimeout, checked every CHECK_INTERVAL_MS) only
// cover a request once its first byte is in, and keepAliveTimeout the wait after an answer (see
// httpServer.ts). Node's parser reads the socket natively, so the first request is what is seen.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config/config.ts';
import { answersBacklogError, clientBacklogError, type AnswerBacklog, type CallClient } from '../rpc/answerBacklog.ts';
import type { RpcError } from '../rpc/errors.ts';
import { clientKey } from './clientAddress.ts';

/** How often Node's HTTP server looks for connections past their read timeout (its default is 30 s). */
export const CHECK_INTERVAL_MS = 250;

const refusal = (text: string): string => 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n'
  + `Connection: close\r\nRetry-After: 1\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
const TOO_MANY = refusal('too many open connections\n');
const TOO_MANY_FROM_ADDRESS = refusal('too many open connections from this address\n');
const TOO_MANY_INCOMPLETE = refusal('too many connections from this address are still sending their requests\n');

export interface ConnectionLimits {
  maxConnections: number;                   // <= 0: no limit
  maxConnectionsPerAddress: number;         // <= 0: no limit
  maxIncompleteRequestsPerAddress: number;  // connections of one address still sending a request; <= 0: no limit
  readTimeoutMs: number;                    // a new connection's wait for its first byte; <= 0: no limit
  writeTimeoutMs: number;                   // <= 0: no limit
  maxQueuedResponseBytes: number;           // all clients together; <= 0: no limit
  maxQueuedResponseBytesPerAddress: number; // one client's share; <= 0: no limit
}

/** One client address: its connections and the bytes of its answers it has not read yet. */
class ClientLoad implements CallClient {
  readonly key: string;
  private readonly guard: ConnectionGuard;
  open = 0;
  /** Connections that have not sent their first request's headers yet. */
  fresh = 0;
  /**
   * Connections whose latest request had a body: those it has not all arrived for are still sending.
   * Looked at only when the address nears its cap, so that a request pays no listener for it.
   */
  readonly bodies = new Set<Connection>();
  queuedBytes = 0;
  private overSince: number | undefined;
  constructor(key: string, guard: ConnectionGuard) {
    this.key = key;
    this.guard = guard;
  }

  overShareSince(): number | undefined { return this.overSince; }

  refusal(): RpcError | undefined {
    if (this.overSince !== undefined) return clientBacklogError();
    return this.guard.full() ? answersBacklogError() : undefined;
  }

  /** Its unread answer bytes change by `bytes`. */
  queue(bytes: number): void {
    this.queuedBytes += bytes;
    const share = this.guard.limits.maxQueuedResponseBytesPerAddress;
    if (share > 0 && this.queuedBytes >= share) this.overSince ??= performance.now();
    else this.overSince = undefined;
  }

  get idle(): boolean { return this.open === 0 && this.fresh === 0 && this.bodies.size === 0 && this.queuedBytes === 0; }

  /** True when `cap` of its connections or more are still sending a request. */
  sendingAtLeast(cap: number): boolean {
    if (this.fresh + this.bodies.size < cap) return false;
    for (const connection of this.bodies) if (connection.request?.complete !== false) this.bodies.delete(connection);
    return this.fresh + this.bodies.size >= cap;
  }
}

/** What the guard keeps about one of its connections. */
interface Connection {
  readonly client: ClientLoad;
  /** Has not sent its first request's headers yet (counted in its client's `fresh`). */
  fresh: boolean;
  /** Its latest request with a body (in its client's `bodies`). */
  request: IncomingMessage | undefined;
  /** Until its first request's headers are in. */
  silence: NodeJS.Timeout | undefined;
  /** Became a WebSocket (or a stream): no longer an HTTP connection. */
  handedOver: boolean;
}

/** Whether a request has a body to wait for (a chunked one, or a Content-Length other than 0). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
}

export class ConnectionGuard implements AnswerBacklog {
  readonly limits: ConnectionLimits;
  /** Connections being served now. */
  open = 0;
  /** Connections refused since start (over the global cap or an address's). */
  refused = 0;
  /** Answer bytes handed to the sockets and not yet delivered. */
  queuedBytes = 0;
  /** Connections closed because an answer was not delivered in time. */
  writeTimeouts = 0;

  private readonly clients = new Map<string, ClientLoad>();
  private readonly connections = new WeakMap<Socket, Connection>();
  private readonly takenListeners: Array<() => void> = [];

  constructor(limits: ConnectionLimits) { this.limits = limits; }

  static fromConfig(config: Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress' | 'maxIncompleteRequestsPerAddress'
    | 'httpReadTimeout' | 'httpWriteTimeout' | 'maxQueuedResponseBytes' | 'maxQueuedResponseBytesPerAddress'>): ConnectionGuard {
    return new ConnectionGuard({
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
      maxIncompleteRequestsPerAddress: config.maxIncompleteRequestsPerAddress,
      readTimeoutMs: config.httpReadTimeout * 1000,
      writeTimeoutMs: config.httpWriteTimeout * 1000,
      maxQueuedResponseBytes: config.maxQueuedResponseBytes,
      maxQueuedResponseBytesPerAddress: config.maxQueuedResponseBytesPerAddress,
    });
  }

  /**
   * The client of a connection. One this guard does not count (a connection it refused, whose
   * request Node may still read before the socket closes) is a client with no answers of its own:
   * answered for the server's ceiling only.
   */
  clientOf(socket: Socket): CallClient { return this.connections.get(socket)?.client ?? this.uncounted; }

  private readonly uncounted = new ClientLoad('uncounted', this);

  /**
   * A connection that became a WebSocket: it no longer counts against the HTTP connections nor
   * waits for a request (the WebSocket transport has its own limit and heartbeat).
   */
  handOver(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (connection === undefined || connection.handedOver) return;
    connection.handedOver = true;
    this.settled(connection);
    this.open--;
    connection.client.open--;
    this.forgetIfIdle(connection.client);
  }

  /** Counts the server's connections and refuses those over a cap, before Node's HTTP parser sees them. */
  attach(server: Server): void {
    server.prependListener('request', (req: IncomingMessage) => {
      const connection = this.connections.get(req.socket);
      if (connection === undefined) return;
      this.heard(connection);
      if (hasBody(req)) {
        connection.request = req;
        connection.client.bodies.add(connection);
      }
    });
    server.prependListener('connection', (socket: Socket) => {
      const key = clientKey(socket.remoteAddress);
      const known = this.clients.get(key);
      const refusal = this.refusalOf(known);
      if (refusal !== undefined) {
        this.refused++;
        // Written before the client's request is read; the connection is then closed, so the HTTP
        // server never answers on it (a request already read is dropped with the socket).
        socket.end(refusal);
        socket.destroySoon();
        return;
      }
      const client = known ?? this.remember(key);
      this.open++;
      client.open++;
      const connection: Connection = { client, fresh: true, request: undefined, silence: undefined, handedOver: false };
      client.fresh++;
      if (this.limits.readTimeoutMs > 0) {
        connection.silence = setTimeout(() => socket.destroy(), this.limits.readTimeoutMs);
        connection.silence.unref();
      }
      this.connections.set(socket, connection);
      socket.once('close', () => {
        this.settled(connection);
        if (!connection.handedOver) {
          this.open--;
          client.open--;
        }
        this.forgetIfIdle(client);
      });
    });
  }

  /** True while clients together hold the server's ceiling of unread answer bytes. */
  full(): boolean {
    return this.limits.maxQueuedResponseBytes > 0 && this.queuedBytes >= this.limits.maxQueuedResponseBytes;
  }

  onTaken(fn: () => void): void { this.takenListeners.push(fn); }

  /**
   * Accounts an answer of `bytes` being written to `res` until it is delivered (or its connection
   * closes), to its client and to all, and closes the connection if delivery takes longer than the
   * write timeout.
   */
  track(res: ServerResponse, bytes: number): void {
    // a pipelined request's answer gets its socket only once the answers before it are out
    const socket = res.socket ?? res.req?.socket;
    const client = socket ? this.connections.get(socket)?.client : undefined;
    this.queuedBytes += bytes;
    client?.queue(bytes);
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
      if (client !== undefined) {
        client.queue(-bytes);
        this.forgetIfIdle(client);
      }
      for (const fn of this.takenListeners) fn();
    };
    res.once('finish', done);
    res.once('close', done);
  }

  /** Why a new connection from `client` (undefined: an address with none) is refused, or undefined. */
  private refusalOf(client: ClientLoad | undefined): string | undefined {
    const limits = this.limits;
    if (limits.maxConnections > 0 && this.open >= limits.maxConnections) return TOO_MANY;
    if (client === undefined) return undefined;
    if (limits.maxConnectionsPerAddress > 0 && client.open >= limits.maxConnectionsPerAddress) return TOO_MANY_FROM_ADDRESS;
    if (limits.maxIncompleteRequestsPerAddress > 0 && client.sendingAtLeast(limits.maxIncompleteRequestsPerAddress)) return TOO_MANY_INCOMPLETE;
    return undefined;
  }

  private remember(key: string): ClientLoad {
    const client = new ClientLoad(key, this);
    this.clients.set(key, client);
    return client;
  }

  private forgetIfIdle(client: ClientLoad): void {
    if (client.idle && this.clients.get(client.key) === client) this.clients.delete(client.key);
  }

  /** A request's headers are in: Node's own read timeouts take over. */
  private heard(connection: Connection): void {
    if (connection.silence !== undefined) {
      clearTimeout(connection.silence);
      connection.silence = undefined;
    }
    if (!connection.fresh) return;
    connection.fresh = false;
    connection.client.fresh--;
  }

  /** The connection closed or left HTTP: it sends no request any more. */
  private settled(connection: Connection): void {
    this.heard(connection);
    connection.request = undefined;
    connection.client.bodies.delete(connection);
  }
}
