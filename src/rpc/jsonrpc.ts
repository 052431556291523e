// The JSON-RPC 2.0 envelope, independent of HTTP: takes a parsed request body (one object or a
// batch array), runs the methods, and produces the response text.
//
// Envelope checks follow creachadair/jrpc2 v1.3.3 (`json.go` jmessage.parseJSON, `server.go`,
// `jhttp/bridge.go`) as the reference node uses it:
//  - a message that is not a JSON object: -32700 "request is not a JSON object" (a JSON `null`
//    counts as an empty object, so it gets -32600 "invalid version marker");
//  - `jsonrpc` not a string: -32700 "invalid version key"; not exactly "2.0": -32600 "invalid version marker";
//  - `id` not a string/number/null: -32600 "invalid request ID" (the response id is then null);
//  - `method` not a string: -32700 "invalid method name"; missing or "": -32600 "empty method name";
//  - `params` not an object/array (null = absent): -32600 "parameters must be array or object";
//  - `result`/`error` next to `method`: -32600 "mixed request and reply fields";
//  - any other key: -32600 "extra fields in request" with `data` = the names. jrpc2 sends them as a
//    JSON array; we send one string ("a, b") because Python's client rejects non-string data;
//  - the first problem found wins (key order here; jrpc2 walks a Go map, so its order is random);
//  - these envelope errors are answered even for messages without an id (with id null);
//  - a valid message without id (or with id null) is a notification: it runs, nothing is answered,
//    not even an unknown method;
//  - unknown method: -32601 "method not found", `data` = the method name (as jrpc2 v1.3.3 does).
// Then, per method (the reference wraps each handler the same way): the concurrency cap (-32098),
// params (array -> -32602; null members dropped recursively, then the method's JSON schema; a
// failure is -32602 "invalid parameters" with a string `data`, or the method's own invalidParams
// error), the handler with an AbortSignal and
// the time limit (-32001), metrics and logs. An RpcError thrown by a handler is sent as it is; any
// other error becomes -32603 with its message and is logged.
// Batches: elements run concurrently, answers keep request order and leave out notifications; an
// empty batch or one with only notifications has no answer (HTTP 204); ids may repeat (each element
// gets its own answer). A batch longer than `maxBatchSize` gets one -32600 error object.
// Beyond the reference: a call whose client leaves its answers unread (or while all clients do, past
// the server's ceiling) is refused with -32098 before any work, unless its method is a light one
// (rpc/answerBacklog.ts).
import { performance } from 'node:perf_hooks'; // Node's global of that name is a getter, called at each use
import type { ErrorObject, ValidateFunction } from 'ajv';
import { lazyValidator, paramsAjv } from './paramsSchemas.ts';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { ErrorCode, RpcError, type RpcErrorData } from './errors.ts';
import { MethodGate, TIMED_OUT, processingLimitError, withTimeout } from './limits.ts';
import { AnswerBudget } from './answerBudget.ts';
import { JsonChunks, RawJson } from './rawJson.ts';
import { SlicedWork } from '../work/slicedWork.ts';
import { CALL_SLICE_MS, CallScope, type Abandonment, type ServingSource } from './callScope.ts';
import { statusLabelForCode, type Metrics } from './metrics.ts';
import type { CallerHeaders, CallerPolicy } from './callerPolicy.ts';
import type { CallClient } from './answerBacklog.ts';
import type { Method, MethodContext, Serving, StreamConnection } from './methods/types.ts';

/** Default cap on batch length; see DispatcherOptions.maxBatchSize. */
export const DEFAULT_MAX_BATCH_SIZE = 1000;

export interface DispatcherOptions {
  methods: readonly Method[];
  ctx: MethodContext;
  logger?: Logger;
  metrics?: Metrics;
  /** Per-method queue limits and time limits; defaults to ctx.config. */
  limits?: Pick<Config, 'methodQueueLimits' | 'methodMaxDurations'>;
  /**
   * Longest batch accepted (default 1000, the default per-method queue limit, so one batch alone
   * cannot overflow a method's queue). The reference has no such cap; its 512 KiB body limit
   * allows about 11,000 minimal requests.
   */
  maxBatchSize?: number;
  /** Bytes of one request's answer (a batch shares them); 0 = no limit. Defaults to ctx.config. */
  maxResponseBodyBytes?: number;
  /** Who may call privileged methods; without one, every caller may (in-process use). */
  callerPolicy?: CallerPolicy;
  /** How long a batch starts its elements before going on in a later turn (default CALL_SLICE_MS). */
  batchSliceMs?: number;
}

/** What one request's messages share (an HTTP request, or a WebSocket message). */
export interface RequestScope {
  /** Set when the request is abandoned (its global time limit, or the client left). */
  abandonment?: Abandonment;
  /** Exact id texts of numeric ids (see requestBody.ts). */
  idTexts?: WeakMap<object, string>;
  /** The streaming connection the request came over (WebSocket): subscribe/unsubscribe act on it. */
  stream?: StreamConnection;
  /** The request's Origin and Host (an HTTP request's, or a WebSocket's Upgrade): privileged methods check them. */
  caller?: CallerHeaders;
  /** Who sent it, with its unread answers: any but a light method is refused while it may not get one. */
  client?: CallClient;
}

interface Entry {
  method: Method;
  /** Its params validator, compiled at the method's first call (paramsSchemas.ts). */
  validator: () => ValidateFunction;
  gate: MethodGate;
  /** A strictParams method's param names (its schema's properties), read once at registration. */
  knownParams?: readonly string[];
}

/** A response's JSON text (large pages stay in pieces), or null when nothing is to be sent. */
export type Answer = string | JsonChunks | null;

let requestCounter = 0;

/** `{"jsonrpc":"2.0","id":…,"error":{…}}` */
export function errorResponseText(idText: string, code: number, message: string, data?: RpcErrorData): string {
  let err = `{"code":${code}`;
  if (message !== '') err += `,"message":${JSON.stringify(message)}`;
  if (data !== undefined) err += `,"data":${JSON.stringify(data)}`;
  return `{"jsonrpc":"2.0","id":${idText},"error":${err}}}`;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

/**
 * Drops null members of objects, at any depth (null array elements stay). Copies only what changes;
 * returns `v` itself when there is no null member. Iterative: params may nest as deep as the body
 * parser allows (10,000 levels), deeper than the call stack would go.
 */
export function stripNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  // Post-order walk: a container is rebuilt (if a member changed) after all its members are done.
  interface Frame { node: object; keys: string[] | undefined; i: number; out: unknown[] | Record<string, unknown> | undefined }
  const open = (node: object): Frame => ({ node, keys: Array.isArray(node) ? undefined : Object.keys(node), i: 0, out: undefined });
  const stack: Frame[] = [open(v)];
  let done: unknown = v; // the result of the frame that finished last
  let returning = false;
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const arr = Array.isArray(f.node) ? f.node as unknown[] : undefined;
    const obj = f.node as Record<string, unknown>;
    const count = arr ? arr.length : f.keys!.length;
    if (returning) {
      // `done` is the stripped member at position i
      returning = false;
      const original = arr ? arr[f.i] : obj[f.keys![f.i]];
      place(f, arr, done, done !== original);
      f.i++;
    }
    while (f.i < count) {
      const key = arr ? undefined : f.keys![f.i];
      const c = arr ? arr[f.i] : obj[key!];
      if (c === null && !arr) {
        ensureCopy(f, arr);
        f.i++;
        continue;
      }
      if (typeof c === 'object' && c !== null) break;
      place(f, arr, c, false);
      f.i++;
    }
    if (f.i < count) {
      stack.push(open((arr ? arr[f.i] : obj[f.keys![f.i]]) as object));
      continue;
    }
    stack.pop();
    done = f.out ?? f.node;
    returning = true;
  }
  return done;

  function ensureCopy(f: Frame, arr: unknown[] | undefined): void {
    if (f.out !== undefined) return;
    if (arr) { f.out = arr.slice(0, f.i); return; }
    const out: Record<string, unknown> = {};
    const o = f.node as Record<string, unknown>;
    for (let j = 0; j < f.i; j++) { const k = f.keys![j]; if (k !== '__proto__' && o[k] !== null) out[k] = o[k]; }
    f.out = out;
  }
  function place(f: Frame, arr: unknown[] | undefined, value: unknown, changed: boolean): void {
    if (changed) ensureCopy(f, arr);
    if (f.out === undefined) return;
    if (arr) (f.out as unknown[]).push(value);
    else { const k = f.keys![f.i]; if (k !== '__proto__') (f.out as Record<string, unknown>)[k] = value; }
  }
}

/** For a strictParams method: the params its schema does not name (`known`), said with the ones it does. */
function unknownParams(name: string, known: readonly string[], params: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(params).filter((k) => !known.includes(k));
  if (unknown.length === 0) return undefined;
  return `unknown param${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; ${name} takes ${known.length ? known.join(', ') : 'none'}`;
}

/** One line for `error.data` from ajv's first error, e.g. "params.startLedger must be integer". */
export function describeSchemaError(errors: readonly ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (e === undefined) return 'invalid parameters';
  const path = 'params' + e.instancePath.replace(/\/([^/]*)/g, (_m, seg: string) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg.replace(/~1/g, '/').replace(/~0/g, '~')}`));
  let msg = `${path} ${e.message ?? 'is invalid'}`;
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) msg += `: ${p.allowedValues.map((x) => JSON.stringify(x)).join(', ')}`;
  else if (e.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') msg += `: ${p.additionalProperty}`;
  return msg;
}

/** The error for params the dispatcher refuses (an array, or against the schema). */
const paramsError = (method: Method, detail: string): RpcError =>
  method.invalidParams?.(detail) ?? new RpcError(ErrorCode.invalidParams, 'invalid parameters', detail);

/** Like Go's Duration.String, to the microsecond: "850µs", "12.345ms", "1.5s". */
function formatDuration(ms: number): string {
  const us = Math.round(ms * 1000);
  if (us < 1000) return us + 'µs';
  if (us < 1_000_000) return us / 1000 + 'ms';
  return us / 1_000_000 + 's';
}

export class Dispatcher implements ServingSource {
  private readonly entries = new Map<string, Entry>();
  /** What is served, by (streaming connection: 1) | (privileged methods refused to the caller: 2). */
  private readonly servings: Array<Serving | undefined> = [];
  private readonly ctx: MethodContext;
  private readonly logger: Logger | undefined;
  private readonly metrics: Metrics | undefined;
  private readonly callerPolicy: CallerPolicy | undefined;
  readonly maxBatchSize: number;
  readonly maxResponseBodyBytes: number;
  private readonly batchSliceMs: number;

  constructor(options: DispatcherOptions) {
    this.batchSliceMs = options.batchSliceMs ?? CALL_SLICE_MS;
    this.ctx = options.ctx;
    this.maxResponseBodyBytes = options.maxResponseBodyBytes ?? options.ctx.config.maxResponseBodyBytes;
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.callerPolicy = options.callerPolicy;
    this.maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    const limits = options.limits ?? options.ctx.config;
    // Unknown keywords/formats in a schema are not fatal; no coercion, no defaults: params reach
    // the handler as sent, minus null members. Unknown params are ignored as Go's decoder does:
    // never rejected; where a schema says `additionalProperties: false` they are removed.
    const ajv = paramsAjv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, validateFormats: false, removeAdditional: true });
    for (const method of options.methods) {
      if (this.entries.has(method.name)) throw new Error(`duplicate JSON-RPC method ${method.name}`);
      const gate = MethodGate.fromConfig(method.name, limits);
      const knownParams = method.strictParams ? Object.keys((method.paramsSchema as { properties?: object }).properties ?? {}) : undefined;
      this.entries.set(method.name, { method, validator: lazyValidator(ajv, method.paramsSchema), gate, knownParams });
      this.metrics?.registerMethod(method.name, () => gate.inflight);
    }
  }

  /** Compiles every method's params schema now; throws naming the first method whose schema is bad (tests). */
  compileSchemas(): void {
    for (const entry of this.entries.values()) this.validatorOf(entry);
  }

  private validatorOf(entry: Entry): ValidateFunction {
    try {
      return entry.validator();
    } catch (e) {
      throw new Error(`invalid params schema for ${entry.method.name}: ${(e as Error).message}`);
    }
  }

  /** The method's limiter (tests, diagnostics). */
  gate(method: string): MethodGate | undefined { return this.entries.get(method)?.gate; }

  /**
   * The methods answered (not refused) on a connection of this kind to this caller, and this
   * dispatcher's limits: what rpc.discover documents and getVersionInfo lists. Left out: stand-ins
   * that only refuse (notServed), streamOnly methods off a streaming connection, and privileged
   * methods for a caller the policy refuses, as call() refuses them. One object per case.
   */
  servingFor(streaming: boolean, caller: CallerHeaders | undefined): Serving {
    const refused = caller !== undefined && this.callerPolicy !== undefined && this.callerPolicy.refusal(caller) !== undefined;
    const key = (streaming ? 1 : 0) | (refused ? 2 : 0);
    let serving = this.servings[key];
    if (serving === undefined) {
      const served: Method[] = [];
      for (const { method } of this.entries.values()) {
        if (method.notServed !== undefined || (method.streamOnly && !streaming) || (method.privileged && refused)) continue;
        served.push(method);
      }
      const entries = this.entries;
      serving = {
        methods: served,
        maxBatchSize: this.maxBatchSize,
        maxResponseBodyBytes: this.maxResponseBodyBytes,
        maxDurationSeconds(method: string): number {
          const ms = entries.get(method)?.gate.maxDurationMs ?? Infinity;
          return ms === Infinity ? 0 : ms / 1000;
        },
      };
      this.servings[key] = serving;
    }
    return serving;
  }

  /**
   * Answers a parsed request body. Returns the response JSON text, or null when nothing is to be
   * sent (notifications only, empty batch). Synchronous when every handler involved is.
   */
  handle(body: unknown, scope: RequestScope = {}): Answer | Promise<Answer> {
    const budget = new AnswerBudget(this.maxResponseBodyBytes);
    if (!Array.isArray(body)) return this.one(body, scope, budget);
    const n = body.length;
    if (n === 0) return null;
    if (n > this.maxBatchSize) {
      return errorResponseText('null', ErrorCode.invalidRequest, 'batch too large',
        `batch of ${n} requests exceeds the limit of ${this.maxBatchSize}`);
    }
    const parts = new Array<Answer | Promise<Answer>>(n);
    let pending = false;
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      // a long batch (1,000 elements) is started over several turns of the event loop
      if (performance.now() - started >= this.batchSliceMs) return this.startRest(body, i, parts, scope, budget);
      const r = this.one(body[i], scope, budget);
      parts[i] = r;
      if (r !== null && typeof r !== 'string') pending = true;
    }
    if (!pending) return joinBatch(parts as Answer[]);
    return Promise.all(parts).then(joinBatch);
  }

  /** Starts a batch's elements from `from` on, a slice at a time, then joins every answer. */
  private async startRest(body: unknown[], from: number, parts: Array<Answer | Promise<Answer>>, scope: RequestScope, budget: AnswerBudget): Promise<Answer> {
    const slices = new SlicedWork(() => false, this.batchSliceMs);
    for (let i = from; i < body.length; i++) {
      await slices.checkpoint();
      parts[i] = this.one(body[i], scope, budget);
    }
    return joinBatch(await Promise.all(parts));
  }

  /** Convenience for callers that want values: the parsed response (object, array) or null. */
  async handleToValue(body: unknown): Promise<unknown> {
    const answer = await this.handle(body);
    return answer === null ? null : JSON.parse(answerText(answer));
  }

  private one(msg: unknown, scope: RequestScope, budget: AnswerBudget): Answer | Promise<Answer> {
    if (typeof msg !== 'object' || Array.isArray(msg)) {
      return errorResponseText('null', ErrorCode.parseError, 'request is not a JSON object');
    }
    let version = '';
    let idText: string | undefined;
    let method = '';
    let params: unknown;
    let hasReply = false;
    let errCode = 0;
    let errMessage = '';
    let extra: string[] | undefined;
    if (msg !== null) {
      const m = msg as Record<string, unknown>;
      for (const key in m) {
        const v = m[key];
        switch (key) {
          case 'jsonrpc':
            if (typeof v === 'string') version = v;
            else if (v !== null && errCode === 0) { errCode = ErrorCode.parseError; errMessage = 'invalid version key'; }
            break;
          case 'id':
            if (typeof v === 'string') idText = JSON.stringify(v);
            else if (typeof v === 'number') idText = scope.idTexts?.get(m) ?? numberText(v);
            else if (v !== null && errCode === 0) { errCode = ErrorCode.invalidRequest; errMessage = 'invalid request ID'; }
            break;
          case 'method':
            if (typeof v === 'string') method = v;
            else if (v !== null && errCode === 0) { errCode = ErrorCode.parseError; errMessage = 'invalid method name'; }
            break;
          case 'params':
            if (v === null) params = undefined;
            else if (typeof v === 'object') params = v;
            else if (errCode === 0) { errCode = ErrorCode.invalidRequest; errMessage = 'parameters must be array or object'; }
            break;
          case 'error':
            if (v === null) break;
            if (isErrorObject(v)) hasReply = true;
            else if (errCode === 0) { errCode = ErrorCode.parseError; errMessage = 'invalid error value'; }
            break;
          case 'result':
            hasReply = true;
            break;
          default:
            (extra ??= []).push(key);
        }
      }
    }
    if (errCode === 0) {
      if (version !== '2.0') { errCode = ErrorCode.invalidRequest; errMessage = 'invalid version marker'; }
      else if (method !== '' && hasReply) { errCode = ErrorCode.invalidRequest; errMessage = 'mixed request and reply fields'; }
      else if (extra !== undefined) {
        return errorResponseText(idText ?? 'null', ErrorCode.invalidRequest, 'extra fields in request', extra.join(', '));
      }
    }
    if (errCode !== 0) return errorResponseText(idText ?? 'null', errCode, errMessage);

    if (method === '') {
      return idText === undefined ? null : errorResponseText(idText, ErrorCode.invalidRequest, 'empty method name');
    }
    const entry = this.entries.get(method);
    if (entry === undefined) {
      return idText === undefined ? null : errorResponseText(idText, ErrorCode.methodNotFound, 'method not found', method);
    }
    return this.call(entry, params, idText, scope, budget);
  }

  private call(entry: Entry, rawParams: unknown, idText: string | undefined, scope: RequestScope, budget: AnswerBudget): Answer | Promise<Answer> {
    const start = performance.now();
    const reqNo = ++requestCounter;
    const logger = this.logger;
    if (logger !== undefined && logger.levelVal <= 20) {
      logger.debug({ subsys: 'jsonrpc', req: reqNo, json_req: idText, method: entry.method.name, params: rawParams }, 'starting JSONRPC request');
    }
    // a privileged method from a caller it does not answer (a web page, a rebinding Host): before any work
    if (entry.method.privileged && this.callerPolicy !== undefined && scope.caller !== undefined) {
      const refusal = this.callerPolicy.refusal(scope.caller);
      if (refusal !== undefined) {
        return this.finish(entry, idText, reqNo, start, undefined, new RpcError(ErrorCode.forbidden, 'forbidden', `${entry.method.name}: ${refusal}`), budget);
      }
    }
    // a page method called once the batch's answer is full: refused before any work
    if (entry.method.chargesBudget && budget.spent) return this.finish(entry, idText, reqNo, start, undefined, budget.tooLarge(), budget);
    // its client leaves its answers unread, or all clients together do: refused before any work
    if (scope.client !== undefined && entry.method.light !== true) {
      const refusal = scope.client.refusal();
      if (refusal !== undefined) return this.finish(entry, idText, reqNo, start, undefined, refusal, budget);
    }
    const gate = entry.gate;
    const full = gate.enter();
    if (full !== undefined) return this.finish(entry, idText, reqNo, start, undefined, full, budget);

    let params: Record<string, unknown>;
    if (rawParams === undefined) {
      params = {};
    } else if (Array.isArray(rawParams)) {
      gate.exit();
      return this.finish(entry, idText, reqNo, start, undefined,
        paramsError(entry.method, 'params must be an object; positional (array) params are not supported'), budget);
    } else {
      params = stripNulls(rawParams) as Record<string, unknown>;
    }
    let validate: ValidateFunction;
    try {
      validate = this.validatorOf(entry);
    } catch (e) { // a bad schema in the code: -32603 naming it, and logged
      gate.exit();
      return this.finish(entry, idText, reqNo, start, undefined, e, budget);
    }
    const unknown = entry.knownParams ? unknownParams(entry.method.name, entry.knownParams, params) : undefined;
    if (unknown || !validate(params)) {
      gate.exit();
      return this.finish(entry, idText, reqNo, start, undefined,
        paramsError(entry.method, unknown ?? describeSchemaError(validate.errors)), budget);
    }

    const call = new CallScope(budget, scope.stream, scope.client, this, scope.caller);
    const abandonment = scope.abandonment;
    // a request already given up (a batch's later element): the call starts stopped
    if (abandonment?.abandoned) call.stop(abandonment.reason);
    let result: unknown;
    try {
      result = entry.method.handler(params, this.ctx, call);
    } catch (e) {
      gate.exit();
      return this.finish(entry, idText, reqNo, start, undefined, e, budget);
    }
    if (!isThenable(result)) {
      gate.exit();
      return this.finish(entry, idText, reqNo, start, result, undefined, budget);
    }
    // Only a call still running can be abandoned: a request is given up by a timer or its client's
    // going away, never while a handler runs, so a synchronous call needs no listener.
    const stopListening = abandonment?.onAbandon((reason) => call.stop(reason));
    const promise = Promise.resolve(result);
    // The slot is held until the handler is really done, even after a timeout answer.
    const exit = (): void => {
      gate.exit();
      stopListening?.();
    };
    promise.then(exit, exit);
    let timedOut = false;
    return withTimeout(promise, gate.maxDurationMs, () => {
      timedOut = true;
      const err = processingLimitError();
      call.stop(err);
      this.metrics?.methodLimit(entry.method.name);
      this.logger?.info({ subsys: 'jsonrpc', method: entry.method.name }, `Request processing for ${entry.method.name} exceed limiting threshold of ${gate.maxDurationMs / 1000}s`);
    }).then(
      (v) => (v === TIMED_OUT || timedOut
        ? this.finish(entry, idText, reqNo, start, undefined, processingLimitError(), budget, true)
        : this.finish(entry, idText, reqNo, start, v, undefined, budget)),
      (e: unknown) => this.finish(entry, idText, reqNo, start, undefined, e, budget),
    );
  }

  /** Records metrics and logs for one call and builds its answer (null for a notification). */
  private finish(entry: Entry, idText: string | undefined, reqNo: number, start: number, result: unknown, error: unknown, budget: AnswerBudget, timedOut = false): Answer {
    const name = entry.method.name;
    let text: string | JsonChunks | undefined;
    let status: string;
    if (error === undefined && result instanceof JsonChunks) {
      if (!charges(entry, budget, result.bytes)) {
        error = budget.tooLarge(result.bytes);
      } else {
        status = 'ok';
        if (idText !== undefined) text = result.wrap(`{"jsonrpc":"2.0","id":${idText},"result":`, '}');
      }
    } else if (error === undefined) {
      let resultText: string | undefined;
      try {
        resultText = result instanceof RawJson ? result.json : JSON.stringify(result);
      } catch (e) {
        error = e;
      }
      // charged by its length: measuring UTF-8 bytes would cost every small answer a scan, and
      // results are ASCII but for the odd string value
      if (error === undefined && resultText !== undefined && !charges(entry, budget, resultText.length)) {
        error = budget.tooLarge(resultText.length);
      }
      if (error === undefined) {
        status = isFailedResult(result) ? 'error' : 'ok';
        if (idText !== undefined) {
          text = result instanceof RawJson ? result.answer(idText) : `{"jsonrpc":"2.0","id":${idText},"result":${resultText ?? 'null'}}`;
        }
      }
    }
    if (error !== undefined) {
      let rpcError: RpcError;
      if (error instanceof RpcError) {
        rpcError = error;
      } else {
        const message = error instanceof Error ? error.message : String(error);
        rpcError = new RpcError(ErrorCode.internalError, message);
        this.logger?.error({ subsys: 'jsonrpc', method: name, json_req: idText, err: error }, 'JSON-RPC method failed');
      }
      status = statusLabelForCode(rpcError.code);
      if (idText !== undefined) text = errorResponseText(idText, rpcError.code, rpcError.message, rpcError.data);
    }
    const ms = performance.now() - start;
    if (!timedOut && ms > entry.gate.warnMs) {
      this.metrics?.methodWarning(name);
      this.logger?.info({ subsys: 'jsonrpc', method: name }, `Request processing for ${name} exceed warning threshold of ${entry.gate.warnMs / 1000}s`);
    }
    this.metrics?.observeRequest(name, status!, ms / 1000);
    const logger = this.logger;
    if (logger !== undefined && logger.levelVal <= 30) {
      logger.info({ subsys: 'jsonrpc', req: reqNo, json_req: idText, method: name, duration: formatDuration(ms), status: status! }, 'finished JSONRPC request');
    }
    return text ?? null;
  }
}

/** Whether a result of `bytes` fits the answer: a page was charged item by item as it was built, any other result is charged whole here. */
const charges = (entry: Entry, budget: AnswerBudget, bytes: number): boolean =>
  entry.method.chargesBudget === true || budget.take(bytes);

/** A number id as JSON text; one that JSON cannot carry (Infinity) answers as null. */
const numberText = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/** What jrpc2 can decode into its Error type: an object with an integer `code` and string `message` (both optional). */
function isErrorObject(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const e = v as { code?: unknown; message?: unknown };
  if (e.code !== undefined && e.code !== null && !Number.isInteger(e.code)) return false;
  if (e.message !== undefined && e.message !== null && typeof e.message !== 'string') return false;
  return true;
}

/** A result that reports failure in its own `error` field (simulateTransaction): metrics status "error". */
function isFailedResult(result: unknown): boolean {
  return typeof result === 'object' && result !== null && typeof (result as { error?: unknown }).error === 'string'
    && (result as { error: string }).error !== '';
}

/** An answer as one string. */
export const answerText = (answer: string | JsonChunks): string => (typeof answer === 'string' ? answer : answer.text());

function joinBatch(parts: readonly Answer[]): Answer {
  const present = parts.filter((p): p is string | JsonChunks => p !== null);
  if (present.length === 0) return null;
  if (present.every((p) => typeof p === 'string')) return '[' + present.join(',') + ']';
  const pieces: Array<string | JsonChunks> = [];
  present.forEach((p, i) => { pieces.push(i === 0 ? '[' : ',', p); });
  pieces.push(']');
  return JsonChunks.join(pieces);
}
