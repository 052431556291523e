// Go standard-library behaviour that shows through in the reference node's error messages: strconv
// parse errors (cursors), strconv.Quote, time.Duration formatting (getHealth) and encoding/hex
// decode errors (getTransaction). Reproduced so our messages match byte for byte.

const NUMERIC_RANGE = 'value out of range';
const NUMERIC_SYNTAX = 'invalid syntax';

/** A Go strconv.NumError rendered as its Error() string. */
export class GoNumError extends Error {}

const numError = (fn: string, num: string, why: string): GoNumError =>
  new GoNumError(`strconv.${fn}: parsing ${goQuote(num)}: ${why}`);

/** Go's strconv.ParseUint(s, 10, bitSize); throws GoNumError with Go's message. */
export function parseGoUint(s: string, bitSize: 32 | 64): bigint {
  return parseUint(s, bitSize, 'ParseUint');
}

function parseUint(s: string, bitSize: number, fn: string): bigint {
  if (s === '') throw numError(fn, s, NUMERIC_SYNTAX);
  const maxVal = (1n << BigInt(bitSize)) - 1n;
  const cutoff = (1n << 64n) / 10n + 1n;
  let n = 0n;
  for (const c of s) {
    if (c < '0' || c > '9' || c.length !== 1) throw numError(fn, s, NUMERIC_SYNTAX);
    if (n >= cutoff) throw numError(fn, s, NUMERIC_RANGE);
    n = n * 10n + BigInt(c.charCodeAt(0) - 48);
    if (n > maxVal) throw numError(fn, s, NUMERIC_RANGE);
  }
  return n;
}

/** Go's strconv.ParseInt(s, 10, 64); throws GoNumError with Go's message. */
export function parseGoInt64(s: string): bigint {
  const fn = 'ParseInt';
  if (s === '') throw numError(fn, s, NUMERIC_SYNTAX);
  let body = s;
  let negative = false;
  if (s[0] === '+' || s[0] === '-') {
    negative = s[0] === '-';
    body = s.slice(1);
  }
  let un: bigint;
  try {
    un = parseUint(body, 64, fn);
  } catch (e) {
    // A syntax error names the whole input (sign included); a range error is re-raised below.
    if (!(e instanceof GoNumError) || !e.message.endsWith(NUMERIC_RANGE)) {
      throw numError(fn, s, NUMERIC_SYNTAX);
    }
    un = (1n << 64n) - 1n;
  }
  const cutoff = 1n << 63n;
  if ((!negative && un >= cutoff) || (negative && un > cutoff)) throw numError(fn, s, NUMERIC_RANGE);
  return negative ? -un : un;
}

const isGoPrintable = (ch: string): boolean => ch === ' ' || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch);

/** Go's strconv.Quote. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) { out += '\\ufffd'; continue; } // lone surrogate: invalid UTF-8 in Go
    if (isGoPrintable(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

/** Go's time.Duration.String() for a whole number of seconds (e.g. 45s, 1m30s, 2h0m5s). */
export function formatGoDuration(totalSeconds: number): string {
  if (totalSeconds === 0) return '0s';
  const sign = totalSeconds < 0 ? '-' : '';
  let s = Math.abs(totalSeconds);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/** Go's Duration.Round(time.Second) of a millisecond span: halves round away from zero. */
export const roundToSeconds = (ms: number): number => Math.sign(ms) * Math.round(Math.abs(ms) / 1000);

const HEX = /^[0-9a-fA-F]$/;

/**
 * Go's hex.Decode over the UTF-8 bytes of `s`: the bytes, or the Go error text
 * ("encoding/hex: invalid byte: U+0067 'g'", "encoding/hex: odd length hex string").
 */
export function goHexDecode(s: string): Uint8Array | string {
  const src = Buffer.from(s, 'utf8');
  const invalid = (b: number): string => {
    const ch = String.fromCharCode(b);
    const code = `U+${b.toString(16).toUpperCase().padStart(4, '0')}`;
    return `encoding/hex: invalid byte: ${isGoPrintable(ch) ? `${code} '${ch}'` : code}`;
  };
  const isHex = (b: number): boolean => b < 0x80 && HEX.test(String.fromCharCode(b));
  for (let j = 1; j < src.length; j += 2) {
    if (!isHex(src[j - 1])) return invalid(src[j - 1]);
    if (!isHex(src[j])) return invalid(src[j]);
  }
  if (src.length % 2 === 1) {
    const last = src[src.length - 1];
    return isHex(last) ? 'encoding/hex: odd length hex string' : invalid(last);
  }
  return new Uint8Array(Buffer.from(src.toString('latin1'), 'hex'));
}
