// Typed configuration with the reference node's option names and defaults where they apply.
import { availableParallelism } from 'node:os';

export type CloseMode = 'interval' | 'instant';

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
  /** Genesis overrides of the network's StateArchival minimum TTLs (ledgers); 0 keeps testnet's. */
  minPersistentTtl: number;
  minTemporaryTtl: number;
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
}

export const STANDALONE_PASSPHRASE = 'Standalone Network ; February 2017';

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
  minPersistentTtl: 0,
  minTemporaryTtl: 0,
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
    default: 5, getEvents: 10, getLedgers: 10, sendTransaction: 15, simulateTransaction: 15,
  },
};
