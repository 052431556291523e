import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeFeeDistribution, feeDistributionJson } from '../../../src/rpc/methods/shared/feeDistribution.ts';

const fees = (...n: number[]): bigint[] => n.map(BigInt);

test('empty window: every field zero, ledgerCount too', () => {
  assert.deepEqual(feeDistributionJson(computeFeeDistribution([], 10)), {
    max: '0', min: '0', mode: '0', p10: '0', p20: '0', p30: '0', p40: '0', p50: '0', p60: '0',
    p70: '0', p80: '0', p90: '0', p95: '0', p99: '0', transactionCount: '0', ledgerCount: 0,
  });
});

test('nearest-rank percentiles over ten values (ranks ceil(p*n/100))', () => {
  // unsorted on purpose; sorted: 100 110 120 ... 190
  const d = computeFeeDistribution(fees(190, 100, 180, 110, 170, 120, 160, 130, 150, 140), 3);
  assert.deepEqual(feeDistributionJson(d), {
    max: '190', min: '100', mode: '100',
    p10: '100', p20: '110', p30: '120', p40: '130', p50: '140', p60: '150', p70: '160', p80: '170',
    p90: '180', p95: '190', p99: '190', transactionCount: '10', ledgerCount: 3,
  });
});

test('percentiles with a count that does not divide evenly', () => {
  // n = 7, sorted 1..7: p10 rank ceil(0.7)=1, p20 ceil(1.4)=2, p30 ceil(2.1)=3, p40 ceil(2.8)=3,
  // p50 ceil(3.5)=4, p60 ceil(4.2)=5, p70 ceil(4.9)=5, p80 ceil(5.6)=6, p90 ceil(6.3)=7, p95/p99 7
  const d = computeFeeDistribution(fees(7, 6, 5, 4, 3, 2, 1), 1);
  assert.deepEqual([d.p10, d.p20, d.p30, d.p40, d.p50, d.p60, d.p70, d.p80, d.p90, d.p95, d.p99],
    fees(1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 7));
  assert.equal(d.transactionCount, 7);
});

test('mode is the most frequent value; ties go to the smallest', () => {
  assert.equal(computeFeeDistribution(fees(300, 200, 200, 100, 300, 300), 1).mode, 300n);
  assert.equal(computeFeeDistribution(fees(300, 300, 100, 100, 200), 1).mode, 100n);
  assert.equal(computeFeeDistribution(fees(5, 4, 3), 1).mode, 3n, 'all distinct: the smallest');
  assert.equal(computeFeeDistribution(fees(9, 1, 9), 1).mode, 9n, 'the longest run is last');
  assert.equal(computeFeeDistribution(fees(42), 1).mode, 42n);
});

test('uint64 fees stay exact', () => {
  const big = 18446744073709551615n;
  const d = feeDistributionJson(computeFeeDistribution([big, 1n], 2));
  assert.equal(d.max, '18446744073709551615');
  assert.equal(d.p50, '1');
  assert.equal(d.p99, '18446744073709551615');
});
