// The JSON-RPC methods every node serves (node.ts adds the streaming and the developer ones).
import type { Method } from './types.ts';
import { getEvents } from './getEvents.ts';
import { getFeeStats } from './getFeeStats.ts';
import { getHealth } from './getHealth.ts';
import { getLatestLedger } from './getLatestLedger.ts';
import { getLedgerEntries } from './getLedgerEntries.ts';
import { getLedgers } from './getLedgers.ts';
import { getNetwork } from './getNetwork.ts';
import { getTransaction } from './getTransaction.ts';
import { getTransactions } from './getTransactions.ts';
import { getVersionInfo } from './getVersionInfo.ts';
import { queryEvents } from './queryEvents.ts';
import { rpcDiscover } from './rpcDiscover.ts';
import { sendTransaction } from './sendTransaction.ts';
import { simulateTransaction } from './simulateTransaction.ts';
import { traceTransaction } from './traceTransaction.ts';
import { resourceReport } from './resourceReport.ts';

const served: Method[] = [
  getHealth,
  getNetwork,
  getVersionInfo,
  getLatestLedger,
  getLedgers,
  getLedgerEntries,
  getTransaction,
  getTransactions,
  sendTransaction,
  simulateTransaction,
  getFeeStats,
  getEvents,
  queryEvents,
  traceTransaction,
  resourceReport,
];

export const methods: Method[] = [...served, rpcDiscover];
