// getFeeStats: inclusion-fee distributions over the last N stored ledgers (classic: fee per
// operation, window classicFeeStatsRetentionWindow; Soroban: inclusion fee, window
// sorobanFeeStatsRetentionWindow). Fees and transactionCount are strings, ledgerCount a number.
import type { LedgerRange, StoreReader } from '../../store/types.ts';
import type { Method } from './types.ts';
import { computeFeeDistribution, feeDistributionJson, feeDistributionSchema } from './shared/feeDistribution.ts';
import { ledgerSequence, object } from './shared/schemas.ts';

function windowDistribution(store: StoreReader, range: LedgerRange | undefined, ledgers: number, soroban: boolean) {
  if (!range || ledgers <= 0) return feeDistributionJson(computeFeeDistribution([], 0));
  const from = Math.max(range.oldest.sequence, range.latest.sequence - ledgers + 1);
  const ledgerCount = range.latest.sequence - from + 1;
  return feeDistributionJson(computeFeeDistribution(store.feeSamples(from, soroban), ledgerCount));
}

export const getFeeStats: Method = {
  name: 'getFeeStats',
  light: true,
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'Inclusion fee statistics of recent ledgers, Soroban and classic apart',
    result: {
      name: 'getFeeStatsResult',
      schema: object({
        sorobanInclusionFee: feeDistributionSchema,
        inclusionFee: feeDistributionSchema,
        latestLedger: ledgerSequence,
      }),
    },
  },
  handler(_params, ctx) {
    const range = ctx.store.ledgerRange();
    return {
      sorobanInclusionFee: windowDistribution(ctx.store, range, ctx.config.sorobanFeeStatsRetentionWindow, true),
      inclusionFee: windowDistribution(ctx.store, range, ctx.config.classicFeeStatsRetentionWindow, false),
      latestLedger: range?.latest.sequence ?? 0,
    };
  },
};
