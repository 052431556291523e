// What each kind of subscription supplies to the hub: its params, its replay of stored items, and
// the matching of a committed ledger's items against its live subscriptions (with its own index).
import type { ValidateFunction } from 'ajv';
import { lazyValidator, paramsAjv } from '../../rpc/paramsSchemas.ts';
import { describeSchemaError } from '../../rpc/jsonrpc.ts';
import { ErrorCode, RpcError } from '../../rpc/errors.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import type { XdrFormat } from '../../rpc/methods/shared/xdrFormat.ts';
import type { StreamKindName, StreamSink } from '../streamSink.ts';

/** What every subscription has; kinds extend it with their filter and replay position. */
export interface Subscription {
  readonly id: string;
  readonly kind: StreamKindName;
  readonly sink: StreamSink;
  readonly format: XdrFormat;
  /**
   * Every item of ledgers up to this one was delivered (or did not match): live delivery goes on
   * with the next ledger. The replay→live switch and the live path both go by it, so no ledger is
   * delivered twice or skipped.
   */
  through: number;
  /** Registered in its kind's live index (replay done). */
  live: boolean;
  /** Unsubscribed, delivered its final item, or its connection closed. */
  ended: boolean;
}

/** One rendered item. */
export interface StreamItem {
  /** Its resumable id (the cursor a client passes back). */
  id: string;
  /** Its JSON text. */
  text: string;
}

/** What replay() read: items in id order, and whether it reached the `through` ledger. */
export interface ReplayPage {
  items: StreamItem[];
  done: boolean;
}

export interface Kind<S extends Subscription = Subscription> {
  readonly name: StreamKindName;
  /** Replay pages hold at most this many items. */
  readonly pageSize: number;
  /** A kind whose one notification ends the subscription (`transaction`). */
  readonly single: boolean;
  /**
   * Validates the params (RpcError -32602) and builds the subscription. `latest` is the newest
   * ledger announced; a subscription without a start begins after it (through = latest).
   */
  open(params: Record<string, unknown>, base: Subscription, latest: number): S;
  /**
   * The next stored items after the subscription's position, up to the end of ledger `through`
   * (nothing for a subscription that starts with the next ledger and none came yet).
   */
  replay(sub: S, through: number, n: number): Promise<ReplayPage>;
  /** Live index. */
  add(sub: S): void;
  remove(sub: S): void;
  /** The live subscriptions (for advancing `through` after each ledger). */
  live(): Iterable<S>;
  readonly liveCount: number;
  /**
   * The items of committed ledger `sequence` for the live subscriptions that match them, in id
   * order, each rendered once per xdrFormat. Reads the store only when some subscription is live.
   */
  ledger(sequence: number): Promise<Array<{ sub: S; item: StreamItem }>>;
}

// ---- shared param handling --------------------------------------------------------------------

const ajv = paramsAjv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, validateFormats: false });

const uint32 = { type: 'integer', minimum: 0, maximum: 0xffffffff } as const;

/** Every kind's params schema, for the test that checks them against JSON Schema's meta-schema. */
export const kindParamsSchemas: object[] = [];

/** The params every kind with a start takes (plus its own `properties`); unknown members are refused. */
export function paramsValidator(properties: Record<string, object>, required: string[] = []): () => ValidateFunction {
  const schema = {
    type: 'object',
    properties: {
      kind: { type: 'string' },
      xdrFormat: { type: 'string', enum: ['base64', 'json'] },
      ...properties,
    },
    required: ['kind', ...required],
    additionalProperties: false,
  };
  kindParamsSchemas.push(schema);
  return lazyValidator(ajv, schema);
}

export const startProperties = { startLedger: { ...uint32, minimum: 1 }, cursor: { type: 'string' } } as const;

export const invalid = (message: string): RpcError => new RpcError(ErrorCode.invalidParams, message);

/** Runs a validator: -32602 with the first problem ("params.startLedger must be integer"). */
export function validate(validator: () => ValidateFunction, params: Record<string, unknown>): void {
  const check = validator();
  if (!check(params)) throw invalid(`invalid subscribe params: ${describeSchemaError(check.errors)}`);
}

/** Where delivery starts, before the kind reads its cursor. */
export type Start =
  | { from: 'next' }
  | { from: 'ledger'; ledger: number }
  | { from: 'cursor'; cursor: string };

/** startLedger / cursor / neither; both: -32602. */
export function readStart(params: Record<string, unknown>): Start {
  const hasLedger = params.startLedger !== undefined;
  const hasCursor = params.cursor !== undefined;
  if (hasLedger && hasCursor) throw invalid('startLedger and cursor cannot both be set');
  if (hasLedger) return { from: 'ledger', ledger: params.startLedger as number };
  if (hasCursor) return { from: 'cursor', cursor: params.cursor as string };
  return { from: 'next' };
}

/** A start ledger (or a cursor's ledger) must be stored: -32602 with getEvents' range message. */
export function requireStored(ctx: MethodContext, ledger: number): void {
  const range = ctx.store.ledgerRange();
  if (range === undefined) throw invalid('no ledger is stored yet: subscribe without a start');
  if (ledger < range.oldest.sequence || ledger > range.latest.sequence) {
    throw invalid(`startLedger must be within the ledger range: ${range.oldest.sequence} - ${range.latest.sequence}`);
  }
}

/** JSON pieces (text and worker-rendered UTF-8) as one string. */
export function joinParts(parts: ReadonlyArray<string | Uint8Array>): string {
  if (parts.every((p) => typeof p === 'string')) return (parts as string[]).join('');
  return parts.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');
}

/** Renders each distinct (item, format) once for all the subscriptions that get it. */
export class RenderCache<T> {
  private readonly done = new Map<string, Promise<string>>();
  private readonly render: (value: T, format: XdrFormat) => Promise<string> | string;
  constructor(render: (value: T, format: XdrFormat) => Promise<string> | string) { this.render = render; }
  get(key: string, value: T, format: XdrFormat): Promise<string> {
    const k = `${format}:${key}`;
    let text = this.done.get(k);
    if (text === undefined) {
      text = Promise.resolve(this.render(value, format));
      this.done.set(k, text);
    }
    return text;
  }
}
