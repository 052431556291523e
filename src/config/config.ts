// Typed configuration with the reference node's option names and defaults where they apply.
import { availableParallelism } from 'node:os';
import type { LimitsPreset } from '../ledger/soroban/limitsPresets.ts';

export type CloseMode = 'interval' | 'instant' | 'manual';

export interface Config {
  endpoint: string;                       // host:port of the JSON-RPC server
  adminEndpoint: string;                  // host:port for /metrics; "" = off
  networkPassphrase: string;
  dbPath: string;
  historyRetentionWindow: number;         // ledgers kept
  classicFeeStatsRetentionWindow: number;
  sorobanFeeStatsRetentionWindow: number;
  defaultLedgersLimit: number;
  maxLedgersLimit: number;
  defaultTransactionsLimit: number;
  maxTransactionsLimit: number;
  defaultEventsLimit: number;
  maxEventsLimit: number;
  maxHealthyLedgerLatency: number;        // seconds
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  logFormat: 'text' | 'json';
  // the standalone network
  ledgerCloseInterval: number;            // milliseconds between closes in interval mode
  closeMode: CloseMode;
  maxTxSetSize: number;                   // operations per ledger
  transactionQueueLimit: number;          // operations waiting in the queue
  friendbot: boolean;
  /** Serve the block explorer at /explorer on the JSON-RPC port (src/explorer/, web/explorer/). */
  explorer: boolean;
  /** Standalone: serve the lumen_* developer methods; auto: only when the endpoint is loopback (transport/devAccess.ts). */
  devMethods: 'auto' | 'true' | 'false';
  /** Comma-separated origins whose pages may call the developer methods, besides loopback ones (rpc/callerPolicy.ts). */
  devAllowOrigin: string;
  /** Comma-separated Host names the developer methods answer, besides IP addresses, loopback names and the endpoint's; "*": any. */
  devAllowHost: string;
  /** The folder lumen_dumpState may write files into (a plain name each); "" = it answers the snapshot only. */
  stateDir: string;
  maxSnapshots: number;                   // lumen_snapshot snapshots kept; the oldest go first
  maxSnapshotQueueEntries: number;        // queue entries (transactions, bans) all kept snapshots hold
  friendbotRateLimitPerClient: number;    // faucet requests per window per client IP; 0 = off
  friendbotRateLimitTotal: number;        // faucet requests per window for everyone; 0 = off
  friendbotRateLimitWindow: number;       // seconds
  /** Genesis overrides of the network's StateArchival minimum TTLs (ledgers); 0 keeps testnet's. */
  minPersistentTtl: number;
  minTemporaryTtl: number;
  /** Genesis: the ledger protocol of a new standalone network (src/ledger/protocols.ts); 0 = the default. */
  protocol: number;
  /** Genesis: the Soroban limits (testnet's, or Quickstart's unlimited ones). */
  limits: LimitsPreset;
  /** Genesis: pre-funded test accounts (SEP-5 keys of a public mnemonic), listed at start. */
  accounts: number;
  /** A JSON ledger snapshot the new standalone network starts from (src/standalone/ledgerSnapshot.ts); "" = none. */
  loadState: string;
  /**
   * Fork this network's RPC (src/fork/): the standalone network starts at its latest ledger and reads
   * the entries it lacks from it on first use; "" = not a fork.
   */
  forkUrl: string;
  /** With forkUrl, a new fork starts from the remote's state as of this ledger, not its latest; 0 = latest. */
  forkLedger: number;
  /** Fork from a history archive (src/fork/archiveFork.ts): state from its checkpoint at or before forkLedger (default its latest), then --datastore's ledgers up to it; "" = not. */
  forkArchive: string;
  // following a real network (any of these set: the node follows instead of being the network)
  network: '' | NetworkName;              // preset: passphrase, history archives, datastore
  datastore: string;                      // SEP-54 datastore: folder, http(s)://, gs://bucket/path, s3://bucket/path
  datastorePollInterval: number;          // milliseconds between looks for the next datastore file at the tip
  metaStream: string;                     // stellar-core meta stream: file, named pipe, or "-" (stdin)
  stellarCoreBinaryPath: string;          // run this stellar-core as a captive subprocess and read its meta stream
  captiveCoreConfigPath: string;          // the captive core's TOML
  captiveCoreStoragePath: string;         // the captive core's working folder ("" = a temporary one)
  historyArchiveUrls: string;             // comma-separated; the ledger state is bootstrapped from the first
  stellarCoreUrl: string;                 // where sendTransaction goes (core's /tx)
  stellarCoreTimeout: number;             // seconds
  friendbotUrl: string;                   // getNetwork's friendbotUrl when following
  printTraces: boolean;                   // standalone: print the trace of every failed transaction
  ledgerEntryHistory: boolean;            // keep replaced entry versions for getLedgerEntries' `ledger`
  serveLedgersFromDatastore: boolean;     // getLedgers beyond the retention window, from servedDatastore()
  // input from outside (src/io/inputCaps.ts): each piece counted while read, refused past its cap
  maxInputBytes: number;                  // a datastore/archive file, a fork remote's answer, a stream record, as read and decompressed
  maxBucketBytes: number;                 // a history archive bucket (streamed), as read and decompressed
  // the standalone network publishing itself for followers
  publishDatastore: string;               // folder: write every ledger as a SEP-54 datastore file
  publishHistoryArchive: string;          // folder: write a history archive checkpoint every 64 ledgers
  // simulateTransaction (preflight)
  preflightWorkerCount: number;           // simulations running at once
  preflightWorkerQueueSize: number;       // simulations waiting beyond those; more: "preflight queue full"
  preflightEnableDebug: boolean;          // diagnostic events in simulation results
  // transport limits
  maxRequestBodyBytes: number;
  requestBacklogGlobalQueueLimit: number;
  maxRequestExecutionDuration: number;    // seconds, whole HTTP request
  methodQueueLimits: Record<string, number>;
  methodMaxDurations: Record<string, number>; // seconds
  // bounded work per request (see src/rpc/answerBudget.ts, heavyWork.ts, connectionGuard.ts)
  maxResponseBodyBytes: number;           // one HTTP request's answer (a batch shares it); pages end early to fit
  heavyRequestConcurrency: number;        // getLedgers/getTransactions/getEvents answers built at once
  heavyRequestConcurrencyPerAddress: number; // … of them for one client address while others wait (0: no cap of its own)
  xdrJsonWorkerCount: number;             // large XDR values rendered as JSON at once (xdrFormat: "json")
  httpReadTimeout: number;                // seconds to receive a request's headers and body
  httpIdleTimeout: number;                // seconds a keep-alive connection may wait for its next request
  httpWriteTimeout: number;               // seconds to deliver one answer to the client
  maxConnections: number;                 // open HTTP connections; more are refused with 503
  maxConnectionsPerAddress: number;       // … from one client address (0: no cap of its own)
  maxIncompleteRequestsPerAddress: number; // connections of one address still sending a request (new, slow headers or body)
  maxQueuedResponseBytes: number;         // answer bytes written but not yet read by clients, all together
  maxQueuedResponseBytesPerAddress: number; // … by one client address: its share (0: no share of its own)
  httpCompression: boolean;               // zstd / gzip answers of 4 KiB and more to clients asking for them (transport/answerCompression.ts)
  // streaming (WebSocket and SSE subscriptions, src/stream/)
  maxWebsocketConnections: number;        // open WebSocket connections; more Upgrades are refused with 503
  maxSubscriptionsPerConnection: number;  // subscriptions one connection may hold; more: -32000
  maxStreamBufferBytes: number;           // bytes a connection holds untaken beyond which it is closed (4001), once it lags; half (256 KiB at most) go to its socket
  maxStreamLag: number;                   // seconds an item may wait for a connection over its buffer, or it may take nothing while something waits, before it is closed (4001)
  maxStreamConnectionBytes: number;       // bytes one connection may be owed (matched, replayed, answered, not taken); beyond: 4001 (0: no limit)
  maxStreamTotalBytes: number;            // the same for all connections; beyond: the slowest are closed (4001) (0: no limit)
  websocketPingInterval: number;          // seconds between pings; a ping unanswered by the next closes (1008)
  websocketPermessageDeflate: boolean;    // offer permessage-deflate (RFC 7692) to WebSocket clients; costs memory per connection
}

export const STANDALONE_PASSPHRASE = 'Standalone Network ; February 2017';

export type NetworkName = 'testnet' | 'pubnet' | 'futurenet';

/** What `--network` fills in (each may still be overridden). Datastores: the public data lake on AWS. */
export const networkPresets: Record<NetworkName, { passphrase: string; historyArchiveUrls: string[]; datastore: string; friendbotUrl: string }> = {
  pubnet: {
    passphrase: 'Public Global Stellar Network ; September 2015',
    historyArchiveUrls: [1, 2, 3].map((i) => `https://history.stellar.org/prd/core-live/core_live_00${i}`),
    datastore: 's3://aws-public-blockchain/v1.1/stellar/ledgers/pubnet',
    friendbotUrl: '',
  },
  testnet: {
    passphrase: 'Test SDF Network ; September 2015',
    historyArchiveUrls: [1, 2, 3].map((i) => `https://history.stellar.org/prd/core-testnet/core_testnet_00${i}`),
    datastore: 's3://aws-public-blockchain/v1.1/stellar/ledgers/testnet',
    friendbotUrl: 'https://friendbot.stellar.org/',
  },
  futurenet: {
    passphrase: 'Test SDF Future Network ; October 2022',
    historyArchiveUrls: ['https://history-futurenet.stellar.org'],
    datastore: '', // no public data lake: give --datastore or --meta-stream / a captive core
    friendbotUrl: 'https://friendbot-futurenet.stellar.org/',
  },
};

/** True when the node follows a real network rather than running the standalone one. */
export const isFollower = (c: Config): boolean => c.forkArchive === '' && (
  c.network !== '' || c.datastore !== '' || c.metaStream !== '' || c.stellarCoreBinaryPath !== '');

/**
 * The datastore getLedgers reads ledgers older than the window from (--serve-ledgers-from-datastore):
 * the one followed (--datastore), else the network preset's data lake (a node following a meta
 * stream or captive core), else the standalone network's own published one; "" when there is none.
 */
export function servedDatastore(c: Config): string {
  if (c.datastore) return c.datastore;
  if (c.network) return networkPresets[c.network].datastore;
  return isFollower(c) ? '' : c.publishDatastore;
}

export const defaultConfig: Config = {
  endpoint: 'localhost:8000',
  adminEndpoint: '',
  networkPassphrase: STANDALONE_PASSPHRASE,
  dbPath: 'lumen_rpc.sqlite',
  historyRetentionWindow: 120960,
  classicFeeStatsRetentionWindow: 10,
  sorobanFeeStatsRetentionWindow: 50,
  defaultLedgersLimit: 50,
  maxLedgersLimit: 200,
  defaultTransactionsLimit: 50,
  maxTransactionsLimit: 200,
  defaultEventsLimit: 100,
  maxEventsLimit: 10000,
  maxHealthyLedgerLatency: 30,
  logLevel: 'info',
  logFormat: 'text',
  ledgerCloseInterval: 1000,
  closeMode: 'interval',
  maxTxSetSize: 10000,
  transactionQueueLimit: 40000,
  friendbot: true,
  explorer: true,
  devMethods: 'auto',
  devAllowOrigin: '',
  devAllowHost: '',
  stateDir: '',
  maxSnapshots: 10_000,
  maxSnapshotQueueEntries: 1_000_000,
  friendbotRateLimitPerClient: 0,
  friendbotRateLimitTotal: 0,
  friendbotRateLimitWindow: 60,
  minPersistentTtl: 0,
  minTemporaryTtl: 0,
  protocol: 0,
  limits: 'testnet',
  accounts: 10,
  loadState: '',
  forkUrl: '',
  forkLedger: 0,
  forkArchive: '',
  network: '',
  datastore: '',
  datastorePollInterval: 1000,
  metaStream: '',
  stellarCoreBinaryPath: '',
  captiveCoreConfigPath: '',
  captiveCoreStoragePath: '',
  historyArchiveUrls: '',
  stellarCoreUrl: 'http://localhost:11626',
  stellarCoreTimeout: 2,
  friendbotUrl: '',
  serveLedgersFromDatastore: false,
  maxInputBytes: 256 * 1024 * 1024,
  maxBucketBytes: 64 * 1024 ** 3,
  printTraces: false,
  ledgerEntryHistory: true,
  publishDatastore: '',
  publishHistoryArchive: '',
  preflightWorkerCount: availableParallelism(),
  preflightWorkerQueueSize: availableParallelism(),
  preflightEnableDebug: true,
  maxRequestBodyBytes: 512 * 1024,
  requestBacklogGlobalQueueLimit: 5000,
  maxRequestExecutionDuration: 25,
  methodQueueLimits: {
    default: 1000, sendTransaction: 500, simulateTransaction: 100, getFeeStats: 100,
  },
  methodMaxDurations: {
    default: 5, getEvents: 10, queryEvents: 10, getLedgers: 10, sendTransaction: 15, simulateTransaction: 15,
    // a fast-forward of a million ledgers takes seconds; a longer one goes on after the answer (-32001)
    lumen_closeLedgers: 25,
    lumen_dumpState: 25, // the whole state: up to the request's limit
  },
  maxResponseBodyBytes: 16 * 1024 * 1024,
  heavyRequestConcurrency: 2,
  heavyRequestConcurrencyPerAddress: 1,
  xdrJsonWorkerCount: availableParallelism(),
  httpReadTimeout: 5,
  httpIdleTimeout: 5,
  httpWriteTimeout: 30,
  maxConnections: 4096,
  // one address holds at most a quarter of the connections, an eighth still sending their requests
  maxConnectionsPerAddress: 1024,
  maxIncompleteRequestsPerAddress: 512,
  maxQueuedResponseBytes: 128 * 1024 * 1024,
  // half an answer budget: a client that leaves one full answer unread gets no more until it reads
  maxQueuedResponseBytesPerAddress: 8 * 1024 * 1024,
  httpCompression: true,
  // an idle connection costs about 3.6 KiB (bench: 10,000 idle ones added 35 MiB of RSS)
  maxWebsocketConnections: 20_000,
  maxSubscriptionsPerConnection: 100,
  maxStreamBufferBytes: 4 * 1024 * 1024,
  maxStreamLag: 30,
  maxStreamConnectionBytes: 64 * 1024 * 1024,
  maxStreamTotalBytes: 256 * 1024 * 1024,
  websocketPingInterval: 30,
  websocketPermessageDeflate: false,
};
