// The facade the generated module gives every XDR type: its js-xdr schema (the hot paths use
// schema.decode/encode/_read on plain wire objects) and the few conversions src/ needs of a value:
// bytes <-> JSON (xdrFormat "json", developer methods, ledger snapshots).
import type { XdrType } from '@stellar/js-xdr';
import { fromJson, toJson, type JsonValue } from './json.ts';

/** One value of an XDR type, for a conversion. */
export interface XdrValue<W> {
  /** The wire object. */
  readonly value: W;
  toXdr(): Uint8Array;
  toXdrObject(): W;
  toJson(): JsonValue;
}

export interface XdrTypeOf<W> {
  readonly schema: XdrType<W>;
  fromXdr(bytes: Uint8Array): XdrValue<W>;
  fromXdrObject(wire: W): XdrValue<W>;
  /** The value a JSON form stands for (XdrError when it does not fit). */
  fromJson(json: unknown): XdrValue<W>;
}

export interface XdrEnumOf<S extends XdrType<number>> extends XdrTypeOf<number> {
  readonly schema: S;
  /** Member names as the XDR spells them (PAYMENT, txBAD_SEQ, opNO_ACCOUNT), by value. */
  readonly xdrNames: ReadonlyMap<number, string>;
}

class Value<W> implements XdrValue<W> {
  readonly value: W;
  private readonly schema: XdrType<W>;

  constructor(schema: XdrType<W>, value: W) {
    this.schema = schema;
    this.value = value;
  }

  toXdr(): Uint8Array { return this.schema.encode(this.value); }
  toXdrObject(): W { return this.value; }
  toJson(): JsonValue { return toJson(this.schema, this.value); }
}

export function xdrType<W>(schema: XdrType<W>): XdrTypeOf<W> {
  return {
    schema,
    fromXdr: (bytes) => new Value(schema, schema.decode(bytes)),
    fromXdrObject: (wire) => new Value(schema, wire),
    fromJson: (json) => new Value(schema, fromJson(schema, json)),
  };
}

const enumNames = new WeakMap<XdrType<unknown>, ReadonlyMap<number, string>>();

export function xdrEnum<S extends XdrType<number>>(schema: S, members: ReadonlyArray<readonly [number, string]>): XdrEnumOf<S> {
  const xdrNames = new Map(members);
  enumNames.set(schema, xdrNames);
  return { ...xdrType<number>(schema), schema, xdrNames };
}

/** The XDR member names of an enum schema of the generated module (a union's `switchOn`, say). */
export const xdrEnumNames = (schema: XdrType<unknown>): ReadonlyMap<number, string> | undefined => enumNames.get(schema);
