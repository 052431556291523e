// Building blocks of the result schemas in rpc.discover's OpenRPC document. They describe the wire
// format exactly, as the reference node sends it: JSON types as Go encodes them (a uint32 is a
// number; an int64 tagged `,string` and every uint64 fee is a decimal string), every member listed
// and no other allowed (`additionalProperties: false`), so that an answer that drifts in a name or a
// type fails validation (test/integration/openrpc.test.ts).
import type { JsonSchema } from '../types.ts';

/** How a member appears under xdrFormat "json" (see xdrValue, and src/rpc/openrpc/xdrJsonForm.ts). */
export interface XdrJsonRename {
  /** Its name there, e.g. `dataJson` for getLedgerEntries' `xdr`. */
  name: string;
  /** The XDR member stays beside the JSON one, with this schema (getLedgers' `headerXdr: ""`). */
  keepAs?: JsonSchema;
  /** The JSON member is left out when it would be empty or null, where the XDR member is always sent. */
  optional?: boolean;
}

/** Marks a member that xdrFormat "json" renames (a symbol: it never reaches the document's JSON). */
const XDR_JSON: unique symbol = Symbol('xdrJson');
/** Marks a member that an object may leave out (consumed by `object`). */
const OPTIONAL: unique symbol = Symbol('optional');

/** Not always sent; for `object`. */
export const optional = (schema: JsonSchema): JsonSchema => ({ ...schema, [OPTIONAL]: true });

const isOptional = (schema: JsonSchema): boolean => (schema as { [OPTIONAL]?: boolean })[OPTIONAL] === true;

/**
 * An object with exactly these members, in wire order; those wrapped in `optional` may be absent,
 * all others are always sent.
 */
export function object(members: Record<string, JsonSchema>, description?: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(members)) {
    if (isOptional(schema)) {
      const { [OPTIONAL]: _drop, ...rest } = schema as JsonSchema & { [OPTIONAL]?: boolean };
      properties[name] = rest;
    } else {
      properties[name] = schema;
      required.push(name);
    }
  }
  return {
    type: 'object',
    ...(description ? { description } : {}),
    ...(required.length ? { required } : {}),
    properties,
    additionalProperties: false,
  };
}

export const arrayOf = (items: JsonSchema, description?: string): JsonSchema =>
  ({ type: 'array', ...(description ? { description } : {}), items });

export const described = (schema: JsonSchema, description: string): JsonSchema => ({ ...schema, description });

export const uint32 = { type: 'integer', minimum: 0, maximum: 0xffff_ffff } as const;
export const ledgerSequence: JsonSchema = { ...uint32, description: 'ledger sequence number' };
/** A uint64 (fees, counts) as Go's `,string` encodes it. */
export const uint64String: JsonSchema = { type: 'string', pattern: '^[0-9]+$' };
export const unixTimeString: JsonSchema = { ...uint64String, description: 'Unix time in seconds, as a decimal string' };
export const unixTime: JsonSchema = { type: 'integer', minimum: 0, description: 'Unix time in seconds' };
export const hexHash: JsonSchema = { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'hex SHA-256 hash' };
/** A contract's strkey, or "" for an event without a contract. */
export const contractIdOrEmpty: JsonSchema = { type: 'string', pattern: '^(C[A-Z2-7]{55})?$' };

const base64Xdr = (type: string): JsonSchema => ({ type: 'string', contentEncoding: 'base64', description: `${type} (base64 XDR)` });

/** What XDR_JSON holds: the rename, and the XDR type (for the JSON member's description). */
export interface XdrJsonMark extends XdrJsonRename { xdrType: string }

function markRenamed(schema: JsonSchema, xdrType: string, rename: XdrJsonRename | string): JsonSchema {
  const mark: XdrJsonMark = { ...(typeof rename === 'string' ? { name: rename } : rename), xdrType };
  return { ...schema, [XDR_JSON]: mark };
}

/** The XDR_JSON mark of a member's schema, if any. */
export const xdrJsonMark = (schema: JsonSchema): XdrJsonMark | undefined => (schema as { [XDR_JSON]?: XdrJsonMark })[XDR_JSON];

/** One XDR value of `type`, base64; named `rename` and carried as JSON under xdrFormat "json". */
export const xdrValue = (type: string, rename: XdrJsonRename | string): JsonSchema => markRenamed(base64Xdr(type), type, rename);

/** A list of XDR values of `type` (`depth` 2: a list of lists, e.g. contract events per operation). */
export function xdrList(type: string, rename: XdrJsonRename | string, depth: 1 | 2 = 1): JsonSchema {
  const list = arrayOf(base64Xdr(type));
  return markRenamed(depth === 1 ? list : arrayOf(list), type, rename);
}

/** A base64 XDR value that no xdrFormat changes (getLatestLedger ignores the param). */
export const xdrOnly = base64Xdr;

/** The `xdrFormat` param of the methods that take it. */
export const xdrFormatParam: JsonSchema = {
  type: 'string',
  description: '"base64" (the default) or "json": XDR members are then sent as JSON, renamed (…Xdr to …Json)',
};
