// What a trace says about one transaction (lumen_traceTransaction, simulateTransaction's `trace:
// true`, `lumen-rpc trace`, the explorer's call tree). Every cost in it was metered by the Soroban
// host during the execution the trace describes (its budget, read at each frame's push and pop);
// every fee part comes from the host's own fee function. Values (arguments, return values, keys,
// entries, event topics) are in the stellar-xdr crate's JSON form, the one `xdrFormat: "json"` uses.

/** A value in the stellar-xdr crate's JSON form (e.g. an ScVal `{"u32": 5}`). */
export type XdrJson = unknown;

/** Instructions or bytes of one frame: with its callees (inclusive) and without (exclusive). */
export interface FrameCost { inclusive: number; exclusive: number }

/** One storage call a contract frame made through the host (get/put/has/del/extend_*). */
export interface StorageCall {
  /** The host function: get_contract_data, put_contract_data, has_contract_data, del_contract_data, extend_contract_data_ttl, … */
  call: string;
  /** read, write, delete or extend. */
  access: 'read' | 'write' | 'delete' | 'extend';
  /** The storage type the host was given: Persistent, Temporary or Instance. */
  storage?: string;
  /** The key as the host shows it (small values in full; objects by their host handle). */
  key: string;
  /** A write's value as the host shows it. */
  value?: string;
}

/** A contract event, in the order the host emitted it, tied to the frame that emitted it. */
export interface TracedEvent {
  /** Position among all the transaction's events (diagnostic ones excluded), from 0. */
  index: number;
  contract: string | null;
  type: 'contract' | 'system';
  topics: XdrJson[];
  data: XdrJson;
  /** False when the frame that emitted it (or one of its callers) failed: the event did not happen. */
  successful: boolean;
}

/** One frame of the invocation tree. */
export interface TraceFrame {
  /** Depth-first position in the tree, from 0 (the host function). */
  id: number;
  /** `host_function` (the operation's root), `contract` (a Wasm contract) or `sac` (a Stellar Asset Contract). */
  kind: 'host_function' | 'contract' | 'sac';
  /** The contract's strkey (C…); absent on the host-function root. */
  contract?: string;
  /** The function called; for the root, the host function type (InvokeContract, CreateContract, …). */
  function: string;
  args: XdrJson[];
  /** The return value, when the frame returned. */
  result?: XdrJson;
  /** The host's error, when the frame failed (e.g. "Error(Contract, #1)"). */
  error?: string;
  /** The frame failed, so everything it changed (storage, events) was rolled back. */
  rolledBack: boolean;
  cpuInstructions: FrameCost;
  memoryBytes: FrameCost;
  storage: StorageCall[];
  events: TracedEvent[];
  /** Ids of the authorization-tree nodes this frame consumed (see TraceAuth). */
  authorizedBy: number[];
  calls: TraceFrame[];
}

/** A ledger entry before and after, with the frames that could have written it. */
export interface StateChange {
  key: XdrJson;
  /** The entry before (null: it did not exist). */
  before: XdrJson | null;
  /** The entry after (null: deleted). */
  after: XdrJson | null;
  /** Frames (ids) of the contract that owns the entry: a contract writes only its own storage; balances belong to their asset's SAC. */
  frames: number[];
}

/** A node of an authorization tree: one invocation an address authorized. */
export interface TraceAuthNode {
  id: number;
  contract?: string;
  function: string;
  args: XdrJson[];
  /** The frames (ids) that match this authorized invocation. */
  frames: number[];
  subInvocations: TraceAuthNode[];
}

export interface TraceAuth {
  /** The address that authorized (the transaction's source for source-account credentials). */
  address: string;
  credentials: 'source_account' | 'address' | 'address_v2' | 'address_with_delegates';
  root: TraceAuthNode;
}

/** The resource fee in parts, each from the host's fee function; next to what was charged. */
export interface TraceFee {
  /** What the transaction declared it may pay for resources. */
  declaredResourceFee: string;
  /** Charged: inclusion fee + resource fee (non-refundable + refundable actually used + rent). */
  charged: string;
  inclusion: string;
  nonRefundable: string;
  refundable: string;
  rent: string;
  /** The non-refundable and refundable fee split by resource, from the declared resources. */
  parts: {
    /** What a transaction using no resource at all pays: the historical fee of the result it leaves. */
    baseline: string;
    instructions: string;
    diskReadEntries: string;
    writeEntries: string;
    diskReadBytes: string;
    writeBytes: string;
    transactionSize: string;
    contractEvents: string;
  };
}

/** One operation's trace. Contract calls have an invocation tree; every operation has its state diff. */
export interface OperationTrace {
  index: number;
  type: string;
  /** The host function's call tree (InvokeHostFunction only). */
  invocation?: TraceFrame;
  stateChanges: StateChange[];
}

export interface HostTotals {
  /** What the host's budget metered for the whole invocation, setup and teardown included. */
  cpuInstructions: number;
  memoryBytes: number;
  /** Of which outside any frame: decoding the inputs, building the storage map, encoding the outputs. */
  outsideFrames: { cpuInstructions: number; memoryBytes: number };
}

export interface TransactionTrace {
  hash: string;
  ledger?: number;
  /** Position in the ledger's application order, from 1 (as getTransaction's applicationOrder). */
  applicationOrder?: number;
  /** The transaction's result code name (txSUCCESS, txFAILED, …). */
  status: string;
  /**
   * lumen_traceTransaction re-executes the transaction on the state before it; this says whether the
   * re-executed result and meta equal the stored ones byte for byte (absent for simulations).
   */
  reproduced?: { result: boolean; meta: boolean; difference?: string };
  operations: OperationTrace[];
  auth: TraceAuth[];
  host?: HostTotals;
  fee?: TraceFee;
}
