// XDR encoding compiled per js-xdr schema: the same bytes as schema.encode, several times faster.
// js-xdr's encode builds a path string for every field it writes (for its error messages), enters a
// try/finally per level and allocates an 8 KiB buffer per call; a ledger of 10,000 transactions
// encodes a few hundred thousand values, and that bookkeeping was most of its meta's encoding time.
//
// Each schema compiles once into a writer function (cached per schema object, as json.ts does),
// which checks what js-xdr checks (ranges, lengths, enum members, union cases, plain objects, the
// depth limit) but carries no path. Whenever a check fails, or anything throws, the value is encoded
// again by js-xdr itself: its result (its error, with the path) is what the caller gets, so bad
// input reads exactly as before. A unit test holds the bytes to schema.encode's.
import type { AnySchema, XdrType } from '@stellar/js-xdr';
import { XdrString, xdrString } from './xdrString.ts';

/** js-xdr's default maxDepth (levels of struct, union, array, option, lazy). */
const MAX_DEPTH = 1500;

/** A growable output buffer; one per encoding that may interleave with others (a sliced meta). */
export class XdrSink {
  buf = new Uint8Array(64 * 1024);
  view = new DataView(this.buf.buffer);
  pos = 0;
  depth = 0;

  reserve(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u32(n: number): void {
    this.reserve(4);
    this.view.setUint32(this.pos, n);
    this.pos += 4;
  }

  /** Bytes as they are (already XDR: padded, or parts encoded elsewhere). */
  raw(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A copy of what was written since `start`. */
  copy(start = 0): Uint8Array { return this.buf.slice(start, this.pos); }
}

/** Thrown by a compiled writer when js-xdr must take over (to encode, or to say what is wrong). */
class Fallback extends Error {}
const FALLBACK = new Fallback('fallback to js-xdr');

type Write = (v: any, s: XdrSink) => void; // eslint-disable-line @typescript-eslint/no-explicit-any -- values of any schema
const cache = new WeakMap<XdrType<unknown>, Write>();
const shared = new XdrSink();

/** `schema.encode(value)`, compiled. */
export function encodeXdr<W>(schema: XdrType<W>, value: W): Uint8Array {
  const s = shared;
  s.pos = 0;
  s.depth = 0;
  try {
    writerOf(schema)(value, s);
  } catch {
    return schema.encode(value);
  }
  return s.copy();
}

/**
 * Appends `value` to `sink`, as schema.encode would encode it; on bad input, throws js-xdr's error
 * and leaves the sink as it was.
 */
export function writeXdr<W>(sink: XdrSink, schema: XdrType<W>, value: W): void {
  const start = sink.pos;
  sink.depth = 0;
  try {
    writerOf(schema)(value, sink);
  } catch {
    sink.pos = start;
    sink.raw(schema.encode(value));
  }
}

function writerOf(schema: XdrType<unknown>): Write {
  let w = cache.get(schema);
  if (!w) {
    w = compile(schema as AnySchema);
    cache.set(schema, w);
  }
  return w;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A field js-xdr finds: its own property (read as undefined only when it is one). */
const fieldOf = (v: Record<string, unknown>, key: string): unknown => {
  const x = v[key];
  if (x === undefined && !Object.prototype.hasOwnProperty.call(v, key)) throw FALLBACK;
  return x;
};

function bytesOf(v: unknown): Uint8Array {
  if (!(v instanceof Uint8Array) || (v.buffer as { detached?: boolean }).detached) throw FALLBACK;
  return v;
}

function writePadded(s: XdrSink, b: Uint8Array): void {
  const n = b.length;
  const padded = (n + 3) & ~3;
  s.reserve(padded);
  s.buf.set(b, s.pos);
  s.buf.fill(0, s.pos + n, s.pos + padded);
  s.pos += padded;
}

const enter = (s: XdrSink): void => { if (++s.depth > MAX_DEPTH) throw FALLBACK; };

const SDK_STRING = xdrString(1).constructor;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

function compile(s: AnySchema): Write {
  switch (s.kind) {
    case 'int32': return (v, o) => {
      if ((v | 0) !== v) throw FALLBACK;
      o.reserve(4); o.view.setInt32(o.pos, v); o.pos += 4;
    };
    case 'uint32': return (v, o) => {
      if ((v >>> 0) !== v) throw FALLBACK;
      o.reserve(4); o.view.setUint32(o.pos, v); o.pos += 4;
    };
    case 'int64': return (v, o) => {
      if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) throw FALLBACK;
      o.reserve(8); o.view.setBigInt64(o.pos, v); o.pos += 8;
    };
    case 'uint64': return (v, o) => {
      if (typeof v !== 'bigint' || v < 0n || v > UINT64_MAX) throw FALLBACK;
      o.reserve(8); o.view.setBigUint64(o.pos, v); o.pos += 8;
    };
    case 'bool': return (v, o) => {
      if (v !== true && v !== false) throw FALLBACK;
      o.u32(v ? 1 : 0);
    };
    case 'float': return (v, o) => {
      if (typeof v !== 'number') throw FALLBACK;
      o.reserve(4); o.view.setFloat32(o.pos, v); o.pos += 4;
    };
    case 'double': return (v, o) => {
      if (typeof v !== 'number') throw FALLBACK;
      o.reserve(8); o.view.setFloat64(o.pos, v); o.pos += 8;
    };
    case 'void': return (v) => { if (v !== undefined) throw FALLBACK; };
    case 'enum': {
      const members = s.nameByValue;
      return (v, o) => {
        if (typeof v !== 'number' || !members.has(v)) throw FALLBACK;
        o.reserve(4); o.view.setInt32(o.pos, v); o.pos += 4;
      };
    }
    case 'opaque': {
      const length = s.length;
      return (v, o) => {
        const b = bytesOf(v);
        if (b.length !== length) throw FALLBACK;
        writePadded(o, b);
      };
    }
    case 'varOpaque': {
      const max = s.maxLength;
      return (v, o) => {
        const b = bytesOf(v);
        if (b.length > max) throw FALLBACK;
        o.u32(b.length);
        writePadded(o, b);
      };
    }
    case 'string': {
      const max = s.maxLength;
      // the SDK's string type (values XdrString; text and bytes converted) or js-xdr's own (bytes)
      const sdk = s.constructor === SDK_STRING;
      return (v, o) => {
        const b = bytesOf(sdk && v instanceof XdrString ? v.bytes : v);
        if (b.length > max) throw FALLBACK;
        o.u32(b.length);
        writePadded(o, b);
      };
    }
    case 'option': {
      let element: Write | undefined;
      const schema = s.element;
      return (v, o) => {
        enter(o);
        if (v === null) o.u32(0);
        else { o.u32(1); (element ??= writerOf(schema))(v, o); }
        o.depth--;
      };
    }
    case 'array': case 'fixedArray': {
      // js-xdr refuses elements that encode to nothing (void): leave those to it
      if ((s.element as AnySchema).kind === 'void') return () => { throw FALLBACK; };
      const schema = s.element;
      let element: Write | undefined;
      const fixed = s.kind === 'fixedArray' ? s.length : undefined;
      const max = s.kind === 'array' ? s.maxLength : 0;
      return (v, o) => {
        enter(o);
        if (!Array.isArray(v)) throw FALLBACK;
        if (fixed === undefined) {
          if (v.length > max) throw FALLBACK;
          o.u32(v.length);
        } else if (v.length !== fixed) throw FALLBACK;
        const e = (element ??= writerOf(schema));
        for (const x of v) e(x, o);
        o.depth--;
      };
    }
    case 'lazy': {
      let resolved: Write | undefined;
      return (v, o) => {
        enter(o);
        (resolved ??= writerOf(s.getSchema()))(v, o);
        o.depth--;
      };
    }
    case 'struct': {
      const keys = s.entries.map(([k]) => k);
      const schemas = s.entries.map(([, schema]) => schema);
      let writers: Write[] | undefined;
      return (v, o) => {
        enter(o);
        if (!isPlainObject(v)) throw FALLBACK;
        const ws = (writers ??= schemas.map(writerOf));
        for (let i = 0; i < ws.length; i++) ws[i](fieldOf(v, keys[i]), o);
        o.depth--;
      };
    }
    case 'union': {
      const key = s.switchKey;
      const switchOn = s.switchOn;
      let discriminant: Write | undefined;
      type Arm = { field?: string; schema?: XdrType<unknown>; write?: Write };
      const armOf = (arm: unknown): Arm | undefined => {
        if (arm === undefined) return undefined;
        const a = arm as { kind?: string; name?: string; schema?: XdrType<unknown> };
        // a field arm carries a payload; any other arm is a void schema, which writes nothing
        return 'schema' in a ? { field: a.name, schema: a.schema } : { schema: arm as XdrType<unknown> };
      };
      const cases = new Map<unknown, Arm>(s.cases.map((c) => [c.discriminant, armOf(c.arm)!]));
      const defaultArm = armOf(s.defaultArm);
      return (v, o) => {
        enter(o);
        if (!isPlainObject(v)) throw FALLBACK;
        const d = fieldOf(v, key);
        const arm = cases.get(d) ?? defaultArm;
        if (!arm) throw FALLBACK;
        (discriminant ??= writerOf(switchOn))(d, o);
        const w = (arm.write ??= writerOf(arm.schema!));
        w(arm.field === undefined ? undefined : fieldOf(v, arm.field), o);
        o.depth--;
      };
    }
    default:
      return () => { throw FALLBACK; }; // a kind this does not know: js-xdr encodes it
  }
}
