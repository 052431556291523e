// Where our OpenRPC document may differ from the reference's published one (stellar-docs'
// stellar-rpc.openrpc.json, info.version 27.1.1): our deliberate extensions, and the few places
// where that document does not say what the reference node actually sends or accepts (we follow
// the node; the evidence is named). Anything else that differs fails scripts/compareOpenRpc.ts.
import { devMethods } from '../methods/dev/index.ts';

export type Where = 'method' | 'params' | 'result';
export type DifferenceKind = 'missing' | 'extra' | 'type' | 'required' | 'enum';

export interface KnownDifference {
  method: string;
  where: Where;
  /** As compare.ts names members: `events[].pagingToken`, `pagination.order`; '' for a method. */
  path: string;
  kind: DifferenceKind;
  /** `extension`: ours, on purpose. `reference node`: the reference's document lags its own node. */
  source: 'extension' | 'reference node';
  why: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  // ---- our extensions ----
  { method: 'rpc.discover', where: 'method', path: '', kind: 'extra', source: 'extension', why: 'OpenRPC service discovery' },
  {
    method: 'queryEvents', where: 'method', path: '', kind: 'extra', source: 'extension',
    why: 'the reference\'s archive-node beta method, not in its published document',
  },
  { method: 'getEvents', where: 'params', path: 'pagination.order', kind: 'extra', source: 'extension', why: 'descending pages (stellar-rpc#575)' },
  { method: 'getEvents', where: 'params', path: 'order', kind: 'extra', source: 'extension', why: 'top-level spelling of pagination.order' },
  { method: 'getEvents', where: 'params', path: 'txHash', kind: 'extra', source: 'extension', why: 'the events of one transaction' },
  {
    method: 'getEvents', where: 'result', path: 'events[].pagingToken', kind: 'extra', source: 'extension',
    why: 'equal to id; the service specification requires it and older clients read it (dropped by the reference in v23)',
  },
  {
    method: 'getLedgerEntries', where: 'params', path: 'ledger', kind: 'extra', source: 'extension',
    why: 'entries as they were at the end of a past ledger (stellar-rpc#375)',
  },
  {
    method: 'simulateTransaction', where: 'result', path: 'cost', kind: 'extra', source: 'extension',
    why: 'the legacy cpuInsns/memBytes the reference dropped in 2024; clients ignore it',
  },
  {
    method: 'getVersionInfo', where: 'result', path: 'methods', kind: 'extra', source: 'extension',
    why: 'capability discovery (stellar-rpc#995): the methods served on this connection, as rpc.discover lists them',
  },
  {
    method: 'getVersionInfo', where: 'result', path: 'limits', kind: 'extra', source: 'extension',
    why: 'capability discovery (stellar-rpc#995): the limits this node enforces, as configured',
  },
  // the developer methods, in the document of a standalone network that serves them
  ...devMethods.map((m): KnownDifference => ({
    method: m.name, where: 'method', path: '', kind: 'extra', source: 'extension', why: 'developer method (standalone network)',
  })),
  // ---- the reference's document behind its node ----
  {
    method: 'getLedgerEntries', where: 'result', path: 'entries[].extXdr', kind: 'extra', source: 'reference node',
    why: 'sent by the node (LedgerEntryResult.extXdr, the LedgerEntryExt), not in the document',
  },
  {
    method: 'sendTransaction', where: 'params', path: 'xdrFormat', kind: 'extra', source: 'reference node',
    why: 'accepted by the node (SendTransactionRequest.xdrFormat), not in the document',
  },
  {
    method: 'sendTransaction', where: 'result', path: 'latestLedgerCloseTime', kind: 'type', source: 'reference node',
    why: 'the node sends a string (int64 tagged `,string`, as in getTransaction); the document says number',
  },
  {
    method: 'simulateTransaction', where: 'params', path: 'useUpgradedAuth', kind: 'extra', source: 'reference node',
    why: 'accepted by the node since v27.1.0 (CAP-71 auth, stellar-rpc#783), not in the document',
  },
];
