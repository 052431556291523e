// Assembles one running node: storage, the standalone network as its ledger source, the JSON-RPC
// server and the faucet, and takes them down in the reverse order.
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.ts';
import { SqliteStore } from './store/sqlite/sqliteStore.ts';
import { StandaloneNetwork } from './sources/standaloneNetwork.ts';
import { Faucet } from './faucet/faucet.ts';
import { methods } from './rpc/methods/index.ts';
import type { NodeInfo } from './rpc/methods/types.ts';
import { createHttpServer } from './rpc/httpServer.ts';
import { createAdminServer } from './rpc/adminServer.ts';
import { getMetrics, observeIngestion, setLatestLedger } from './rpc/metrics.ts';
import { buildInfo } from './buildInfo.ts';
import { Simulator } from './host/simulator.ts';

export interface RunningNode {
  url: string;
  network: StandaloneNetwork;
  close(): Promise<void>;
}

export async function startNode(config: Config, logger: Logger): Promise<RunningNode> {
  const store = new SqliteStore(config.dbPath);
  const network = new StandaloneNetwork({
    store, config, logger,
    observeIngestion: (type, seconds) => observeIngestion(type, seconds),
    onLedger: (seq) => setLatestLedger(seq),
  });
  network.init();
  const faucet = config.friendbot ? new Faucet(network, store, logger) : undefined;
  const node: NodeInfo = { ...buildInfo(), friendbotUrl: undefined };
  // simulateTransaction: the native host reads the same database (its own read-only connections).
  const simulator = new Simulator({
    dbPath: config.dbPath, networkPassphrase: config.networkPassphrase,
    maxConcurrent: config.preflightWorkerCount, maxWaiting: config.preflightWorkerQueueSize,
  });
  const uvThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  if (config.preflightWorkerCount >= uvThreads) {
    logger.warn({ preflightWorkerCount: config.preflightWorkerCount, uvThreadpoolSize: uvThreads },
      'each running simulation holds a libuv threadpool thread: set UV_THREADPOOL_SIZE above --preflight-worker-count');
  }
  getMetrics().registerPreflightPool(() => ({ ...simulator.load, queueFullErrors: simulator.queueFullErrors }));
  const http = createHttpServer({
    config, methods, logger, metrics: getMetrics(),
    ctx: { store, config, node, submitter: network, simulator },
    registerRoutes: faucet ? (app: FastifyInstance) => registerFaucetRoutes(app, faucet) : undefined,
  });
  const { host, port } = await http.listen();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (faucet) node.friendbotUrl = `${url}/friendbot`;
  const admin = createAdminServer({ config, logger, metrics: getMetrics() });
  if (admin) logger.info(await admin.listen(), 'admin endpoint serving /metrics');
  network.start();
  logger.info({ url, passphrase: config.networkPassphrase, db: config.dbPath, closeMode: config.closeMode }, 'lumen-rpc is serving the standalone network');
  let closed = false;
  return {
    url,
    network,
    async close() {
      if (closed) return;
      closed = true;
      network.stop();
      await http.close();
      await admin?.close();
      simulator.close();
      store.close();
    },
  };
}

function registerFaucetRoutes(app: FastifyInstance, faucet: Faucet): void {
  const handler = async (req: { query: unknown }, reply: { code(n: number): { send(b: unknown): unknown } }) => {
    const addr = (req.query as Record<string, unknown>)?.addr;
    const answer = await faucet.fund(typeof addr === 'string' ? addr : '');
    return reply.code(answer.status).send(answer.body);
  };
  for (const path of ['/friendbot', '/friendbot/']) {
    app.get(path, handler);
    app.post(path, handler);
  }
}
