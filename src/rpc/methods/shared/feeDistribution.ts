// getFeeStats' fee distribution, computed as the reference's feewindow does: nearest-rank
// percentiles over the sorted samples, mode = most frequent value with ties going to the smallest,
// and an all-zero distribution (ledgerCount included) when the window holds no samples.

import type { JsonSchema } from '../types.ts';
import { object, uint32, uint64String } from './schemas.ts';

export interface FeeDistribution {
  max: bigint; min: bigint; mode: bigint;
  p10: bigint; p20: bigint; p30: bigint; p40: bigint; p50: bigint;
  p60: bigint; p70: bigint; p80: bigint; p90: bigint; p95: bigint; p99: bigint;
  transactionCount: number;
  ledgerCount: number;
}

const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

export function computeFeeDistribution(samples: readonly bigint[], ledgerCount: number): FeeDistribution {
  const n = samples.length;
  if (n === 0) {
    return {
      max: 0n, min: 0n, mode: 0n, p10: 0n, p20: 0n, p30: 0n, p40: 0n, p50: 0n,
      p60: 0n, p70: 0n, p80: 0n, p90: 0n, p95: 0n, p99: 0n, transactionCount: 0, ledgerCount: 0,
    };
  }
  const fees = [...samples].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // ceil(p * n / 100), 1-based rank
  const percentile = (p: number): bigint => fees[Math.floor((p * n + 99) / 100) - 1];
  const [p10, p20, p30, p40, p50, p60, p70, p80, p90, p95, p99] = PERCENTILES.map(percentile);
  return {
    max: fees[n - 1], min: fees[0], mode: modeOf(fees),
    p10, p20, p30, p40, p50, p60, p70, p80, p90, p95, p99,
    transactionCount: n,
    ledgerCount,
  };
}

/** The most frequent value of an ascending list; the first (smallest) of equally frequent ones. */
function modeOf(sorted: readonly bigint[]): bigint {
  let mode = sorted[0];
  let best = 0;
  let runStart = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[runStart]) continue;
    if (i - runStart > best) {
      best = i - runStart;
      mode = sorted[runStart];
    }
    runStart = i;
  }
  return mode;
}

/** The wire form: every fee and transactionCount as a decimal string, ledgerCount a number. */
export function feeDistributionJson(d: FeeDistribution): Record<string, string | number> {
  return {
    max: d.max.toString(), min: d.min.toString(), mode: d.mode.toString(),
    p10: d.p10.toString(), p20: d.p20.toString(), p30: d.p30.toString(), p40: d.p40.toString(),
    p50: d.p50.toString(), p60: d.p60.toString(), p70: d.p70.toString(), p80: d.p80.toString(),
    p90: d.p90.toString(), p95: d.p95.toString(), p99: d.p99.toString(),
    transactionCount: d.transactionCount.toString(),
    ledgerCount: d.ledgerCount,
  };
}

/** The wire form's schema (rpc.discover). */
export const feeDistributionSchema: JsonSchema = object({
  max: uint64String, min: uint64String, mode: uint64String,
  p10: uint64String, p20: uint64String, p30: uint64String, p40: uint64String, p50: uint64String,
  p60: uint64String, p70: uint64String, p80: uint64String, p90: uint64String, p95: uint64String, p99: uint64String,
  transactionCount: uint64String,
  ledgerCount: uint32,
}, 'inclusion fees (stroops) of the transactions in the last ledgers of the window');
