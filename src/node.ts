// Assembles one running node: storage, a ledger source (the embedded standalone network, or a real
// network followed through a datastore / meta stream / captive core), the JSON-RPC server and the
// faucet, and takes them down in the reverse order. Either way ledgers reach storage through the
// same ingestion, and the RPC methods read only storage.
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { isFollower, servedDatastore, type Config } from './config/config.ts';
import type { LedgerArchive, Store } from './store/types.ts';
import { SqliteStore } from './store/sqlite/sqliteStore.ts';
import { StandaloneNetwork } from './standalone/standaloneNetwork.ts';
import { StateDir, databaseFiles } from './standalone/stateDir.ts';
import { Faucet } from './faucet/faucet.ts';
import { registerFriendbotProxy } from './faucet/friendbotProxy.ts';
import { registerFaucetRoutes } from './faucet/routes.ts';
import { FaucetRateLimiter } from './faucet/rateLimit.ts';
import { methods } from './rpc/methods/index.ts';
import { devMethods } from './rpc/methods/dev/index.ts';
import { refusedDevMethod } from './rpc/methods/dev/types.ts';
import type { Method } from './rpc/methods/types.ts';
import type { NodeInfo } from './rpc/methods/types.ts';
import type { TransactionSubmitter } from './submit/transactionSubmitter.ts';
import { createHttpServer, DEFAULT_RPC_PATHS } from './transport/httpServer.ts';
import { attachWebSocketServer } from './transport/websocketServer.ts';
import { Dispatcher } from './rpc/jsonrpc.ts';
import { streamMethods } from './rpc/methods/subscribe.ts';
import { SubscriptionHub } from './stream/subscriptionHub.ts';
import { SseStreams } from './transport/sseRoutes.ts';
import { registerExplorerRoutes } from './explorer/routes.ts';
import { LedgerFeed } from './ingest/ledgerFeed.ts';
import { printFailedTraces } from './trace/printFailedTraces.ts';
import { networkIdOf } from './xdr/codec.ts';
import { LedgerWriter } from './ingest/ledgerWriter.ts';
import { HeavyWork } from './rpc/heavyWork.ts';
import { ConnectionGuard } from './transport/connectionGuard.ts';
import { MemoryRelief } from './work/memoryRelief.ts';
import { loadNative, nativeAvailable } from './host/native.ts';
import { createAdminServer } from './transport/adminServer.ts';
import { devAccess, exposedWarning, type DevAccess } from './transport/devAccess.ts';
import { registerCoreTxEndpoint } from './submit/coreTxEndpoint.ts';
import { getMetrics, observeIngestion, setLatestLedger } from './rpc/metrics.ts';
import { buildInfo } from './buildInfo.ts';
import { Simulator } from './host/simulator.ts';
import { CoreSubmitter } from './submit/coreSubmitter.ts';
import { createFollowIngester } from './follow/followedNetwork.ts';
import { createPublisher } from './standalone/standalonePublishing.ts';
import { bannerInfo, printBanner } from './standalone/banner.ts';
import { loadStateSnapshot, type LoadedSnapshot } from './standalone/ledgerSnapshot.ts';
import { FORK_LEDGER, prepareFork, type ForkGenesis } from './fork/forkStart.ts';
import { prepareArchiveFork } from './fork/archiveFork.ts';
import { closeArchiveForkEdits } from './standalone/archiveForkEdits.ts';
import { RemoteForkedState, type ForkedState } from './fork/forkedState.ts';
import { RemoteRpc } from './fork/remoteRpc.ts';
import { inputCap } from './io/inputCaps.ts';
import { openDatastoreSource } from './sources/datastore/datastoreSource.ts';
import { DatastoreLedgerArchive } from './sources/datastore/ledgerArchive.ts';
import { ArchiveVerificationError } from './archive/historyArchive.ts';

/** How long heavy requests must have been quiet before memory is handed back. */
const MEMORY_RELIEF_QUIET_MS = 2_000;

export interface RunningNode {
  url: string;
  close(): Promise<void>;
  /**
   * Settles when the node cannot go on and must stop, as a start that fails would: a followed
   * network's history archive failed verification, so there is no state to serve, or the HTTP
   * routes besides JSON-RPC could not be built. Never otherwise.
   */
  fatal: Promise<Error>;
}

/** The mode-specific part: where ledgers come from and where transactions go. */
interface LedgerSide {
  submitter: TransactionSubmitter;
  registerRoutes(app: FastifyInstance): void;
  /** Starts producing or following ledgers once the server listens; `url` is its own address. */
  start(url: string, node: NodeInfo): void;
  stop(): Promise<void>;
  describe: Record<string, unknown>;
  /** The standalone network, when its developer methods are served. */
  dev?: StandaloneNetwork;
  /** A fork's lazy state (--fork-url). */
  fork?: ForkedState;
  /** Settles when this side cannot go on (see RunningNode.fatal). */
  fatal?: Promise<Error>;
}

/** How the node presents itself at start, beyond its configuration. */
export interface StartOptions {
  /** The standalone network's banner (URL, accounts, faucet) on stdout; off for a node inside a test process. */
  banner?: boolean;
}

export async function startNode(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningNode> {
  const store = new SqliteStore(config.dbPath, { entryHistory: config.ledgerEntryHistory });
  // --fork-url: the remote checked (and its passphrase taken) before the database is claimed
  const forkGenesis = await prepareFork(store, config).catch((e: unknown) => { store.close(); throw e; });
  const snapshot = loadStateSnapshot(store, config); // --load-state: read and checked before the database is claimed
  checkNetwork(store, config);
  // simulateTransaction (and the faucet's contract fundings): the native host reads the same
  // database (its own read-only connections).
  const simulator = new Simulator({
    dbPath: config.dbPath, networkPassphrase: config.networkPassphrase,
    maxConcurrent: config.preflightWorkerCount, maxWaiting: config.preflightWorkerQueueSize,
  });
  // the one commit point: both ledger paths write through it, and everything that reacts to new
  // ledgers (metrics, publishing, waiters, subscriptions) listens on its feed
  const feed = new LedgerFeed(logger);
  feed.listen((ledgers) => setLatestLedger(ledgers[ledgers.length - 1].ledger.sequence));
  feed.listenReverts(setLatestLedger);
  const writer = new LedgerWriter(store, feed, config.historyRetentionWindow);
  // --fork-archive: the state and the ledgers up to the fork ledger, before the standalone network starts on them
  const rootPending = await prepareArchiveFork(writer, config, logger).catch((e: unknown) => { store.close(); throw e; });
  const access = devAccess(config);
  const side = isFollower(config) ? follower(writer, config, logger)
    : standalone(writer, config, logger, simulator, access, options.banner ?? true, snapshot, forkGenesis);
  if (rootPending && side.submitter instanceof StandaloneNetwork) await closeArchiveForkEdits(side.submitter, store, config);
  const ledgerArchive = servedLedgerArchive(config, logger); // after the standalone side made its datastore
  // assigned, not spread: spreading would read the commit hash (a run of git) now
  const node: NodeInfo = Object.assign(buildInfo(), { friendbotUrl: undefined as string | undefined });
  getMetrics().registerPreflightPool(() => ({ ...simulator.load, queueFullErrors: simulator.queueFullErrors }));
  // the addon is asked for at the first relief, not at start
  const relief = new MemoryRelief(MEMORY_RELIEF_QUIET_MS, () => nativeAvailable() && loadNative().trimCHeap());
  const connections = ConnectionGuard.fromConfig(config);
  const heavy = new HeavyWork({
    concurrency: config.heavyRequestConcurrency, perClientConcurrency: config.heavyRequestConcurrencyPerAddress,
    jsonThreads: config.xdrJsonWorkerCount, relief, backlog: connections,
  });
  getMetrics().registerServingLoad(() => ({
    openConnections: connections.open, refusedConnections: connections.refused, writeTimeouts: connections.writeTimeouts,
    queuedResponseBytes: connections.queuedBytes, heavyRunning: heavy.gate.running, heavyWaiting: heavy.gate.waiting,
  }));
  // serving does not depend on the transport: one dispatcher for every way requests arrive
  const stateDir = side.dev && config.stateDir ? new StateDir(config.stateDir, databaseFiles(config.dbPath)) : undefined;
  const ctx = { store, config, node, submitter: side.submitter, simulator, heavy, ledgerArchive, dev: side.dev, fork: side.fork, stateDir };
  const dispatcher = new Dispatcher({
    methods: [...methods, ...streamMethods, ...developerMethods(side, config, access)], logger, metrics: getMetrics(), limits: config, ctx,
    callerPolicy: access.policy,
  });
  // streaming: subscriptions fed by the same commit point, served by the transports below
  const hub = new SubscriptionHub({
    feed, ctx, logger, metrics: getMetrics(),
    maxSubscriptionsPerConnection: config.maxSubscriptionsPerConnection, maxStreamBufferBytes: config.maxStreamBufferBytes,
    maxStreamLagMs: config.maxStreamLag * 1000,
    maxStreamConnectionBytes: config.maxStreamConnectionBytes, maxStreamTotalBytes: config.maxStreamTotalBytes,
  });
  const sse = new SseStreams({ hub, config, metrics: getMetrics(), connections });
  const http = createHttpServer({
    config, dispatcher, logger, metrics: getMetrics(), connections,
    registerRoutes: (app: FastifyInstance) => {
      side.registerRoutes(app);
      sse.register(app);
      if (config.explorer) registerExplorerRoutes(app);
    },
  });
  const websockets = attachWebSocketServer({
    server: http.server, rpcPaths: DEFAULT_RPC_PATHS, dispatcher, hub, config, logger, metrics: getMetrics(), connections,
  });
  getMetrics().registerStreaming(() => ({
    connections: { ws: websockets.open, sse: sse.open },
    subscriptions: hub.subscriptionCounts(),
    heldBytes: hub.heldBytes,
  }));
  const { host, port } = await http.listen();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const admin = createAdminServer({ config, logger, metrics: getMetrics() });
  if (admin) logger.info(await admin.listen(), 'admin endpoint serving /metrics');
  side.start(url, node);
  if (side.dev && access.exposed) logger.warn({ subsys: 'dev' }, exposedWarning(url));
  logger.info({
    url, passphrase: config.networkPassphrase, db: config.dbPath, ...side.describe,
    ...(ledgerArchive ? { ledgersBeyondWindow: ledgerArchive.description } : {}),
  }, 'lumen-rpc is serving');
  let closed = false;
  return {
    url,
    fatal: side.fatal ? Promise.race([side.fatal, http.routesFailure]) : http.routesFailure,
    async close() {
      if (closed) return;
      closed = true;
      await side.stop();
      // streaming connections get 1001 before HTTP waits for its requests
      hub.close();
      await websockets.close();
      await http.close();
      await admin?.close();
      await heavy.close();
      simulator.close();
      store.close();
    },
  };
}

/** The lumen_* methods: served by the standalone network, refused with the reason anywhere else. */
function developerMethods(side: LedgerSide, config: Config, access: DevAccess): Method[] {
  if (side.dev) return devMethods;
  const reason = isFollower(config)
    ? 'developer methods are served by a standalone network, not by a node following a real one'
    : access.offReason ?? 'developer methods are off';
  return devMethods.map((m) => refusedDevMethod(m, reason));
}

/** A database serves one network for its whole life. */
function checkNetwork(store: Store, config: Config): void {
  const stored = store.metadata('networkPassphrase');
  if (stored !== undefined && stored !== config.networkPassphrase) {
    throw new Error(`database belongs to network "${stored}", not "${config.networkPassphrase}"`);
  }
  if (stored === undefined) store.setMetadata('networkPassphrase', config.networkPassphrase);
}

/**
 * --serve-ledgers-from-datastore: the datastore getLedgers reads ledgers older than the window from.
 * Refused at start when the node knows no datastore. Its manifest is checked in the background (a
 * bucket may be slow to answer); until it reads, requests beyond the window get -32603.
 */
function servedLedgerArchive(config: Config, logger: Logger): LedgerArchive | undefined {
  if (!config.serveLedgersFromDatastore) return undefined;
  const location = servedDatastore(config);
  if (!location) {
    throw new Error('--serve-ledgers-from-datastore needs a datastore: --datastore, a --network with a public data lake, '
      + 'or on the standalone network --publish-datastore');
  }
  // within getLedgers' 10 s: a failed file read is tried once more, then answered as an error
  const source = openDatastoreSource(location, { networkPassphrase: config.networkPassphrase, http: { timeoutMs: 4_000, retries: 1 }, cap: inputCap(config.maxInputBytes) });
  source.config().catch((e: unknown) => logger.error({ err: e }, 'the datastore getLedgers serves old ledgers from cannot be read'));
  return new DatastoreLedgerArchive(source, { logger });
}

function standalone(
  writer: LedgerWriter, config: Config, logger: Logger, simulator: Simulator, access: DevAccess, banner: boolean,
  snapshot?: LoadedSnapshot, forkGenesis?: ForkGenesis,
): LedgerSide {
  const { store } = writer;
  // first: a bad setting stops the start before the network is created
  const limiter = new FaucetRateLimiter({
    perClient: config.friendbotRateLimitPerClient, total: config.friendbotRateLimitTotal, windowSeconds: config.friendbotRateLimitWindow,
  });
  const faucetLimiter = limiter.enabled ? limiter : undefined;
  const publisher = createPublisher(store, config, logger);
  if (publisher) {
    writer.feed.listen((ledgers) => { for (const l of ledgers) publisher({ sequence: l.ledger.sequence, bytes: l.ledger.meta }); });
  }
  if (config.printTraces) {
    writer.feed.listen(printFailedTraces(store, networkIdOf(config.networkPassphrase), (text) => process.stdout.write(text), logger));
  }
  const network = new StandaloneNetwork({
    writer, config, logger,
    observeIngestion: (type, seconds) => observeIngestion(type, seconds),
  });
  network.init(snapshot, forkGenesis);
  let fork: RemoteForkedState | undefined;
  if (config.forkUrl) {
    fork = new RemoteForkedState({
      store, remote: new RemoteRpc(config.forkUrl, { cap: inputCap(config.maxInputBytes) }), forkLedger: Number(store.metadata(FORK_LEDGER)),
      pinned: config.forkLedger > 0,
      onStored: (writes) => network.forkedEntriesStored(writes),
    });
    network.attachFork(fork);
  }
  const faucet = config.friendbot ? new Faucet(network, store, simulator, logger) : undefined;
  return {
    submitter: network,
    registerRoutes(app) {
      if (faucet) registerFaucetRoutes(app, faucet, faucetLimiter);
      registerCoreTxEndpoint(app, network);
    },
    start(url, node) {
      if (faucet) node.friendbotUrl = `${url}/friendbot`;
      network.start();
      if (banner) printBanner(bannerInfo(store, config, network.networkId, url, node.friendbotUrl, access), config.logFormat);
    },
    async stop() { await network.stop(); },
    describe: { mode: 'standalone', closeMode: config.closeMode, ...(fork ? { forkOf: config.forkUrl, forkLedger: Number(store.metadata(FORK_LEDGER)), ...(config.forkLedger ? { pinned: true } : {}) } : {}) },
    ...(access.served ? { dev: network } : {}),
    ...(fork ? { fork } : {}),
  };
}

function follower(writer: LedgerWriter, config: Config, logger: Logger): LedgerSide {
  const { store } = writer;
  const ingester = createFollowIngester(writer, config, logger, {
    observeIngestion: (type, seconds) => observeIngestion(type, seconds),
  });
  let fatal!: (e: Error) => void;
  return {
    // a state no history archive could verify: nothing to serve, so the start fails after all
    fatal: new Promise<Error>((resolve) => { fatal = resolve; }),
    submitter: new CoreSubmitter({ coreUrl: config.stellarCoreUrl, timeoutSeconds: config.stellarCoreTimeout, networkPassphrase: config.networkPassphrase }),
    registerRoutes(app) {
      if (config.friendbotUrl) registerFriendbotProxy(app, { upstream: config.friendbotUrl, store });
    },
    start(url, node) {
      if (config.friendbotUrl) node.friendbotUrl = `${url}/friendbot`;
      ingester.start();
      void ingester.finished().then(() => { if (ingester.failure instanceof ArchiveVerificationError) fatal(ingester.failure); });
    },
    stop: () => ingester.stop(),
    describe: { mode: 'follow', source: ingester.sourceDescription, core: config.stellarCoreUrl },
  };
}
