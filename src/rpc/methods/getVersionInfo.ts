// getVersionInfo: build facts of this node; never fails (protocolVersion is 0 when unknown). Beyond
// the reference's five members, capability discovery (stellar-rpc#995; the shape and why: docs/methods.md
// "getVersionInfo"): `methods`, what this node serves on the caller's connection (the dispatcher's own
// list, as rpc.discover documents it), and `limits`, read from the values the code enforces (the
// configuration and the constants the checks use), never restated here.
import type { Config } from '../../config/config.ts';
import type { Method, Serving } from './types.ts';
import { MAX_JSON_DEPTH } from '../limits.ts';
import { MAX_ENVELOPE_BYTES } from '../../submit/transactionSubmitter.ts';
import { latestProtocolVersion } from './shared/ledgerRange.ts';
import { arrayOf, object, uint32 } from './shared/schemas.ts';
import { LEDGER_SCAN_LIMIT } from './shared/eventPage.ts';
import { MAX_CONTRACT_IDS, MAX_FILTERS as MAX_EVENT_FILTERS, MAX_SEGMENTS, MAX_TOPICS } from './shared/eventsRequest.ts';
import {
  DEFAULT_LIMIT as QUERY_DEFAULT_LIMIT, MAX_FILTERS as QUERY_MAX_FILTERS, MAX_LIMIT as QUERY_MAX_LIMIT, TERM_BUDGET,
} from './shared/queryEventsRequest.ts';
import { MAX_SIMULATE_ENVELOPE_BYTES } from './shared/simulation.ts';
import { MAX_LEDGER_ENTRY_KEYS } from './getLedgerEntries.ts';

const count = (description: string) => ({ type: 'integer', minimum: 0, description });
const seconds = (description: string) => ({ type: 'number', minimum: 0, description });
const page = (method: string) => object({
  defaultLimit: count(`${method} page size when the request gives no limit`),
  maxLimit: count(`largest ${method} limit accepted`),
});

/** The schema of `limits` (rpc.discover); limitsOf fills it. */
const limitsSchema = object({
  request: object({
    maxBodyBytes: count('largest request body (HTTP POST; larger: HTTP 500 "request body too large") or message (WebSocket; larger: close 1009)'),
    maxBatchSize: count('longest batch; longer: one -32600 error'),
    maxJsonDepth: count('deepest array/object nesting of a request; deeper: refused as not JSON (-32700)'),
    maxResponseBodyBytes: count('bytes of one request\'s answer, shared by a batch; pages end early to fit (0: no limit)'),
    maxDurationSeconds: seconds('longest whole HTTP request before HTTP 504 (0: no limit)'),
  }, 'every request'),
  maxDurationSeconds: {
    type: 'object',
    description: 'per method served here: its longest call before -32001 (0: no limit)',
    additionalProperties: seconds('seconds'),
  },
  getEvents: object({
    defaultLimit: count('page size when the request gives no limit'),
    maxLimit: count('largest limit accepted'),
    maxLedgersScanned: count('ledgers one request scans at most'),
    maxFilters: count('filters per request'),
    maxContractIds: count('contract ids per filter'),
    maxTopics: count('topic patterns per filter'),
    maxTopicSegments: count('segments per topic pattern'),
  }),
  queryEvents: object({
    defaultLimit: count('page size when the request gives no limit'),
    maxLimit: count('largest limit accepted'),
    maxLedgersScanned: count('ledgers one page scans at most'),
    maxFilters: count('filters per query'),
    maxTerms: count('distinct (field, value) terms across a query\'s filters'),
  }),
  getLedgers: page('getLedgers'),
  getTransactions: page('getTransactions'),
  getLedgerEntries: object({ maxKeys: count('keys per request') }),
  sendTransaction: object({ maxEnvelopeBytes: count('largest transaction envelope, decoded') }),
  simulateTransaction: object({
    maxEnvelopeBytes: count('largest transaction envelope, decoded'),
    concurrency: count('simulations running at once'),
    maxQueued: count('simulations waiting for one of those; more: "preflight queue full"'),
  }),
  streaming: object({
    maxConnections: count('open WebSocket connections; more Upgrades: HTTP 503'),
    maxSubscriptionsPerConnection: count('subscriptions one connection holds; more: -32000'),
    maxBufferBytes: count('bytes a connection may hold untaken before it lags'),
    maxLagSeconds: seconds('how long a lagging connection may fall behind before it is closed (4001)'),
    maxConnectionBytes: count('bytes one connection may be owed before it is closed (4001) (0: no limit)'),
  }, 'subscriptions (WebSocket, Server-Sent Events)'),
}, 'lumen-rpc extension (stellar-rpc#995): the limits this node enforces, as configured');

/** The limits as enforced: the dispatcher's (batch, answer size, time limits), the configuration, the checks' constants. */
function limitsOf(config: Config, serving: Serving): Record<string, unknown> {
  const durations: Record<string, number> = {};
  for (const m of serving.methods) durations[m.name] = serving.maxDurationSeconds(m.name);
  return {
    request: {
      maxBodyBytes: config.maxRequestBodyBytes,
      maxBatchSize: serving.maxBatchSize,
      maxJsonDepth: MAX_JSON_DEPTH,
      maxResponseBodyBytes: serving.maxResponseBodyBytes,
      maxDurationSeconds: Math.max(0, config.maxRequestExecutionDuration),
    },
    maxDurationSeconds: durations,
    getEvents: {
      defaultLimit: config.defaultEventsLimit,
      maxLimit: config.maxEventsLimit,
      maxLedgersScanned: LEDGER_SCAN_LIMIT,
      maxFilters: MAX_EVENT_FILTERS,
      maxContractIds: MAX_CONTRACT_IDS,
      maxTopics: MAX_TOPICS,
      maxTopicSegments: MAX_SEGMENTS,
    },
    queryEvents: {
      defaultLimit: QUERY_DEFAULT_LIMIT,
      maxLimit: QUERY_MAX_LIMIT,
      maxLedgersScanned: LEDGER_SCAN_LIMIT,
      maxFilters: QUERY_MAX_FILTERS,
      maxTerms: TERM_BUDGET,
    },
    getLedgers: { defaultLimit: config.defaultLedgersLimit, maxLimit: config.maxLedgersLimit },
    getTransactions: { defaultLimit: config.defaultTransactionsLimit, maxLimit: config.maxTransactionsLimit },
    getLedgerEntries: { maxKeys: MAX_LEDGER_ENTRY_KEYS },
    sendTransaction: { maxEnvelopeBytes: MAX_ENVELOPE_BYTES },
    simulateTransaction: {
      maxEnvelopeBytes: MAX_SIMULATE_ENVELOPE_BYTES,
      concurrency: config.preflightWorkerCount,
      maxQueued: config.preflightWorkerQueueSize,
    },
    streaming: {
      maxConnections: config.maxWebsocketConnections,
      maxSubscriptionsPerConnection: config.maxSubscriptionsPerConnection,
      maxBufferBytes: config.maxStreamBufferBytes,
      maxLagSeconds: config.maxStreamLag,
      maxConnectionBytes: config.maxStreamConnectionBytes,
    },
  };
}

export const getVersionInfo: Method = {
  name: 'getVersionInfo',
  light: true,
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'Version facts of this node, the methods it serves and its limits',
    result: {
      name: 'getVersionInfoResult',
      schema: object({
        version: { type: 'string' },
        commitHash: { type: 'string' },
        buildTimestamp: { type: 'string' },
        captiveCoreVersion: { type: 'string', description: 'here: the embedded standalone network\'s version' },
        protocolVersion: { ...uint32, description: 'protocol version of the latest ledger; 0 when none is stored' },
        methods: arrayOf({ type: 'string' }, 'lumen-rpc extension (stellar-rpc#995): every method this node serves on '
          + 'this connection, as rpc.discover lists them: the developer methods (lumen_*) where it runs a standalone '
          + 'network, subscribe/unsubscribe over a WebSocket'),
        limits: limitsSchema,
      }),
    },
  },
  handler(_params, ctx, call) {
    const protocol = latestProtocolVersion(ctx.store);
    const serving = call.serving();
    return {
      version: ctx.node.version,
      commitHash: ctx.node.commitHash,
      buildTimestamp: ctx.node.buildTimestamp,
      captiveCoreVersion: ctx.node.captiveCoreVersion,
      protocolVersion: 'version' in protocol ? protocol.version : 0,
      methods: serving.methods.map((m) => m.name),
      limits: limitsOf(ctx.config, serving),
    };
  },
};
