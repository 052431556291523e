// JSON-RPC over WebSocket on the RPC port (websocketConnections.ts). ws, and the https and tls
// modules of Node it loads, are loaded at the first Upgrade, not at start (a few ms of every fresh
// node's time to its first answer, for a transport many runs never use); Upgrades that come while it
// loads are served once it has.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { ConnectionGuard } from './connectionGuard.ts';
import type { Dispatcher } from '../rpc/jsonrpc.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { SubscriptionHub } from '../stream/subscriptionHub.ts';
import type { WebSocketConnections } from './websocketConnections.ts';

export interface WebSocketServerOptions {
  /** The HTTP server (httpServer.ts's) whose Upgrade requests are taken. */
  server: Server;
  rpcPaths: readonly string[];
  dispatcher: Dispatcher;
  hub: SubscriptionHub;
  config: Pick<Config, 'maxWebsocketConnections' | 'maxRequestBodyBytes' | 'maxStreamBufferBytes' | 'websocketPingInterval' | 'websocketPermessageDeflate'>;
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

export function attachWebSocketServer(options: WebSocketServerOptions): WebSocketTransport {
  const { server, logger } = options;
  let connections: WebSocketConnections | undefined;
  let loading: Promise<void> | undefined;
  const early: Array<[IncomingMessage, Duplex, Buffer]> = [];

  const load = async (): Promise<void> => {
    try {
      const { webSocketConnections } = await import('./websocketConnections.ts');
      connections = webSocketConnections(options);
    } catch (err) {
      logger?.error({ err }, 'the WebSocket transport could not be loaded');
      for (const [, socket] of early.splice(0)) socket.destroy();
      return;
    }
    for (const [req, socket, head] of early.splice(0)) connections.upgrade(req, socket, head);
  };

  let closing = false;
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (connections !== undefined) {
      connections.upgrade(req, socket, head);
    } else if (closing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', () => socket.destroy());
    } else {
      early.push([req, socket, head]);
      loading ??= load();
    }
  };
  server.on('upgrade', onUpgrade);

  return {
    get open() { return connections?.open ?? 0; },
    async close() {
      closing = true;
      await loading;
      await connections?.close(); // which refuses Upgrades (503) from now on
      server.off('upgrade', onUpgrade);
    },
  };
}
