// stellar-core's fixed-width arithmetic helpers (util/numeric.cpp) on BigInt: 128-bit products
// divided back down to 64 bits with explicit rounding, the "huge" division used by pool exchanges,
// and the integer square root pool deposits use. BigInt never wraps, so each helper re-imposes the
// width core's result must fit (the result is `undefined` where core answers false); the argument
// checks core asserts are thrown as internal errors, since callers guarantee them.

export type Rounding = 'down' | 'up';

export const INT32_MAX = 0x7fff_ffffn;
export const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
export const UINT64_MAX = 0xffff_ffff_ffff_ffffn;
export const UINT128_MAX = (1n << 128n) - 1n;

function require(cond: boolean, what: string): void {
  if (!cond) throw new Error(`numeric: ${what}`);
}

/** a * b of two non-negative int64 values, exactly (always fits 128 bits). */
export function bigMultiply(a: bigint, b: bigint): bigint {
  require(a >= 0n && b >= 0n && a <= INT64_MAX && b <= INT64_MAX, 'bigMultiply takes non-negative int64 values');
  return a * b;
}

const divide = (n: bigint, d: bigint, rounding: Rounding): bigint => (rounding === 'down' ? n / d : (n + d - 1n) / d);

/** A * B / C for uint64 operands, rounded; undefined when the quotient exceeds uint64. */
export function bigDivideUnsigned(a: bigint, b: bigint, c: bigint, rounding: Rounding): bigint | undefined {
  require(c > 0n, 'division by zero');
  const x = divide(a * b, c, rounding);
  return x <= UINT64_MAX ? x : undefined;
}

/** A * B / C for int64 operands (A, B >= 0, C > 0), rounded; undefined when the quotient exceeds int64. */
export function bigDivide(a: bigint, b: bigint, c: bigint, rounding: Rounding): bigint | undefined {
  require(a >= 0n && b >= 0n && c > 0n, 'bigDivide takes A, B >= 0 and C > 0');
  const x = bigDivideUnsigned(a, b, c, rounding);
  return x !== undefined && x <= INT64_MAX ? x : undefined;
}

/** bigDivide where overflow is an internal error. */
export function bigDivideOrThrow(a: bigint, b: bigint, c: bigint, rounding: Rounding): bigint {
  const x = bigDivide(a, b, c, rounding);
  if (x === undefined) throw new Error('numeric: overflow while performing bigDivide');
  return x;
}

/** a / B for a uint128 numerator, rounded; undefined when rounding up would wrap or the quotient exceeds uint64. */
export function bigDivideUnsigned128(a: bigint, b: bigint, rounding: Rounding): bigint | undefined {
  require(b > 0n, 'division by zero');
  require(a >= 0n && a <= UINT128_MAX, 'numerator is not a uint128');
  if (rounding === 'up' && a > UINT128_MAX - (b - 1n)) return undefined;
  const x = divide(a, b, rounding);
  return x <= UINT64_MAX ? x : undefined;
}

/** a / B for a uint128 numerator and int64 B > 0; undefined when the quotient exceeds int64. */
export function bigDivide128(a: bigint, b: bigint, rounding: Rounding): bigint | undefined {
  require(b > 0n, 'bigDivide128 takes B > 0');
  const x = bigDivideUnsigned128(a, b, rounding);
  return x !== undefined && x <= INT64_MAX ? x : undefined;
}

/**
 * a * B / C for a non-negative int32 `a` and uint128 B, C with 0 < C <= INT32_MAX * INT64_MAX,
 * rounded; undefined when the result exceeds int64. Core splits B into quotient and remainder by C
 * to stay within 128 bits; the split is exact, so the result is exactly floor (or ceil) of a*B/C,
 * and a quotient B/C above INT64_MAX is refused outright as core does.
 */
export function hugeDivide(a: bigint, b: bigint, c: bigint, rounding: Rounding): bigint | undefined {
  require(a >= 0n && a <= INT32_MAX, 'hugeDivide takes a non-negative int32 multiplier');
  require(c !== 0n, 'division by zero');
  require(c <= INT32_MAX * INT64_MAX, 'hugeDivide divisor too large');
  require(b >= 0n && b <= UINT128_MAX, 'hugeDivide numerator is not a uint128');
  const q = b / c;
  const r = b % c;
  if (q > INT64_MAX) return undefined;
  const res = a * q + divide(a * r, c, rounding);
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
    const y = bigDivideUnsigned128(r, x, 'up');
    if (y === undefined) throw new Error('numeric: overflow during bigSquareRoot');
    // core takes the 128-bit path when x + y + 1 would wrap; either way this is floor((x + y + 1) / 2)
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
