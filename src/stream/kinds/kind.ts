// What each kind of subscription supplies to the hub: its params, its replay of stored items, and
// the matching of a committed ledger's items against its live subscriptions (with its own index).
import type { ValidateFunction } from 'ajv';
import { lazyValidator, paramsAjv } from '../../rpc/paramsSchemas.ts';
import { describeSchemaError } from '../../rpc/jsonrpc.ts';
import { ErrorCode, RpcError } from '../../rpc/errors.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import type { XdrFormat } from '../../rpc/methods/shared/xdrFormat.ts';
import type { ResumePoint, StreamKindName, StreamSink } from '../streamSink.ts';

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
  /** The id of the last item handed to its connection: where it resumes if the connection is dropped. */
  lastId?: string;
  /** Where it resumes when it was handed nothing yet: its own start. */
  readonly start: ResumePoint;
}

/** One rendered item. */
export interface StreamItem {
  /** Its resumable id (the cursor a client passes back). */
  id: string;
  /** Its JSON, encoded once and shared by every subscriber that gets it. */
  bytes: Buffer;
}

/** What replay() read: items in id order, and whether it reached the `through` ledger. */
export interface ReplayPage {
  items: StreamItem[];
  done: boolean;
}

/**
 * How much one replay page may hold: at most `items` items, and no item once `bytes` are rendered
 * (the first item always: one item bigger than that still goes). The hub asks for what its
 * connection has room for, so a replay never renders a page bigger than the connection's buffer.
 */
export interface ReplayLimit {
  items: number;
  bytes: number;
}

/** One item of a committed ledger and the live subscriptions that match it (all in the item's xdrFormat). */
export interface LedgerMatch<S extends Subscription = Subscription> {
  item: StreamItem;
  subs: Iterable<S>;
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
   * (nothing for a subscription that starts with the next ledger and none came yet), within `limit`;
   * the position moves to right after the last item returned.
   */
  replay(sub: S, through: number, limit: ReplayLimit): Promise<ReplayPage>;
  /**
   * Where a subscription resumes that has every item of ledgers up to `ledger` (a cursor past the
   * end of that ledger; `{}` for a kind without cursors): what a subscription that starts with the
   * next ledger resumes from while it was handed nothing.
   */
  resumeAfter(ledger: number): ResumePoint;
  /** Live index. */
  add(sub: S): void;
  remove(sub: S): void;
  /** The live subscriptions (for advancing `through` after each ledger). */
  live(): Iterable<S>;
  readonly liveCount: number;
  /**
   * The items of committed ledger `sequence` that live subscriptions match, in id order, each
   * rendered once per xdrFormat, one at a time: the hub takes each to its subscribers before the
   * next is matched and rendered, and gives the event loop back in between, so neither the matching
   * nor the rendering of a big ledger is ever done all at once. Reads the store only when some
   * subscription is live.
   */
  ledger(sequence: number): AsyncIterable<LedgerMatch<S>>;
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

/** JSON pieces (text and worker-rendered UTF-8) as one buffer: an item's bytes. */
export function toBytes(parts: string | ReadonlyArray<string | Uint8Array>): Buffer {
  if (typeof parts === 'string') return Buffer.from(parts);
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** The subscriptions of `subs` by xdrFormat, for rendering an item once per format. */
export function byFormat<S extends Subscription>(subs: Iterable<S>): Map<XdrFormat, S[]> {
  const out = new Map<XdrFormat, S[]>();
  for (const sub of subs) {
    const list = out.get(sub.format);
    if (list === undefined) out.set(sub.format, [sub]);
    else list.push(sub);
  }
  return out;
}
