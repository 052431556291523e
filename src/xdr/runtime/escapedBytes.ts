// The text form of XDR strings and asset codes in JSON (SEP-51, the Rust crate's escape-bytes):
// printable ASCII stays, \0 \t \n \r \\ are escaped, every other byte is \xNN (lower-case hex).

const HEX = '0123456789abcdef';
const SHORT_ESCAPES: Record<number, string> = { 0: '\\0', 9: '\\t', 10: '\\n', 13: '\\r', 92: '\\\\' };

export function escapeBytes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const short = SHORT_ESCAPES[b];
    if (short !== undefined) out += short;
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += `\\x${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  return out;
}

const UNESCAPED: Record<string, number> = { '0': 0, t: 9, n: 10, r: 13, '\\': 92 };

const hexDigit = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;

/**
 * The bytes of an escaped text. As the crate, any byte but a backslash stands for itself (text
 * outside ASCII gives its UTF-8 bytes); a backslash must start one of the escapes above.
 */
export function unescapeBytes(text: string): Uint8Array {
  const input = Buffer.from(text, 'utf8');
  const out = new Uint8Array(input.length);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    const b = input[i];
    if (b !== 92) { out[n++] = b; continue; }
    const next = input[i + 1];
    if (next === 120) { // \xNN
      const hi = hexDigit(input[i + 2] ?? -1);
      const lo = hexDigit(input[i + 3] ?? -1);
      if (hi < 0 || lo < 0) throw new Error(`invalid \\x escape at byte ${i} of "${text}"`);
      out[n++] = (hi << 4) | lo;
      i += 3;
      continue;
    }
    const single = next === undefined ? undefined : UNESCAPED[String.fromCharCode(next)];
    if (single === undefined) throw new Error(`invalid escape at byte ${i} of "${text}"`);
    out[n++] = single;
    i += 1;
  }
  return out.slice(0, n);
}
