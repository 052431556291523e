// The contract between the JSON-RPC transport and one method. A method reads storage (and, for
// sendTransaction, hands the envelope to the submitter; for simulateTransaction, runs the
// simulator); it never writes storage.
import type { Config } from '../../config/config.ts';
import type { StoreReader } from '../../store/types.ts';
import type { TransactionEnvelope } from '../../xdr/codec.ts';
import type { AuthMode, Simulation } from '../../host/simulator.ts';
import type { AnswerBudget } from '../answerBudget.ts';
import type { HeavyWork } from '../heavyWork.ts';
import type { RpcError } from '../errors.ts';

export type SubmitStatus = 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER' | 'ERROR';

export interface SubmitResult {
  status: SubmitStatus;
  hash: Uint8Array;                 // network hash of the envelope (outer hash for a fee bump)
  errorResult?: Uint8Array;         // TransactionResult XDR, status ERROR only
  diagnosticEvents?: Uint8Array[];  // DiagnosticEvent XDRs, status ERROR only
}

/** Where sendTransaction goes: the standalone network's queue, or a core node's /tx. */
export interface TransactionSubmitter {
  /** `envelope` is `envelopeXdr` decoded (the caller has decoded it to check it: not done twice). */
  submit(envelopeXdr: Uint8Array, envelope: TransactionEnvelope): Promise<SubmitResult>;
}

/** What simulateTransaction runs on: the native host (src/host/simulator.ts's Simulator). */
export interface TransactionSimulator {
  /**
   * InvokeHostFunction. Host failures come back in `error`; rejects with PreflightQueueFullError
   * when the queue is full, or with the signal's reason when it fires while waiting.
   */
  invoke(input: { transactionXdr: string }, opts: {
    authMode?: AuthMode; useUpgradedAuth?: boolean; instructionLeeway?: number; enableDebug?: boolean; signal?: AbortSignal;
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
}

export interface Method {
  name: string;
  /** JSON schema of `params` (an object); members that are null have already been removed. */
  paramsSchema: object;
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
  handler(params: Record<string, unknown>, ctx: MethodContext, call: MethodCall): unknown | Promise<unknown>;
}
