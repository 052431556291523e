// XDR wire values <-> the Rust crate's serde JSON (what stellar-rpc's `xdrFormat: "json"` answers
// carry): a walker over the js-xdr schemas, with the names of the generated tables.
//
// Rules (stellar-xdr's serde derive): structs are objects keyed by snake_case field names; enums are
// their member's name; unions are the case's name alone (void arm) or {name: payload}, int-switched
// ones named v0, v1, ...; 64-bit integers are decimal strings (numbers also read); opaque bytes are
// lower-case hex; strings are SEP-51 escaped text; optionals are null or the value; the types of
// jsonStrings.ts are one string each.
//
// Each schema is compiled once into a converter function (cached per schema object), so rendering a
// large LedgerCloseMeta does no name look-ups per value.
import { XdrError, type AnySchema, type XdrType } from '@stellar/js-xdr';
import { ENUM_MEMBER_JSON_NAMES, STRUCT_FIELD_JSON_NAMES } from '../generated/jsonNames.ts';
import { escapeBytes, unescapeBytes } from './escapedBytes.ts';
import { JSON_STRING_FORMS } from './jsonStrings.ts';
import { XdrString } from './xdrString.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

type Wire = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- values of any schema
type ToJson = (wire: Wire) => JsonValue;
type FromJson = (json: unknown, path: string) => Wire;

const toJsonCache = new WeakMap<XdrType<unknown>, ToJson>();
const fromJsonCache = new WeakMap<XdrType<unknown>, FromJson>();

/** The JSON form of a wire value of `schema`. */
export const toJson = <W>(schema: XdrType<W>, wire: W): JsonValue => toJsonOf(schema)(wire);

/** The wire value of `schema` a JSON form stands for; XdrError when it does not fit the schema. */
export const fromJson = <W>(schema: XdrType<W>, json: unknown): W => fromJsonOf(schema)(json, schema.name ?? schema.kind) as W;

function toJsonOf(schema: XdrType<unknown>): ToJson {
  let f = toJsonCache.get(schema);
  if (!f) {
    f = compileToJson(schema as AnySchema);
    toJsonCache.set(schema, f);
  }
  return f;
}

function fromJsonOf(schema: XdrType<unknown>): FromJson {
  let f = fromJsonCache.get(schema);
  if (!f) {
    f = compileFromJson(schema as AnySchema);
    fromJsonCache.set(schema, f);
  }
  return f;
}

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const stringBytes = (w: XdrString | Uint8Array): Uint8Array => (w instanceof Uint8Array ? w : w.bytes);

function tableOf<T>(tables: Readonly<Record<string, T>>, schema: XdrType<unknown>, what: string): T {
  const table = schema.name === undefined ? undefined : tables[schema.name];
  if (table === undefined) throw new XdrError(`${schema.name ?? schema.kind}: no JSON names for this ${what}`);
  return table;
}

/** A union's case JSON names by discriminant: its enum's member names, or v0, v1, ... */
function caseJsonNames(s: AnySchema & { kind: 'union' }): Map<unknown, string> {
  const names = new Map<unknown, string>();
  const members = s.switchOn.kind === 'enum' ? new Map(tableOf(ENUM_MEMBER_JSON_NAMES, s.switchOn, 'enum')) : undefined;
  for (const c of s.cases) {
    const name = members ? members.get(c.discriminant as number) : `v${String(c.discriminant)}`;
    if (name === undefined) throw new XdrError(`${s.name}: no JSON name for case ${String(c.discriminant)}`);
    names.set(c.discriminant, name);
  }
  return names;
}

const isFieldArm = (arm: unknown): arm is { name: string; schema: XdrType<unknown> } =>
  typeof arm === 'object' && arm !== null && (arm as { kind?: string }).kind === 'field';

function compileToJson(s: AnySchema): ToJson {
  const custom = s.name === undefined ? undefined : JSON_STRING_FORMS.get(s.name);
  if (custom) return (w) => custom.toJson(w as never);
  switch (s.kind) {
    case 'bool': case 'int32': case 'uint32': case 'float': case 'double': return (w) => w;
    case 'void': return () => null;
    case 'int64': case 'uint64': return (w) => (w as bigint).toString();
    case 'string': return (w) => escapeBytes(stringBytes(w));
    case 'opaque': case 'varOpaque': return hex;
    case 'option': {
      const element = toJsonOf(s.element);
      return (w) => (w === null ? null : element(w));
    }
    case 'array': case 'fixedArray': {
      const element = toJsonOf(s.element);
      return (w) => (w as unknown[]).map(element);
    }
    case 'lazy': {
      let resolved: ToJson | undefined;
      return (w) => (resolved ??= toJsonOf(s.getSchema()))(w);
    }
    case 'enum': {
      const names = new Map(tableOf(ENUM_MEMBER_JSON_NAMES, s, 'enum'));
      return (w) => {
        const name = names.get(w);
        if (name === undefined) throw new XdrError(`${s.name}: unknown enum value ${String(w)}`);
        return name;
      };
    }
    case 'struct': {
      const keys = tableOf(STRUCT_FIELD_JSON_NAMES, s, 'struct');
      const fields = s.entries.map(([field, schema], i) => [field, keys[i], toJsonOf(schema)] as const);
      return (w) => {
        const out: Record<string, JsonValue> = {};
        for (const [field, key, f] of fields) out[key] = f(w[field]);
        return out;
      };
    }
    case 'union': {
      const names = caseJsonNames(s);
      const cases = new Map(s.cases.map((c) => {
        const arm = isFieldArm(c.arm) ? { field: c.arm.name, f: toJsonOf(c.arm.schema) } : undefined;
        return [c.discriminant, { name: names.get(c.discriminant)!, arm }] as const;
      }));
      const key = s.switchKey;
      return (w) => {
        const c = cases.get(w[key]);
        if (!c) throw new XdrError(`${s.name}: no case for ${key} ${String(w[key])}`);
        return c.arm ? { [c.name]: c.arm.f(w[c.arm.field]) } : c.name;
      };
    }
    default:
      throw new XdrError(`${(s as XdrType<unknown>).name ?? (s as XdrType<unknown>).kind}: no JSON form for this schema kind`);
  }
}

function expect(ok: boolean, path: string, what: string, json: unknown): asserts ok {
  if (!ok) throw new XdrError(`${path}: expected ${what}, got ${JSON.stringify(json) ?? String(json)}`);
}

const isObject = (json: unknown): json is Record<string, unknown> =>
  typeof json === 'object' && json !== null && !Array.isArray(json);

/** A 64-bit integer: decimal text, or a JSON number that is an exact integer. */
function int64From(json: unknown, path: string, signed: boolean): bigint {
  let v: bigint | undefined;
  if (typeof json === 'string' && (signed ? /^[+-]?[0-9]+$/ : /^\+?[0-9]+$/).test(json)) v = BigInt(json);
  else if (typeof json === 'number' && Number.isSafeInteger(json)) v = BigInt(json);
  expect(v !== undefined && (signed ? BigInt.asIntN(64, v) === v : BigInt.asUintN(64, v) === v), path,
    signed ? 'a signed 64-bit integer' : 'an unsigned 64-bit integer', json);
  return v;
}

function compileFromJson(s: AnySchema): FromJson {
  const custom = s.name === undefined ? undefined : JSON_STRING_FORMS.get(s.name);
  if (custom) {
    return (json, path) => {
      expect(typeof json === 'string', path, `a ${s.name} string`, json);
      return custom.fromJson(json);
    };
  }
  switch (s.kind) {
    case 'bool': return (json, path) => { expect(typeof json === 'boolean', path, 'a boolean', json); return json; };
    case 'int32': case 'uint32': {
      const [min, max] = s.kind === 'int32' ? [-(2 ** 31), 2 ** 31 - 1] : [0, 2 ** 32 - 1];
      return (json, path) => {
        expect(Number.isInteger(json) && (json as number) >= min && (json as number) <= max, path, `a ${s.kind}`, json);
        return json;
      };
    }
    case 'int64': case 'uint64': return (json, path) => int64From(json, path, s.kind === 'int64');
    case 'void': return () => undefined;
    case 'string': return (json, path) => {
      expect(typeof json === 'string', path, 'an escaped string', json);
      let b: Uint8Array;
      try { b = unescapeBytes(json); } catch (e) { throw new XdrError(`${path}: ${(e as Error).message}`); }
      expect(b.length <= s.maxLength, path, `at most ${s.maxLength} bytes`, json);
      return new XdrString(b);
    };
    case 'opaque': case 'varOpaque': return (json, path) => {
      const ok = typeof json === 'string' && json.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(json)
        && (s.kind === 'opaque' ? json.length === 2 * s.length : json.length <= 2 * s.maxLength);
      expect(ok, path, s.kind === 'opaque' ? `${s.length} bytes of hex` : `at most ${s.maxLength} bytes of hex`, json);
      return new Uint8Array(Buffer.from(json as string, 'hex'));
    };
    case 'option': {
      const element = fromJsonOf(s.element);
      return (json, path) => (json === null ? null : element(json, path));
    }
    case 'array': case 'fixedArray': {
      const element = fromJsonOf(s.element);
      return (json, path) => {
        const ok = Array.isArray(json) && (s.kind === 'array' ? json.length <= s.maxLength : json.length === s.length);
        expect(ok, path, s.kind === 'array' ? `an array of at most ${s.maxLength}` : `an array of ${s.length}`, json);
        return (json as unknown[]).map((v, i) => element(v, `${path}[${i}]`));
      };
    }
    case 'lazy': {
      let resolved: FromJson | undefined;
      return (json, path) => (resolved ??= fromJsonOf(s.getSchema()))(json, path);
    }
    case 'enum': {
      const values = new Map(tableOf(ENUM_MEMBER_JSON_NAMES, s, 'enum').map(([value, name]) => [name, value]));
      return (json, path) => {
        const value = typeof json === 'string' ? values.get(json) : undefined;
        expect(value !== undefined, path, `a ${s.name} name`, json);
        return value;
      };
    }
    case 'struct': {
      const keys = tableOf(STRUCT_FIELD_JSON_NAMES, s, 'struct');
      // the crate also reads `type_`, the Rust field name behind "type"
      const fields = s.entries.map(([field, schema], i) =>
        ({ field, key: keys[i], alias: keys[i] === 'type' ? 'type_' : undefined, optional: isOptional(schema), f: fromJsonOf(schema) }));
      const known = new Set(fields.flatMap((f) => (f.alias ? [f.key, f.alias] : [f.key])));
      return (json, path) => {
        expect(isObject(json), path, `a ${s.name} object`, json);
        const o = json;
        for (const k of Object.keys(o)) if (!known.has(k)) throw new XdrError(`${path}: unknown field ${k}`);
        const out: Record<string, unknown> = {};
        for (const { field, key, alias, optional, f } of fields) {
          const k = Object.hasOwn(o, key) ? key : alias !== undefined && Object.hasOwn(o, alias) ? alias : undefined;
          if (k === undefined) {
            if (!optional) throw new XdrError(`${path}: missing field ${key}`);
            out[field] = null;
          } else {
            out[field] = f(o[k], `${path}.${key}`);
          }
        }
        return out;
      };
    }
    case 'union': {
      const names = caseJsonNames(s);
      const byName = new Map(s.cases.map((c) => [names.get(c.discriminant)!, {
        discriminant: c.discriminant,
        arm: isFieldArm(c.arm) ? { field: c.arm.name, f: fromJsonOf(c.arm.schema) } : undefined,
      }]));
      const key = s.switchKey;
      return (json, path) => {
        let name: string | undefined;
        let payload: unknown;
        if (typeof json === 'string') name = json;
        else if (isObject(json) && Object.keys(json).length === 1) [[name, payload]] = Object.entries(json);
        expect(name !== undefined, path, `a ${s.name} case name or {name: value}`, json);
        const c = byName.get(name);
        if (!c) throw new XdrError(`${path}: unknown case ${name} of ${s.name}`);
        if (!c.arm) {
          expect(payload === undefined || payload === null, path, `no value for ${name}`, json);
          return { [key]: c.discriminant };
        }
        expect(payload !== undefined, path, `{"${name}": value}`, json);
        return { [key]: c.discriminant, [c.arm.field]: c.arm.f(payload, `${path}.${name}`) };
      };
    }
    default:
      throw new XdrError(`${(s as XdrType<unknown>).name ?? (s as XdrType<unknown>).kind}: no JSON form for this schema kind`);
  }
}

function isOptional(schema: XdrType<unknown>): boolean {
  let s = schema as AnySchema;
  while (s.kind === 'lazy') s = s.getSchema() as AnySchema;
  return s.kind === 'option';
}
