// stellar-core's 128-bit helpers (util/numeric.cpp) and the integer limits the ledger engine keeps
// to: bigDivide (a * b / c with the rounding a trade or a withdrawal asks for), the "huge" division
// of pool exchanges and the integer square root of a first pool deposit. BigInt never wraps, so each
// helper re-imposes the width core's result must fit (undefined where core answers false); the
// argument checks core asserts are thrown as internal errors, since callers guarantee them.

export const INT32_MAX = 0x7fff_ffffn;
export const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
export const UINT64_MAX = 0xffff_ffff_ffff_ffffn;
export const UINT128_MAX = (1n << 128n) - 1n;

/**
 * a * b / c rounded down or up (core's bigDivide); undefined when the result does not fit an int64.
 * The operands are non-negative and c positive, as core asserts.
 */
export function bigDivide(a: bigint, b: bigint, c: bigint, roundUp: boolean): bigint | undefined {
  if (a < 0n || b < 0n || c <= 0n) throw new Error('bigDivide: operands out of range');
  const x = roundUp ? (a * b + c - 1n) / c : (a * b) / c;
  return x > INT64_MAX ? undefined : x;
}

/** bigDivide that must fit (core's bigDivideOrThrow). */
export function bigDivideOrThrow(a: bigint, b: bigint, c: bigint, roundUp: boolean): bigint {
  const x = bigDivide(a, b, c, roundUp);
  if (x === undefined) throw new Error('overflow in bigDivide');
  return x;
}

/** A 128-bit value divided by b (core's bigDivideOrThrow over uint128). */
export function divide128OrThrow(a: bigint, b: bigint, roundUp: boolean): bigint {
  const x = roundUp ? (a + b - 1n) / b : a / b;
  if (x > INT64_MAX) throw new Error('overflow in bigDivide');
  return x;
}

function require(cond: boolean, what: string): void {
  if (!cond) throw new Error(`numeric: ${what}`);
}

const divide = (n: bigint, d: bigint, roundUp: boolean): bigint => (roundUp ? (n + d - 1n) / d : n / d);

/** a * b of two non-negative int64 values, exactly (always fits 128 bits). */
export function bigMultiply(a: bigint, b: bigint): bigint {
  require(a >= 0n && b >= 0n && a <= INT64_MAX && b <= INT64_MAX, 'bigMultiply takes non-negative int64 values');
  return a * b;
}

/** a / b for a uint128 numerator and uint64 b > 0; undefined when rounding up would wrap or the quotient exceeds uint64. */
export function bigDivideUnsigned128(a: bigint, b: bigint, roundUp: boolean): bigint | undefined {
  require(b > 0n && b <= UINT64_MAX, 'divisor is not a positive uint64');
  require(a >= 0n && a <= UINT128_MAX, 'numerator is not a uint128');
  if (roundUp && a > UINT128_MAX - (b - 1n)) return undefined;
  const x = divide(a, b, roundUp);
  return x <= UINT64_MAX ? x : undefined;
}

/**
 * a * B / C for a non-negative int32 `a` and uint128 B, C with 0 < C <= INT32_MAX * INT64_MAX,
 * rounded; undefined when the result exceeds int64. Core splits B into quotient and remainder by C
 * to stay within 128 bits; the split is exact, so the result is exactly floor (or ceil) of a*B/C,
 * except that a quotient B/C above INT64_MAX is refused outright, as core does.
 */
export function hugeDivide(a: bigint, b: bigint, c: bigint, roundUp: boolean): bigint | undefined {
  require(a >= 0n && a <= INT32_MAX, 'hugeDivide takes a non-negative int32 multiplier');
  require(c !== 0n, 'division by zero');
  require(c <= INT32_MAX * INT64_MAX, 'hugeDivide divisor too large');
  require(b >= 0n && b <= UINT128_MAX, 'hugeDivide numerator is not a uint128');
  const q = b / c;
  const r = b % c;
  if (q > INT64_MAX) return undefined;
  const res = a * q + divide(a * r, c, roundUp);
  return res <= INT64_MAX ? res : undefined;
}

const bitLength = (x: bigint): number => (x === 0n ? 0 : x.toString(2).length);

/** ceil(sqrt(a * b)) by core's Newton iteration on uint64 values. */
function bigSquareRootCeil(a: bigint, b: bigint): bigint {
  if (a === 0n || b === 0n) return 0n;
  const r = a * b - 1n;
  const numBits = Math.floor(bitLength(r) / 2) + 1;
  let x = numBits >= 64 ? UINT64_MAX : 1n << BigInt(numBits);
  let prev = 0n;
  while (x !== prev) {
    prev = x;
    const y = bigDivideUnsigned128(r, x, true);
    if (y === undefined) throw new Error('numeric: overflow during bigSquareRoot');
    // core takes a 128-bit path when x + y + 1 would wrap; either way this is floor((x + y + 1) / 2)
    x = (x + y + 1n) / 2n;
  }
  return x;
}

/** floor(sqrt(a * b)) for uint64 a and b: the shares of a first pool deposit. */
export function bigSquareRoot(a: bigint, b: bigint): bigint {
  require(a >= 0n && b >= 0n && a <= UINT64_MAX && b <= UINT64_MAX, 'bigSquareRoot takes uint64 values');
  const ceil = bigSquareRootCeil(a, b);
  return ceil * ceil <= a * b ? ceil : ceil - 1n;
}
