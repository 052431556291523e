// The admin listener (`config.adminEndpoint`, off when empty): GET /metrics in Prometheus text
// format. The reference also serves /debug/pprof/* there; we have no equivalent. An endpoint with no
// host (":9090") binds loopback, not every interface, since this is an operator-only port.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Metrics } from '../rpc/metrics.ts';

// Not `import ... from 'node:http'`: an ES import of node:http reads every export, and its lazy
// WebSocket/fetch ones load Node's whole undici (~70 ms of CPU at start-up, for nothing we use).
const { createServer } = process.getBuiltinModule('node:http');

export interface AdminServer {
  listen(): Promise<{ host: string; port: number }>;
  close(): Promise<void>;
}

function parseAdminEndpoint(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  let host = i < 0 ? '' : endpoint.slice(0, i);
  const port = Number(i < 0 ? endpoint : endpoint.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad admin endpoint ${JSON.stringify(endpoint)}`);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? '127.0.0.1' : host, port };
}

/** Returns undefined when `config.adminEndpoint` is empty. */
export function createAdminServer(options: { config: Pick<Config, 'adminEndpoint'>; metrics: Metrics; logger: Logger }): AdminServer | undefined {
  const { config, metrics, logger } = options;
  if (config.adminEndpoint === '') return undefined;
  const { host, port } = parseAdminEndpoint(config.adminEndpoint);
  // the process metrics count from the start of the endpoint that shows them
  metrics.collectProcessMetrics().catch((err: unknown) => logger.error({ err }, 'the process metrics could not be started'));

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    metrics.metricsText().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        logger.error({ err }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('error collecting metrics\n');
      },
    );
  });

  return {
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const a = server.address() as AddressInfo;
          logger.info({ addr: `${a.address}:${a.port}` }, 'admin server listening');
          resolve({ host: a.address, port: a.port });
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        if (!server.listening) { resolve(); return; }
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
