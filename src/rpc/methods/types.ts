// The contract between the JSON-RPC transport and one method. A method reads storage (and, for
// sendTransaction, hands the envelope to the submitter; for simulateTransaction, runs the
// simulator); it never writes storage.
import type { Config } from '../../config/config.ts';
import type { LedgerArchive, StoreReader } from '../../store/types.ts';
import type { AuthMode, Simulation } from '../../host/simulator.ts';
import type { AnswerBudget } from '../answerBudget.ts';
import type { CallClient } from '../answerBacklog.ts';
import type { HeavyWork } from '../heavyWork.ts';
import type { RpcError } from '../errors.ts';
import type { StandaloneNetwork } from '../../standalone/standaloneNetwork.ts';
import type { ForkedState } from '../../fork/forkedState.ts';
import type { StateDir } from '../../standalone/stateDir.ts';
import type { TransactionSubmitter } from '../../submit/transactionSubmitter.ts';

/** What simulateTransaction runs on: the native host (src/host/simulator.ts's Simulator). */
export interface TransactionSimulator {
  /**
   * InvokeHostFunction. Host failures come back in `error`; rejects with PreflightQueueFullError
   * when the queue is full, or with the signal's reason when it fires while waiting.
   */
  invoke(input: { transactionXdr: string }, opts: {
    authMode?: AuthMode; useUpgradedAuth?: boolean; instructionLeeway?: number; enableDebug?: boolean; signal?: AbortSignal;
    /** The developer network's impersonation (src/standalone/impersonation.ts). */
    impersonationSigner?: Buffer; impersonatedAccounts?: Buffer[];
  }): Promise<Simulation>;
  /** ExtendFootprintTTL / RestoreFootprint, the footprint read from the envelope's SorobanTransactionData. */
  footprint(input: { transactionXdr: string }, opts: { signal?: AbortSignal }): Promise<Simulation>;
}

export interface NodeInfo {
  version: string;
  commitHash: string;
  buildTimestamp: string;
  captiveCoreVersion: string;
  friendbotUrl: string | undefined;
}

export interface MethodContext {
  store: StoreReader;
  config: Config;
  node: NodeInfo;
  submitter: TransactionSubmitter;
  simulator: TransactionSimulator;
  /** The slots and XDR-to-JSON workers of methods that build large answers. */
  heavy: HeavyWork;
  /** Ledgers older than the store keeps (--serve-ledgers-from-datastore); absent: the window only. */
  ledgerArchive?: LedgerArchive;
  /** The standalone network the developer methods (lumen_*) act on; absent where they are not served. */
  dev?: StandaloneNetwork;
  /** A fork (--fork-url): entries not held locally are fetched from the forked network first. */
  fork?: ForkedState;
  /** The one folder lumen_dumpState may write files into (--state-dir); absent: it only answers. */
  stateDir?: StateDir;
}

/** What one call of a method gets besides its params: its limits. */
export interface MethodCall {
  /** Fires when the call's time limit passes or its HTTP request is abandoned. */
  signal: AbortSignal;
  /** The request's answer budget (shared by a batch's elements). */
  budget: AnswerBudget;
  /**
   * Between two pieces of work: gives the event loop a turn once this call has run for a slice of a
   * few milliseconds, and throws the signal's reason once it has fired.
   */
  checkpoint(): Promise<void>;
  /** The streaming connection the call came over (WebSocket); absent over HTTP POST. */
  stream?: StreamConnection;
  /** The client the call came from (HTTP: its source address); absent for calls made in-process. */
  client?: CallClient;
  /**
   * What the dispatcher the call came through serves to its caller on its connection (rpc.discover,
   * getVersionInfo). Throws for a call made in-process, outside any dispatcher.
   */
  serving(): Serving;
}

/**
 * What one dispatcher serves to one caller on one kind of connection: its methods less those it only
 * refuses (a developer method where the network is not standalone, subscribe/unsubscribe over HTTP
 * POST, a privileged method for a caller its CallerPolicy refuses), and the dispatcher's own limits.
 * The same object for every call alike (rpc.discover builds its document once per object).
 */
export interface Serving {
  /** In the order the dispatcher registered them. */
  readonly methods: readonly Method[];
  /** Longest batch accepted. */
  readonly maxBatchSize: number;
  /** Bytes of one request's answer (a batch shares them); 0: no limit. */
  readonly maxResponseBodyBytes: number;
  /** A served method's time limit in seconds (-32001 past it); 0: none. */
  maxDurationSeconds(method: string): number;
}

/** What `subscribe` / `unsubscribe` act on: one streaming connection's subscriptions. */
export interface StreamConnection {
  /** The new subscription's id, or an RpcError. */
  subscribe(params: Record<string, unknown>): string;
  /** False when the connection has no subscription by that id. */
  unsubscribe(id: string): boolean;
}

/** A JSON schema (draft-07, the dialect of OpenRPC 1.3 and of ajv's default). */
export type JsonSchema = Record<string, unknown>;

/** What the OpenRPC document (rpc.discover) adds to a param's validation schema. */
export interface ParamDoc {
  /**
   * The method cannot do without it. Validation leaves such params optional so that the handler
   * answers a missing one with the reference's own error; the document says they are needed.
   */
  required?: boolean;
  /**
   * Members merged over the validation schema in the document only: constraints the handler checks
   * itself, with the reference's messages (an enum answered in a result's `error`, not -32602).
   */
  schema?: JsonSchema;
}

/** A method as rpc.discover's OpenRPC document describes it. */
export interface MethodDoc {
  summary: string;
  description?: string;
  /** Per param name; params are otherwise described by `paramsSchema` (properties, descriptions). */
  params?: Record<string, ParamDoc>;
  /**
   * The result as answered with the default xdrFormat (base64 XDR). Members marked with
   * shared/schemas.ts's xdrValue/xdrList are renamed and carried as JSON under xdrFormat "json"; the
   * document derives that form (src/rpc/openrpc/xdrJsonForm.ts).
   */
  result: { name: string; schema: JsonSchema };
}

export interface Method {
  name: string;
  /** JSON schema of `params` (an object); members that are null have already been removed. */
  paramsSchema: object;
  /** For rpc.discover. Every method the node serves has one (a unit test checks); test doubles need none. */
  doc?: MethodDoc;
  /**
   * True when the handler charges the answer budget itself, item by item (paged methods); the
   * result of any other method is charged whole once built.
   */
  chargesBudget?: boolean;
  /**
   * The error for params refused before the handler runs (positional, or against the schema), given
   * what was wrong; by default -32602 "invalid parameters" with that text as `data`.
   */
  invalidParams?(detail: string): RpcError;
  /**
   * Refuse params the schema's `properties` do not name, instead of ignoring them as the
   * reference's decoder does: for our own methods, where a misspelt param must not pass silently.
   */
  strictParams?: boolean;
  /**
   * Changes state outside the protocol (the developer methods): answered only to the callers the
   * dispatcher's CallerPolicy admits, and refused before any work otherwise.
   */
  privileged?: boolean;
  /**
   * Small, cheap answers the node must keep giving whatever other clients do (getHealth,
   * getLatestLedger, getNetwork, sendTransaction, getTransaction, getVersionInfo, getFeeStats):
   * never refused for unread answers. Any other method is refused (-32098) while its client holds
   * its share of unread answer bytes, or all clients together the server's ceiling
   * (rpc/answerBacklog.ts).
   */
  light?: boolean;
  /**
   * Served only over a streaming connection (WebSocket: subscribe, unsubscribe); over HTTP POST the
   * handler refuses it, and it is not among the methods served there.
   */
  streamOnly?: boolean;
  /**
   * Registered only to refuse the method, for this reason (the developer methods on a node that does
   * not serve them): never among the methods served.
   */
  notServed?: string;
  handler(params: Record<string, unknown>, ctx: MethodContext, call: MethodCall): unknown | Promise<unknown>;
}
