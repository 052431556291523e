// The event shapes every part shares: what ingestion extracts from a ledger, what the store keeps
// and queries by, what getEvents and the streams filter on.

export interface TransactionEvents {
  transactionEventsXdr: string[];
  contractEventsXdr: string[][];
  diagnosticEventsXdr: string[];
}

/** One contract/system event as ingestion writes it. Its id is formatted from (ledger, tx, op, index). */
export interface EventRow {
  tx: number;                  // the id's transaction field: application order, or 0 / 1048575 for ledger-level stages
  op: number;                  // the id's operation field: operation index, or 4095 for AFTER_TX
  index: number;               // the id's event index
  applicationOrder: number;    // the transaction that emitted it
  event: Uint8Array;           // ContractEvent XDR
}

/** A place in the event order: the reference's cursor fields (event ids are formatted from them). */
export interface EventPosition { ledger: number; tx: number; op: number; event: number }

/** One topic filter: a value (ScVal XDR) or null for `*` per segment; flexible = ends with `**`. */
export interface TopicPattern { segments: Array<Uint8Array | null>; flexible: boolean }

/** One getEvents filter, decoded. An empty list places no restriction on its dimension. */
export interface EventFilterSpec {
  types: number[];             // ContractEventType values
  contractIds: Uint8Array[];   // 32-byte contract ids
  topics: TopicPattern[];
}
