// Request limits, as the reference node applies them (stellar-rpc `network/backlogQ.go`,
// `network/requestdurationlimiter.go`):
//  - per method, a cap on concurrently executing calls; one more gets JSON-RPC -32098
//    "rpc queue for <method> surpassed queue limit of <N> requests";
//  - per method, a time limit; past it the call answers -32001
//    "[-32001] request exceeded processing limit threshold" at once and the handler's AbortSignal
//    fires. The call keeps its queue slot until the handler really returns, as in the reference.
//    A call that finishes after limit/3 counts as a warning;
//  - per HTTP request on the JSON-RPC paths, a cap on concurrent requests (HTTP 503, empty body)
//    and a time limit (HTTP 504, empty body).
// A limit <= 0 (or missing) means "no limit".
import type { Config } from '../config/config.ts';
import { ErrorCode, RpcError } from './errors.ts';

/** The reference's value-typed jrpc2 error: the code is repeated inside the message. */
export const PROCESSING_LIMIT_MESSAGE = '[-32001] request exceeded processing limit threshold';

export function processingLimitError(): RpcError {
  return new RpcError(ErrorCode.requestExceededProcessingLimit, PROCESSING_LIMIT_MESSAGE);
}

export function queueLimitError(method: string, limit: number): RpcError {
  return new RpcError(ErrorCode.systemError, `rpc queue for ${method} surpassed queue limit of ${limit} requests`);
}

/**
 * The deepest array/object nesting of a request body (transport/requestBody.ts): the reference's
 * decoder, Go's encoding/json, refuses a document nested deeper (its scanner's maxNestingDepth).
 */
export const MAX_JSON_DEPTH = 10_000;

/** The reference's REQUEST_EXECUTION_WARNING_THRESHOLD default (not in Config). */
export const GLOBAL_WARNING_THRESHOLD_MS = 5_000;
/** The reference's per-method warning threshold is the limit divided by this. */
export const WARNING_THRESHOLD_DENOMINATOR = 3;

function positive(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : Infinity;
}

/** Concurrency cap and time limit for one method, from `methodQueueLimits` / `methodMaxDurations`. */
export class MethodGate {
  readonly method: string;
  readonly queueLimit: number;   // Infinity = none
  readonly maxDurationMs: number; // Infinity = none
  readonly warnMs: number;
  inflight = 0;

  constructor(method: string, queueLimit: number, maxDurationMs: number) {
    this.method = method;
    this.queueLimit = positive(queueLimit);
    this.maxDurationMs = positive(maxDurationMs);
    this.warnMs = this.maxDurationMs / WARNING_THRESHOLD_DENOMINATOR;
  }

  static fromConfig(method: string, config: Pick<Config, 'methodQueueLimits' | 'methodMaxDurations'>): MethodGate {
    const q = config.methodQueueLimits[method] ?? config.methodQueueLimits.default;
    const d = config.methodMaxDurations[method] ?? config.methodMaxDurations.default;
    return new MethodGate(method, q ?? 0, (d ?? 0) * 1000);
  }

  /** Takes a slot, or returns the error to answer with. */
  enter(): RpcError | undefined {
    if (this.inflight >= this.queueLimit) return queueLimitError(this.method, this.queueLimit);
    this.inflight++;
    return undefined;
  }

  exit(): void { this.inflight--; }
}

/** Concurrency cap and time limit for whole HTTP requests on the JSON-RPC paths. */
export class GlobalGate {
  readonly limit: number;        // Infinity = none
  readonly maxDurationMs: number; // Infinity = none
  readonly warnMs: number;
  inflight = 0;

  constructor(limit: number, maxDurationMs: number, warnMs = GLOBAL_WARNING_THRESHOLD_MS) {
    this.limit = positive(limit);
    this.maxDurationMs = positive(maxDurationMs);
    this.warnMs = Math.min(positive(warnMs), this.maxDurationMs);
  }

  static fromConfig(config: Pick<Config, 'requestBacklogGlobalQueueLimit' | 'maxRequestExecutionDuration'>): GlobalGate {
    return new GlobalGate(config.requestBacklogGlobalQueueLimit, config.maxRequestExecutionDuration * 1000);
  }

  /** False when the request must be refused (HTTP 503). */
  enter(): boolean {
    if (this.inflight >= this.limit) return false;
    this.inflight++;
    return true;
  }

  exit(): void { this.inflight--; }
}

export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * Settles with `promise`'s value, or with TIMED_OUT after `ms` (then calls `onTimeout` first).
 * A rejection of `promise` after the timeout is swallowed.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T | typeof TIMED_OUT> {
  if (ms === Infinity) return promise;
  return new Promise<T | typeof TIMED_OUT>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      onTimeout();
      resolve(TIMED_OUT);
    }, ms);
    promise.then(
      (v) => { if (!done) { done = true; clearTimeout(timer); resolve(v); } },
      (e: unknown) => { if (!done) { done = true; clearTimeout(timer); reject(e); } },
    );
  });
}
