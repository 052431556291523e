// Random wire values of any js-xdr schema, from a seeded generator (a failure names its seed): every
// union case, bounds, optional and empty parts, strings with bytes outside printable ASCII. Recursion
// ends by choosing empty arrays, absent optionals and void union cases below a depth.
import type { AnySchema, XdrType } from '@stellar/js-xdr';
import { xdr as sdk } from '@stellar/stellar-sdk';

/** mulberry32: small, fast, good enough to spread values over the cases. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const MAX_DEPTH = 7;

export function randomWire(schema: XdrType<unknown>, random: () => number, depth = 0): unknown {
  const s = schema as AnySchema;
  const int = (n: number): number => Math.floor(random() * n);
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => int(256));
  const word = (): bigint => BigInt(int(2 ** 32)) << 32n | BigInt(int(2 ** 32));
  const deep = depth >= MAX_DEPTH;
  const length = (max: number): number => (deep ? 0 : Math.min(max, int(4)));
  switch (s.kind) {
    case 'bool': return random() < 0.5;
    case 'int32': return int(2 ** 32) - 2 ** 31;
    case 'uint32': return int(2 ** 32);
    case 'int64': return BigInt.asIntN(64, word());
    case 'uint64': return word();
    case 'opaque': return bytes(s.length);
    case 'varOpaque': return bytes(Math.min(s.maxLength, int(40)));
    // the SDK's string schema (the generated module's too) holds XdrString
    case 'string': return new sdk.XdrString(bytes(Math.min(s.maxLength, int(12))));
    case 'enum': { const values = [...s.nameByValue.keys()]; return values[int(values.length)]; }
    case 'option': return deep || random() < 0.3 ? null : randomWire(s.element, random, depth + 1);
    case 'array': return Array.from({ length: length(s.maxLength) }, () => randomWire(s.element, random, depth + 1));
    case 'fixedArray': return Array.from({ length: s.length }, () => randomWire(s.element, random, depth + 1));
    case 'lazy': return randomWire(s.getSchema(), random, depth);
    case 'struct': {
      const value = Object.fromEntries(s.entries.map(([k, f]) => [k, randomWire(f, random, depth + 1)]));
      // a strkey (SEP-23 P...) cannot carry an empty signed payload: the JSON form needs 1 to 64 bytes
      if (s.name === 'SignerKeyEd25519SignedPayload' && (value.payload as Uint8Array).length === 0) value.payload = bytes(1);
      return value;
    }
    case 'union': {
      const voids = s.cases.filter((c) => !('schema' in c.arm));
      const pool = deep && voids.length > 0 ? voids : s.cases;
      const c = pool[int(pool.length)];
      const arm = c.arm as { name?: string; schema?: XdrType<unknown> };
      return arm.schema ? { [s.switchKey]: c.discriminant, [arm.name!]: randomWire(arm.schema, random, depth + 1) } : { [s.switchKey]: c.discriminant };
    }
    default: throw new Error(`no random values for schema kind ${s.kind}`);
  }
}
