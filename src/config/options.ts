// Every option once: its flag, its environment variable and TOML key (UPPER_SNAKE of the flag, as the
// reference node names them), how to parse it and where it goes in Config.
import type { Config } from './config.ts';

export type OptionKind = 'string' | 'int' | 'bool' | 'seconds' | 'milliseconds' | 'enum';

export interface OptionSpec {
  flag: string;                     // without the leading dashes
  key: keyof Config;
  /** For record-valued keys (methodQueueLimits, methodMaxDurations): the member this option sets. */
  member?: string;
  kind: OptionKind;
  values?: readonly string[];       // for enums
  positive?: boolean;               // ints: at least 1
  help: string;
}

export const options: readonly OptionSpec[] = [
  { flag: 'endpoint', key: 'endpoint', kind: 'string', help: 'host:port the JSON-RPC server listens on' },
  { flag: 'admin-endpoint', key: 'adminEndpoint', kind: 'string', help: 'host:port for Prometheus /metrics; empty disables it' },
  { flag: 'network-passphrase', key: 'networkPassphrase', kind: 'string', help: 'network passphrase of the standalone network' },
  { flag: 'db-path', key: 'dbPath', kind: 'string', help: 'SQLite database file' },
  { flag: 'history-retention-window', key: 'historyRetentionWindow', kind: 'int', help: 'ledgers of history kept' },
  { flag: 'classic-fee-stats-retention-window', key: 'classicFeeStatsRetentionWindow', kind: 'int', help: 'ledgers in the classic fee statistics window' },
  { flag: 'soroban-fee-stats-retention-window', key: 'sorobanFeeStatsRetentionWindow', kind: 'int', help: 'ledgers in the Soroban fee statistics window' },
  { flag: 'default-ledgers-limit', key: 'defaultLedgersLimit', kind: 'int', help: 'getLedgers page size when none is given' },
  { flag: 'max-ledgers-limit', key: 'maxLedgersLimit', kind: 'int', help: 'largest getLedgers page' },
  { flag: 'default-transactions-limit', key: 'defaultTransactionsLimit', kind: 'int', help: 'getTransactions page size when none is given' },
  { flag: 'max-transactions-limit', key: 'maxTransactionsLimit', kind: 'int', help: 'largest getTransactions page' },
  { flag: 'default-events-limit', key: 'defaultEventsLimit', kind: 'int', help: 'getEvents page size when none is given' },
  { flag: 'max-events-limit', key: 'maxEventsLimit', kind: 'int', help: 'largest getEvents page' },
  { flag: 'max-healthy-ledger-latency', key: 'maxHealthyLedgerLatency', kind: 'seconds', help: 'getHealth fails when the latest ledger is older than this (e.g. 30s)' },
  { flag: 'log-level', key: 'logLevel', kind: 'enum', values: ['trace', 'debug', 'info', 'warn', 'error'], help: 'log level' },
  { flag: 'log-format', key: 'logFormat', kind: 'enum', values: ['text', 'json'], help: 'log format' },
  { flag: 'ledger-close-interval', key: 'ledgerCloseInterval', kind: 'milliseconds', help: 'time between ledger closes (e.g. 1s, 250ms)' },
  { flag: 'close-mode', key: 'closeMode', kind: 'enum', values: ['interval', 'instant', 'manual'], help: 'interval: close on the cadence; instant: also close as soon as a transaction is queued; manual: close only when lumen_closeLedgers asks (switchable at run time with lumen_setCloseMode)' },
  { flag: 'dev-methods', key: 'devMethods', kind: 'enum', values: ['auto', 'true', 'false'], help: 'standalone: serve the lumen_* developer methods (close ledgers, move time, snapshot and revert, set state, impersonate); auto: only when --endpoint is a loopback address; true on any other address lets everyone who reaches it control the network' },
  { flag: 'dev-allow-origin', key: 'devAllowOrigin', kind: 'string', help: 'comma-separated origins (https://app.example:3000) whose web pages may call the developer methods; loopback origins and the node\'s own always may, requests without an Origin (CLIs, SDKs in Node) too' },
  { flag: 'dev-allow-host', key: 'devAllowHost', kind: 'string', help: 'comma-separated Host names the developer methods answer to, besides IP addresses, loopback names and the --endpoint host (against DNS rebinding, as geth\'s --http.vhosts); "*": any' },
  { flag: 'max-snapshots', key: 'maxSnapshots', kind: 'int', positive: true, help: 'standalone: lumen_snapshot snapshots kept at once; past it (or past --max-snapshot-queue-entries) the oldest are dropped, and reverting to one says it was dropped' },
  { flag: 'max-snapshot-queue-entries', key: 'maxSnapshotQueueEntries', kind: 'int', positive: true, help: 'standalone: queued transactions and bans the kept snapshots hold copies of, all together (each costs about 50 bytes); past it the oldest snapshots are dropped' },
  { flag: 'state-dir', key: 'stateDir', kind: 'string', help: 'standalone: the folder lumen_dumpState may write snapshot files into, by plain file name; empty: it only answers the snapshot (lumen-rpc dev dump-state FILE writes it on the caller\'s side)' },
  { flag: 'max-tx-set-size', key: 'maxTxSetSize', kind: 'int', help: 'operations per ledger' },
  { flag: 'transaction-queue-limit', key: 'transactionQueueLimit', kind: 'int', help: 'operations waiting in the queue before TRY_AGAIN_LATER' },
  { flag: 'friendbot', key: 'friendbot', kind: 'bool', help: 'serve the faucet at /friendbot' },
  { flag: 'explorer', key: 'explorer', kind: 'bool', help: 'serve the block explorer (latest ledgers and transactions, transactions, accounts, contracts) at /explorer on the JSON-RPC port; false: /explorer is 404' },
  { flag: 'friendbot-rate-limit-per-client', key: 'friendbotRateLimitPerClient', kind: 'int', help: 'standalone: faucet funding requests per window per client IP address (token bucket), beyond them HTTP 429; 0: no limit' },
  { flag: 'friendbot-rate-limit-total', key: 'friendbotRateLimitTotal', kind: 'int', help: 'standalone: faucet funding requests per window for all clients together (token bucket), beyond them HTTP 429; 0: no limit' },
  { flag: 'friendbot-rate-limit-window', key: 'friendbotRateLimitWindow', kind: 'seconds', help: 'standalone: the faucet rate limits\' window (e.g. 60s, 1h)' },
  { flag: 'load-state', key: 'loadState', kind: 'string', help: 'standalone, empty database: start the network from this JSON ledger snapshot (lumen_dumpState, `stellar snapshot create`); the passphrase must be the snapshot\'s network\'s' },
  { flag: 'fork-url', key: 'forkUrl', kind: 'string', help: 'standalone: fork the network this RPC serves: start at its latest ledger with its passphrase (unless --network-passphrase is given: then it must be the remote\'s) and network settings, and read every ledger entry not held locally from it on first use (see docs/fork.md)' },
  { flag: 'fork-ledger', key: 'forkLedger', kind: 'int', positive: true, help: 'with --fork-url, new fork: start from the remote\'s state as of this ledger instead of its latest, and read every entry as of it (the remote must serve getLedgerEntries at a past ledger; see docs/fork.md)' },
  { flag: 'fork-archive', key: 'forkArchive', kind: 'string', help: 'standalone, with --network-passphrase: a fork whose state is this history archive\'s checkpoint at or before --fork-ledger N (default: its latest checkpoint), then the ledgers up to N from --datastore (without it the fork is the checkpoint\'s); no remote RPC, nothing fetched later (see docs/fork.md)' },
  { flag: 'min-persistent-ttl', key: 'minPersistentTtl', kind: 'int', help: 'new networks: minimum TTL of persistent contract entries in ledgers, to see archival sooner (0: testnet\'s 120960)' },
  { flag: 'min-temporary-ttl', key: 'minTemporaryTtl', kind: 'int', help: 'new networks: minimum TTL of temporary contract entries in ledgers (0: testnet\'s 720)' },
  { flag: 'protocol', key: 'protocol', kind: 'int', help: 'new standalone networks: the ledger protocol they start at (28, 29 or 30; default 30), as Quickstart\'s --protocol-version; a restarted network keeps its own, and lumen_upgradeProtocol votes an upgrade in' },
  { flag: 'limits', key: 'limits', kind: 'enum', values: ['testnet', 'unlimited'], help: 'new networks: the Soroban limits at genesis, testnet\'s or Quickstart\'s "unlimited" ones (a restarted network keeps its stored settings; lumen_upgradeConfig changes them)' },
  { flag: 'accounts', key: 'accounts', kind: 'int', help: 'new networks: test accounts funded at genesis (10,000 XLM each, SEP-5 keys of the public test mnemonic), listed with their secrets at start' },
  { flag: 'network', key: 'network', kind: 'enum', values: ['', 'testnet', 'pubnet', 'futurenet'], help: 'follow this public network (presets its passphrase, history archives and datastore) instead of running a standalone one; with --fork-archive, fork it (its passphrase, and its data lake as the datastore)' },
  { flag: 'datastore', key: 'datastore', kind: 'string', help: 'follow: read ledgers from this SEP-54 datastore (folder, https://, gs://bucket/path, s3://bucket/path)' },
  { flag: 'datastore-poll-interval', key: 'datastorePollInterval', kind: 'milliseconds', help: 'follow: time between looks for the next datastore file at the tip' },
  { flag: 'meta-stream', key: 'metaStream', kind: 'string', help: 'follow: read stellar-core\'s meta stream from this file or named pipe ("-": stdin)' },
  { flag: 'stellar-core-binary-path', key: 'stellarCoreBinaryPath', kind: 'string', help: 'follow: run this stellar-core as a captive subprocess and ingest its meta stream' },
  { flag: 'captive-core-config-path', key: 'captiveCoreConfigPath', kind: 'string', help: 'follow: the captive stellar-core\'s configuration file' },
  { flag: 'captive-core-storage-path', key: 'captiveCoreStoragePath', kind: 'string', help: 'follow: the captive stellar-core\'s working folder, kept between runs (default: a temporary one)' },
  { flag: 'history-archive-urls', key: 'historyArchiveUrls', kind: 'string', help: 'follow: comma-separated history archives (folder or URL); the ledger state is bootstrapped from a checkpoint' },
  { flag: 'stellar-core-url', key: 'stellarCoreUrl', kind: 'string', help: 'follow: stellar-core HTTP endpoint sendTransaction submits to (/tx)' },
  { flag: 'stellar-core-timeout', key: 'stellarCoreTimeout', kind: 'seconds', help: 'follow: timeout of a stellar-core HTTP request (e.g. 2s)' },
  { flag: 'friendbot-url', key: 'friendbotUrl', kind: 'string', help: 'follow: the faucet getNetwork reports' },
  { flag: 'print-traces', key: 'printTraces', kind: 'bool', help: 'standalone network: print the trace of every transaction that fails (lumen_traceTransaction\'s, as a tree)' },
  { flag: 'ledger-entry-history', key: 'ledgerEntryHistory', kind: 'bool', help: 'getLedgerEntries: keep the versions ledgers replace, for the `ledger` parameter (costs ingestion speed on busy networks; false drops the history)' },
  { flag: 'serve-ledgers-from-datastore', key: 'serveLedgersFromDatastore', kind: 'bool', help: 'getLedgers: serve ledgers older than the retention window from the datastore (--datastore, the --network preset\'s, or standalone the --publish-datastore folder)' },
  { flag: 'max-input-bytes', key: 'maxInputBytes', kind: 'int', positive: true, help: 'the most bytes the node takes in one piece from outside, counted while it is read and again once decompressed: a datastore file, a history archive\'s state or checkpoint file, a fork remote\'s answer, a --load-state file, one ledger of a meta stream, one bucket entry; a larger one is refused with an error naming it (that file or answer fails, the node serves on)' },
  { flag: 'max-bucket-bytes', key: 'maxBucketBytes', kind: 'int', positive: true, help: 'the most bytes of one history archive bucket, as read and decompressed (buckets are streamed, never held whole: this bounds the time a bucket can take)' },
  { flag: 'publish-datastore', key: 'publishDatastore', kind: 'string', help: 'standalone: also write every ledger to this folder as a SEP-54 datastore' },
  { flag: 'publish-history-archive', key: 'publishHistoryArchive', kind: 'string', help: 'standalone: also publish a history archive (state checkpoints) in this folder' },
  { flag: 'preflight-worker-count', key: 'preflightWorkerCount', kind: 'int', positive: true, help: 'simulateTransaction: simulations running at once (default: the number of CPUs)' },
  { flag: 'preflight-worker-queue-size', key: 'preflightWorkerQueueSize', kind: 'int', positive: true, help: 'simulateTransaction: simulations waiting for a worker before "preflight queue full" (default: the number of CPUs)' },
  { flag: 'preflight-enable-debug', key: 'preflightEnableDebug', kind: 'bool', help: 'simulateTransaction: record diagnostic events (more detailed errors)' },
  { flag: 'request-backlog-simulate-transaction-queue-limit', key: 'methodQueueLimits', member: 'simulateTransaction', kind: 'int', help: 'concurrent simulateTransaction requests before -32098' },
  { flag: 'max-simulate-transaction-execution-duration', key: 'methodMaxDurations', member: 'simulateTransaction', kind: 'seconds', help: 'longest simulateTransaction request before -32001 (e.g. 15s)' },
  { flag: 'max-request-body-bytes', key: 'maxRequestBodyBytes', kind: 'int', help: 'largest HTTP request body' },
  { flag: 'request-backlog-global-queue-limit', key: 'requestBacklogGlobalQueueLimit', kind: 'int', help: 'concurrent HTTP requests before 503' },
  { flag: 'max-request-execution-duration', key: 'maxRequestExecutionDuration', kind: 'seconds', help: 'longest HTTP request before 504' },
  { flag: 'max-get-ledgers-execution-duration', key: 'methodMaxDurations', member: 'getLedgers', kind: 'seconds', help: 'longest getLedgers request before -32001 (e.g. 10s)' },
  { flag: 'max-get-transactions-execution-duration', key: 'methodMaxDurations', member: 'getTransactions', kind: 'seconds', help: 'longest getTransactions request before -32001 (e.g. 5s)' },
  { flag: 'max-get-events-execution-duration', key: 'methodMaxDurations', member: 'getEvents', kind: 'seconds', help: 'longest getEvents request before -32001 (e.g. 10s)' },
  { flag: 'max-query-events-execution-duration', key: 'methodMaxDurations', member: 'queryEvents', kind: 'seconds', help: 'longest queryEvents request before -32001 (e.g. 10s)' },
  { flag: 'max-response-body-bytes', key: 'maxResponseBodyBytes', kind: 'int', help: 'bytes of one HTTP request\'s answer, shared by a batch; pages end early to fit, with a cursor that continues there (0: no limit)' },
  { flag: 'heavy-request-concurrency', key: 'heavyRequestConcurrency', kind: 'int', positive: true, help: 'getLedgers/getTransactions/getEvents/queryEvents answers built at once; others wait within their time limit' },
  { flag: 'heavy-request-concurrency-per-address', key: 'heavyRequestConcurrencyPerAddress', kind: 'int', help: 'of those, answers built at once for one client address (an IPv6 one by its /64) while other addresses wait for a slot (alone, an address may use them all); free slots go to the waiting addresses in turn (0: no cap of its own)' },
  { flag: 'xdr-json-worker-count', key: 'xdrJsonWorkerCount', kind: 'int', positive: true, help: 'ledgers and transactions rendered as JSON at once for xdrFormat "json", on lower-priority threads of the addon, at most this many at once; a JSON page renders that many items side by side (default: CPUs)' },
  { flag: 'http-read-timeout', key: 'httpReadTimeout', kind: 'seconds', help: 'time to receive a request\'s headers and body before the connection is closed (e.g. 5s)' },
  { flag: 'http-idle-timeout', key: 'httpIdleTimeout', kind: 'seconds', help: 'time a keep-alive connection may wait for its next request (e.g. 5s)' },
  { flag: 'http-write-timeout', key: 'httpWriteTimeout', kind: 'seconds', help: 'time to deliver one answer to a client before its connection is closed (e.g. 30s)' },
  { flag: 'max-connections', key: 'maxConnections', kind: 'int', positive: true, help: 'open HTTP connections; more are answered 503 and closed' },
  { flag: 'max-connections-per-address', key: 'maxConnectionsPerAddress', kind: 'int', help: 'open HTTP connections from one client address (an IPv6 one by its /64); more from it are answered 503 and closed (0: no limit of its own; behind a reverse proxy every client has the proxy\'s address)' },
  { flag: 'max-incomplete-requests-per-address', key: 'maxIncompleteRequestsPerAddress', kind: 'int', help: 'connections from one client address still sending a request (new ones before their first request, slow headers or body); more from it are answered 503 and closed (0: no limit of its own)' },
  { flag: 'max-queued-response-bytes', key: 'maxQueuedResponseBytes', kind: 'int', help: 'answer bytes written but not yet read by clients, all connections together; beyond it every method but the light ones (getHealth, getLatestLedger, getNetwork, sendTransaction, getTransaction, getVersionInfo, getFeeStats) is refused with -32098 (0: no limit)' },
  { flag: 'max-queued-response-bytes-per-address', key: 'maxQueuedResponseBytesPerAddress', kind: 'int', help: 'a client address\'s share of those bytes; while it holds more, its calls but the light ones are refused with -32098 (0: no share of its own)' },
  { flag: 'http-compression', key: 'httpCompression', kind: 'bool', help: 'JSON-RPC answers of 4 KiB and more in zstd or gzip (Content-Encoding) to clients whose Accept-Encoding asks for them; false: never compressed' },
  { flag: 'max-websocket-connections', key: 'maxWebsocketConnections', kind: 'int', positive: true, help: 'open WebSocket connections (streaming); more Upgrades are answered 503' },
  { flag: 'max-subscriptions-per-connection', key: 'maxSubscriptionsPerConnection', kind: 'int', positive: true, help: 'subscriptions one WebSocket connection may hold; more are refused with -32000' },
  { flag: 'max-stream-buffer-bytes', key: 'maxStreamBufferBytes', kind: 'int', positive: true, help: 'bytes a streaming connection may hold that its client has not taken; beyond them, once its oldest waiting item has waited --max-stream-lag, it is closed (4001) and resumes from the points it is given; its socket is handed half of them at most (256 KiB at most), the rest waits shared' },
  { flag: 'max-stream-lag', key: 'maxStreamLag', kind: 'seconds', help: 'how long an item may wait for a streaming connection over its buffer, or a connection may take nothing while something waits for it, before it is closed as too slow (4001) (e.g. 30s)' },
  { flag: 'max-stream-connection-bytes', key: 'maxStreamConnectionBytes', kind: 'int', help: 'bytes one streaming connection may be owed: what its subscriptions matched (or replayed, or its answers) that its client has not taken, each item counted at its size (an unfiltered events subscription weighs the most); beyond it the connection is closed (4001) with where each subscription resumes (0: no limit)' },
  { flag: 'max-stream-total-bytes', key: 'maxStreamTotalBytes', kind: 'int', help: 'the same for all streaming connections together; beyond it the slowest (those that would take longest to take what they hold) are closed (4001) until the rest hold under three quarters of it (0: no limit)' },
  { flag: 'websocket-ping-interval', key: 'websocketPingInterval', kind: 'seconds', help: 'time between WebSocket pings; a ping not answered by the next one closes the connection (1008); 0: no pings (e.g. 30s)' },
  { flag: 'websocket-permessage-deflate', key: 'websocketPermessageDeflate', kind: 'bool', help: 'compress WebSocket messages of 1 KiB and more for clients that offer permessage-deflate (RFC 7692); costs about 100 KiB of memory per connection that receives one, and CPU per connection for each notification' },
];

export const envName = (flag: string): string => flag.toUpperCase().replace(/-/g, '_');

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses "30s", "250ms", "1m" or a bare number (in the option's own unit). */
function durationMs(raw: string, bareUnit: 'ms' | 's'): number {
  const m = DURATION.exec(raw.trim());
  if (!m) throw new Error(`not a duration: "${raw}"`);
  return Number(m[1]) * UNIT_MS[m[2] ?? bareUnit];
}

export function parseOption(spec: OptionSpec, raw: unknown): unknown {
  const text = typeof raw === 'string' ? raw : String(raw);
  switch (spec.kind) {
    case 'string': return text;
    case 'int': {
      const n = typeof raw === 'number' ? raw : Number(text);
      if (!Number.isInteger(n) || n < 0) throw new Error(`--${spec.flag} must be a non-negative integer, got "${text}"`);
      if (spec.positive && n === 0) throw new Error(`--${spec.flag} must be positive, got "${text}"`);
      return n;
    }
    case 'bool':
      if (raw === true || raw === false) return raw;
      if (/^(true|1|yes)$/i.test(text)) return true;
      if (/^(false|0|no)$/i.test(text)) return false;
      throw new Error(`--${spec.flag} must be true or false, got "${text}"`);
    case 'seconds': return typeof raw === 'number' ? raw : durationMs(text, 's') / 1000;
    case 'milliseconds': return typeof raw === 'number' ? raw : durationMs(text, 'ms');
    case 'enum':
      if (!spec.values!.includes(text)) throw new Error(`--${spec.flag} must be one of ${spec.values!.join(', ')}, got "${text}"`);
      return text;
  }
}
