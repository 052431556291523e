// The transaction set of a ledger without transactions, as every close makes it: both phases of a
// generalized set (classic, then Soroban in parallel stages), empty, chained by the previous
// ledger's hash. Genesis, fast-forwarded ledgers and a fork's checkpoint ledger all use it.
import type { xdr } from '../xdr/xdr.ts';

export function emptyTxSet(previousLedgerHash: Uint8Array): xdr.GeneralizedTransactionSetWire {
  return {
    v: 1,
    v1TxSet: { previousLedgerHash, phases: [{ v: 0, v0Components: [] }, { v: 1, parallelTxsComponent: { baseFee: null, executionStages: [] } }] },
  };
}
