// core's 128-bit pool helpers on BigInt, against independent references and their overflow edges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INT32_MAX, INT64_MAX, UINT64_MAX, UINT128_MAX, bigDivideUnsigned128, bigSquareRoot, hugeDivide } from '../../../src/ledger/numeric.ts';

/** A deterministic stream of BigInts below 2^bits (xorshift; no dependence on Math.random). */
function randoms(seed: bigint) {
  let s = seed;
  const next64 = () => {
    s ^= (s << 13n) & UINT64_MAX; s ^= s >> 7n; s ^= (s << 17n) & UINT64_MAX;
    return s;
  };
  return (bits: number): bigint => {
    let v = 0n;
    for (let got = 0; got < bits; got += 64) v = (v << 64n) | next64();
    return v & ((1n << BigInt(bits)) - 1n);
  };
}

/** Integer square root by bisection: the largest r with r*r <= n. */
function isqrt(n: bigint): bigint {
  let lo = 0n, hi = 1n << 64n;
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if (mid * mid <= n) lo = mid; else hi = mid - 1n;
  }
  return lo;
}

test('bigSquareRoot is floor(sqrt(a*b)) on edges and random uint64 pairs', () => {
  const edges = [0n, 1n, 2n, 3n, 4n, 15n, 16n, 17n, INT64_MAX, UINT64_MAX, 1n << 32n, (1n << 32n) - 1n, (1n << 32n) + 1n, 999_999_999_999n];
  for (const a of edges) for (const b of edges) assert.equal(bigSquareRoot(a, b), isqrt(a * b), `${a} * ${b}`);
  const rnd = randoms(0x9e3779b97f4a7c15n);
  for (let i = 0; i < 2000; i++) {
    const a = rnd(1 + (i % 64)), b = rnd(1 + ((i * 7) % 64));
    assert.equal(bigSquareRoot(a, b), isqrt(a * b), `${a} * ${b}`);
  }
  // perfect squares and their neighbours
  for (const r of [2n, 1000n, 3_037_000_499n, 3_037_000_500n, (1n << 63n) - 25n]) {
    assert.equal(bigSquareRoot(r, r), r);
    assert.equal(bigSquareRoot(r - 1n, r + 1n), r - 1n, '(r-1)(r+1) = r^2 - 1');
  }
});

test('128-bit division: up-rounding that would wrap is refused, as core does', () => {
  assert.equal(bigDivideUnsigned128(UINT128_MAX, 1n, true), undefined, 'the quotient is past uint64');
  assert.equal(bigDivideUnsigned128(UINT128_MAX, 2n, true), undefined, 'UINT128_MAX + 1 would wrap');
  assert.equal(bigDivideUnsigned128(UINT64_MAX * 3n, 3n, true), UINT64_MAX);
  assert.equal(bigDivideUnsigned128(UINT64_MAX * 3n + 1n, 3n, false), UINT64_MAX);
  assert.equal(bigDivideUnsigned128(UINT64_MAX * 3n + 1n, 3n, true), undefined);
  assert.equal(bigDivideUnsigned128(7n, 2n, true), 4n);
});

test('hugeDivide is exactly floor/ceil(a*B/C), refusing quotients B/C past INT64_MAX and results past INT64_MAX', () => {
  const rnd = randoms(0x1234_5678_9abc_def1n);
  for (let i = 0; i < 2000; i++) {
    const a = rnd(14) % 10_001n;
    const c = 1n + (rnd(90) % (INT32_MAX * INT64_MAX));
    const b = rnd(1 + (i % 127));
    for (const roundUp of [false, true]) {
      const exact = roundUp ? (a * b + c - 1n) / c : (a * b) / c;
      const expected = b / c > INT64_MAX || exact > INT64_MAX ? undefined : exact;
      assert.equal(hugeDivide(a, b, c, roundUp), expected, `${a} * ${b} / ${c} ${roundUp ? 'up' : 'down'}`);
    }
  }
  // a zero multiplier does not rescue a quotient past INT64_MAX (core refuses first)
  assert.equal(hugeDivide(0n, (INT64_MAX + 1n) * 5n, 5n, false), undefined);
  assert.equal(hugeDivide(1n, INT64_MAX * 5n, 5n, false), INT64_MAX);
  assert.throws(() => hugeDivide(1n, 1n, INT32_MAX * INT64_MAX + 1n, false), /divisor/);
  assert.throws(() => hugeDivide(INT32_MAX + 1n, 1n, 1n, false));
});
