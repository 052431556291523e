// XDR bytes straight to the text of their serde JSON form (./json.ts's rules), without building the
// decoded value or its JSON tree: a schema is compiled once into a function that reads the bytes
// and writes the text. Same output as JSON.stringify(toJson(schema, schema.decode(bytes))), several
// times faster and in bounded JavaScript heap: the text goes out in chunks of UTF-8 bytes (outside
// the heap), so a 17 MB LedgerCloseMeta (~50 MB of JSON) renders on a worker with a small heap cap.
// The types with a string form (jsonStrings.ts) are decoded alone and go through that form.
import { Reader, XdrError, type AnySchema, type XdrType } from '@stellar/js-xdr';
import { ENUM_MEMBER_JSON_NAMES, STRUCT_FIELD_JSON_NAMES } from '../generated/jsonNames.ts';
import { escapeBytes } from './escapedBytes.ts';
import { JSON_STRING_FORMS } from './jsonStrings.ts';
import { XdrString } from './xdrString.ts';

/** Text gathered before it is turned into bytes. */
const CHUNK_CHARS = 1 << 20;

/** Where the text goes: a string grown in place, moved out as UTF-8 every megabyte or so. */
class TextOut {
  text = '';
  private readonly chunks: Buffer[] = [];

  spill(): void {
    if (this.text.length >= CHUNK_CHARS) {
      this.chunks.push(Buffer.from(this.text));
      this.text = '';
    }
  }

  bytes(): Buffer {
    this.chunks.push(Buffer.from(this.text));
    this.text = '';
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
  }
}

type Render = (r: Reader, out: TextOut) => void;

const cache = new WeakMap<XdrType<unknown>, Render>();

/** The JSON text (UTF-8) of the XDR value of `schema` in `bytes`; XdrError when they are not one. */
export function jsonTextOf(schema: XdrType<unknown>, bytes: Uint8Array): Buffer {
  const r = new Reader(bytes);
  const out = new TextOut();
  renderOf(schema)(r, out);
  r.done(schema.name ?? schema.kind);
  return out.bytes();
}

function renderOf(schema: XdrType<unknown>): Render {
  let f = cache.get(schema);
  if (!f) {
    f = compile(schema as AnySchema);
    cache.set(schema, f);
  }
  return f;
}

const quote = (s: string): string => JSON.stringify(s);
const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

function compile(s: AnySchema): Render {
  const path = s.name ?? s.kind;
  const custom = s.name === undefined ? undefined : JSON_STRING_FORMS.get(s.name);
  if (custom) return (r, out) => { out.text += quote(custom.toJson(s._read(r, path) as never)); };
  switch (s.kind) {
    case 'bool': case 'float': case 'double': return (r, out) => { out.text += JSON.stringify(s._read(r, path)); };
    case 'int32': return (r, out) => { out.text += r.readInt32(path); };
    case 'uint32': return (r, out) => { out.text += r.readUint32(path); };
    case 'void': return (_r, out) => { out.text += 'null'; };
    case 'int64': return (r, out) => { out.text += `"${r.readBigInt64(path)}"`; };
    case 'uint64': return (r, out) => { out.text += `"${r.readBigUint64(path)}"`; };
    case 'string': return (r, out) => {
      const w = s._read(r, path) as XdrString | Uint8Array;
      out.text += quote(escapeBytes(w instanceof Uint8Array ? w : w.bytes));
    };
    case 'opaque': case 'varOpaque': return (r, out) => { out.text += `"${hex(s._read(r, path) as Uint8Array)}"`; };
    case 'option': {
      const element = renderOf(s.element);
      return (r, out) => {
        const present = r.readUint32(path);
        if (present === 0) out.text += 'null';
        else if (present === 1) element(r, out);
        else throw new XdrError(`${path}: invalid optional flag ${present}`);
      };
    }
    case 'array': case 'fixedArray': {
      const element = renderOf(s.element);
      const fixed = s.kind === 'fixedArray' ? s.length : undefined;
      const max = s.kind === 'array' ? s.maxLength : Infinity;
      return (r, out) => {
        const n = fixed ?? r.readUint32(path);
        if (n > max) throw new XdrError(`${path}: ${n} elements, at most ${max}`);
        if (n * 4 > r.remaining) throw new XdrError(`${path}: ${n} elements cannot fit in ${r.remaining} bytes`);
        out.text += '[';
        for (let i = 0; i < n; i++) {
          if (i > 0) out.text += ',';
          element(r, out);
          out.spill();
        }
        out.text += ']';
      };
    }
    case 'lazy': {
      let resolved: Render | undefined;
      return (r, out) => (resolved ??= renderOf(s.getSchema()))(r, out);
    }
    case 'enum': {
      const names = new Map([...tableOf(ENUM_MEMBER_JSON_NAMES, s, 'enum')].map(([v, n]) => [v, quote(n)] as const));
      return (r, out) => {
        const v = r.readInt32(path);
        const name = names.get(v);
        if (name === undefined) throw new XdrError(`${s.name}: unknown enum value ${v}`);
        out.text += name;
      };
    }
    case 'struct': {
      const keys = tableOf(STRUCT_FIELD_JSON_NAMES, s, 'struct');
      const fields = s.entries.map(([, schema], i) => [`${i === 0 ? '{' : ','}${quote(keys[i])}:`, renderOf(schema)] as const);
      return (r, out) => {
        r.enter(path);
        for (const [key, f] of fields) {
          out.text += key;
          f(r, out);
        }
        out.text += fields.length === 0 ? '{}' : '}';
        r.exit();
      };
    }
    case 'union': {
      const names = caseNames(s);
      const cases = new Map(s.cases.map((c) => {
        const name = quote(names.get(c.discriminant)!);
        const arm = isFieldArm(c.arm) ? renderOf(c.arm.schema) : undefined;
        return [c.discriminant, { name, arm }] as const;
      }));
      const switchOn = s.switchOn;
      return (r, out) => {
        r.enter(path);
        const d = switchOn._read(r, path);
        const c = cases.get(d);
        if (!c) throw new XdrError(`${s.name}: no case for ${s.switchKey} ${String(d)}`);
        if (c.arm) {
          out.text += `{${c.name}:`;
          c.arm(r, out);
          out.text += '}';
        } else out.text += c.name;
        r.exit();
      };
    }
    default:
      throw new XdrError(`${(s as XdrType<unknown>).name ?? (s as XdrType<unknown>).kind}: no JSON form for this schema kind`);
  }
}

function tableOf<T>(tables: Readonly<Record<string, T>>, schema: XdrType<unknown>, what: string): T {
  const table = schema.name === undefined ? undefined : tables[schema.name];
  if (table === undefined) throw new XdrError(`${schema.name ?? schema.kind}: no JSON names for this ${what}`);
  return table;
}

/** A union's case JSON names by discriminant: its enum's member names, or v0, v1, ... (as json.ts). */
function caseNames(s: AnySchema & { kind: 'union' }): Map<unknown, string> {
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
