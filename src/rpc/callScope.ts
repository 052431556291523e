// The limits of one request and of each method call in it, built for the common case: most calls
// finish synchronously and never need an AbortSignal, and Node's AbortController/EventTarget cost
// microseconds each, which on the hot path (getLatestLedger, getTransaction) is a measurable share.
// So a request's abandonment is a plain set of callbacks, and a call's AbortSignal is only made
// when a handler asks for it.
import type { AnswerBudget } from './answerBudget.ts';
import type { CallClient } from './answerBacklog.ts';
import type { CallerHeaders } from './callerPolicy.ts';
import type { MethodCall, Serving, StreamConnection } from './methods/types.ts';
import { SlicedWork } from '../work/slicedWork.ts';

/** How long a call works before it gives the event loop a turn. */
export const CALL_SLICE_MS = 3;

/**
 * One request being given up (an HTTP request's global time limit passed or its client left; a
 * WebSocket's connection closed). The calls still running on it listen; a call that ends stops
 * listening, so a long-lived connection does not collect one listener per call it ever made.
 */
export class Abandonment {
  private reasonValue: unknown;
  private fired = false;
  private listeners: Set<(reason: unknown) => void> | undefined;

  /** True once the request is abandoned. */
  get abandoned(): boolean { return this.fired; }
  /** Why it was abandoned (undefined until it is). */
  get reason(): unknown { return this.reasonValue; }
  /** Calls listening now (tests, diagnostics). */
  get listening(): number { return this.listeners?.size ?? 0; }

  /** Calls `fn` when the request is abandoned (at once if it already is); the result stops listening. */
  onAbandon(fn: (reason: unknown) => void): () => void {
    if (this.fired) {
      fn(this.reasonValue);
      return () => {};
    }
    const listeners = (this.listeners ??= new Set());
    listeners.add(fn);
    return () => { listeners.delete(fn); };
  }

  abandon(reason: unknown): void {
    if (this.fired) return;
    this.fired = true;
    this.reasonValue = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const fn of listeners) fn(reason);
  }
}

/** What a call's `serving()` asks: its dispatcher (jsonrpc.ts). */
export interface ServingSource {
  servingFor(streaming: boolean, caller: CallerHeaders | undefined): Serving;
}

/** One method call's limits: its (lazily made) signal, the request's budget, and time slices. */
export class CallScope implements MethodCall {
  readonly budget: AnswerBudget;
  stream: StreamConnection | undefined;
  readonly client: CallClient | undefined;
  private readonly source: ServingSource | undefined;
  private readonly caller: CallerHeaders | undefined;
  private controller: AbortController | undefined;
  private stopReason: unknown;
  private stopped = false;
  private slices: SlicedWork | undefined;

  constructor(budget: AnswerBudget, stream?: StreamConnection, client?: CallClient, source?: ServingSource, caller?: CallerHeaders) {
    this.budget = budget;
    this.stream = stream;
    this.client = client;
    this.source = source;
    this.caller = caller;
  }

  serving(): Serving {
    if (this.source === undefined) throw new Error('a call made outside a dispatcher has no served methods');
    return this.source.servingFor(this.stream !== undefined, this.caller);
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.stopped) this.controller.abort(this.stopReason);
    }
    return this.controller.signal;
  }

  /** Stops the call: its signal fires and its next checkpoint throws `reason`. */
  stop(reason: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopReason = reason;
    this.controller?.abort(reason);
  }

  async checkpoint(): Promise<void> {
    this.slices ??= new SlicedWork(() => this.stopped, CALL_SLICE_MS);
    if (this.stopped || !(await this.slices.checkpoint())) throw this.stopReason;
  }
}

/** The limits a handler gets when called outside a request (tests, benchmarks): `signal` stops it. */
export function methodCall(signal: AbortSignal, budget: AnswerBudget): MethodCall {
  const call = new CallScope(budget);
  if (signal.aborted) call.stop(signal.reason);
  else signal.addEventListener('abort', () => call.stop(signal.reason), { once: true });
  return call;
}
