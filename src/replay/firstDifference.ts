// Where two decoded XDR values (wire objects of src/xdr) first differ, as a readable field path:
//   operations[0].changes[3].updated.data.account.balance: ours 100 real 200
// Fields are visited in declaration order (the order the decoder builds them), arrays element by
// element, so the first difference is the first one in the encoded bytes.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../xdr/xdr.ts';
import { bytesEqual, toHex } from '../xdr/codec.ts';

export interface Difference {
  /** Dotted path from the compared root; '' when the roots themselves differ. */
  path: string;
  ours: string;
  real: string;
}

export function firstDifference(ours: unknown, real: unknown, path = ''): Difference | null {
  if (ours === real) return null;
  if (ours instanceof Uint8Array || real instanceof Uint8Array) {
    if (ours instanceof Uint8Array && real instanceof Uint8Array && bytesEqual(ours, real)) return null;
    return differ(path, ours, real);
  }
  if (ours instanceof xdr.XdrString || real instanceof xdr.XdrString) {
    if (ours instanceof xdr.XdrString && real instanceof xdr.XdrString && bytesEqual(ours.bytes, real.bytes)) return null;
    return differ(path, ours, real);
  }
  if (Array.isArray(ours) && Array.isArray(real)) {
    const n = Math.min(ours.length, real.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(ours[i], real[i], `${path}[${i}]`);
      if (d) return d;
    }
    if (ours.length !== real.length) return { path: join(path, 'length'), ours: String(ours.length), real: String(real.length) };
    return null;
  }
  if (isPlainObject(ours) && isPlainObject(real)) {
    // a union's discriminant comes first: when it differs, the arms are not comparable
    for (const disc of ['type', 'v', 'code', 'kind']) {
      if (disc in ours && disc in real && ours[disc] !== real[disc]) return differ(join(path, disc), ours[disc], real[disc]);
    }
    const fields = [...Object.keys(ours), ...Object.keys(real).filter((k) => !(k in ours))];
    for (const f of fields) {
      const d = firstDifference(ours[f], real[f], join(path, f));
      if (d) return d;
    }
    return null;
  }
  return differ(path, ours, real);
}

/** "path: ours X real Y" */
export const describeDifference = (d: Difference): string => `${d.path || '(whole value)'}: ours ${d.ours} real ${d.real}`;

const join = (path: string, field: string): string => (path ? `${path}.${field}` : field);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

function differ(path: string, ours: unknown, real: unknown): Difference {
  const leaf = path.slice(path.lastIndexOf('.') + 1);
  return { path, ours: render(ours, leaf), real: render(real, leaf) };
}

const MAX_RENDERED = 120;

/** A short rendering: account keys as G-addresses, other bytes as hex, strings quoted, objects as JSON. */
export function render(v: unknown, leaf = ''): string {
  if (v === undefined) return '(absent)';
  if (v === null) return 'null';
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) {
    if (leaf === 'ed25519' && v.length === 32) return StrKey.encodeEd25519PublicKey(Buffer.from(v));
    return clip(toHex(v));
  }
  if (v instanceof xdr.XdrString) return clip(JSON.stringify(v.toJson()));
  return clip(JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return x.toString();
    if (x instanceof Uint8Array) return toHex(x);
    return x;
  }));
}

const clip = (s: string): string => (s.length > MAX_RENDERED ? `${s.slice(0, MAX_RENDERED)}…` : s);
