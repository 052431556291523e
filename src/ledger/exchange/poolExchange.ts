// The liquidity-pool side of an exchange (CAP-38), as stellar-core's OfferExchange.cpp does it for
// path payments. "toPool" is what the payer sends into the pool (core's sheep), "fromPool" what it
// takes out (core's wheat). All amounts are int64 stroops as BigInt.
//
// Contract
// --------
// poolExchangeAmounts(reservesToPool, maxSendToPool, reservesFromPool, maxReceiveFromPool, feeBps, round)
//   Pure. Returns { toPool, fromPool } or undefined when the pool refuses. The pool always trades
//   as a unit (one hop, one exchange), with fee f = feeBps / 10000 taken from what is sent in:
//   - PATH_PAYMENT_STRICT_SEND: maxSendToPool is the exact amount sent (toPool = maxSendToPool) and
//     maxReceiveFromPool must be INT64_MAX (no bound, as a strict-send hop has none).
//       fromPool = floor((10000 - fee) * reservesFromPool * toPool
//                        / (10000 * reservesToPool + (10000 - fee) * toPool))
//     Refused when reservesToPool + toPool would exceed INT64_MAX, when the quotient does not fit
//     int64, or when fromPool rounds down to 0.
//   - PATH_PAYMENT_STRICT_RECEIVE: maxReceiveFromPool is the exact amount taken out (fromPool =
//     maxReceiveFromPool) and maxSendToPool must be INT64_MAX.
//       toPool = ceil(10000 * reservesToPool * fromPool
//                     / ((reservesFromPool - fromPool) * (10000 - fee)))
//     Refused when fromPool >= reservesFromPool (a pool is never emptied), when the quotient does
//     not fit int64, or when toPool exceeds INT64_MAX - reservesToPool (the room left in the pool).
//   Rounding always favours the pool. Throws (a caller bug, as in core) for a fee outside
//   [0, 10000), non-positive reserves, a bounded side that must be INT64_MAX, or another rounding.
//
// exchangeWithPool(ltx, ledger, toPoolAsset, maxSendToPool, fromPoolAsset, maxReceiveFromPool, round, maxOffersToCross)
//   Finds the pool of the two assets (fee 30, id from liquidityPools.poolIdForAssets) and, when it
//   trades, moves its reserves in a child of `ltx` that it commits; returns { toPool, fromPool } then.
//   Returns undefined, leaving `ltx` untouched, when: the protocol is before 18; `round` is NORMAL
//   (offers never cross pools, only path payments use them); maxOffersToCross is 0 (the hop's trail
//   is full); no pool exists; either reserve is not positive (a pool with share lines but no
//   deposit); or poolExchangeAmounts refuses. The payer's balances, the ClaimLiquidityAtom and the
//   CAP-67 events are the caller's (exchange/convert.ts). For pricing without trading (core's
//   maybeConvertWithOffers), call it on a LedgerTxn you roll back.
//
// Not reproduced: the ledger-header flag DISABLE_LIQUIDITY_POOL_TRADING_FLAG (the standalone
// network's header never sets it; LedgerContext does not carry header flags).
import type { Asset } from '../../xdr/codec.ts';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { LedgerContext } from '../ops/types.ts';
import { assetEquals } from '../assets.ts';
import { LIQUIDITY_POOL_FEE_V18, constantProductOf, loadLiquidityPool, poolIdForAssets } from '../liquidityPools.ts';
import { INT64_MAX, bigMultiply, hugeDivide } from '../numeric.ts';
import { Rounding } from './exchangeMath.ts';

export interface PoolExchange { toPool: bigint; fromPool: bigint }

const MAX_BPS = 10_000n;

/** The amounts of one exchange with a pool holding the given reserves; see the module header. */
export function poolExchangeAmounts(reservesToPool: bigint, maxSendToPool: bigint, reservesFromPool: bigint,
  maxReceiveFromPool: bigint, feeBps: number, round: Rounding): PoolExchange | undefined {
  const fee = BigInt(feeBps);
  if (fee < 0n || fee >= MAX_BPS) throw new Error('liquidity pool fee out of range');
  if (reservesToPool <= 0n || reservesFromPool <= 0n) throw new Error('non-positive reserve in a pool exchange');
  const keep = MAX_BPS - fee; // the part of what is sent that counts towards the price

  if (round === Rounding.PATH_PAYMENT_STRICT_SEND) {
    if (maxReceiveFromPool !== INT64_MAX) throw new Error('strict send with a bounded receive');
    if (maxSendToPool > INT64_MAX - reservesToPool) return undefined;
    const toPool = maxSendToPool;
    // at most 2 * 10000 * INT64_MAX: within hugeDivide's divisor bound
    const denominator = bigMultiply(MAX_BPS, reservesToPool) + bigMultiply(keep, toPool);
    const fromPool = hugeDivide(keep, bigMultiply(reservesFromPool, toPool), denominator, false);
    if (fromPool === undefined || fromPool === 0n) return undefined;
    // (keep * toPool) / denominator < 1, so this cannot exceed the reserve (core checks it anyway)
    if (fromPool > reservesFromPool) throw new Error('received more from a pool than it holds');
    return { toPool, fromPool };
  }

  if (round === Rounding.PATH_PAYMENT_STRICT_RECEIVE) {
    if (maxSendToPool !== INT64_MAX) throw new Error('strict receive with a bounded send');
    const room = INT64_MAX - reservesToPool;
    if (maxReceiveFromPool >= reservesFromPool) return undefined;
    const fromPool = maxReceiveFromPool;
    const toPool = hugeDivide(MAX_BPS, bigMultiply(reservesToPool, fromPool),
      bigMultiply(reservesFromPool - fromPool, keep), true);
    if (toPool === undefined || toPool > room) return undefined;
    return { toPool, fromPool };
  }

  throw new Error(`no pool exchange with rounding ${round}`);
}

/** Exchanges with the pool of the two assets inside `ltx`; see the module header. */
export function exchangeWithPool(ltx: LedgerTxn, ledger: Pick<LedgerContext, 'protocolVersion'>, toPoolAsset: Asset,
  maxSendToPool: bigint, fromPoolAsset: Asset, maxReceiveFromPool: bigint, round: Rounding,
  maxOffersToCross: number): PoolExchange | undefined {
  if (ledger.protocolVersion < 18) return undefined;
  if (round === Rounding.NORMAL) return undefined;
  if (maxOffersToCross === 0) return undefined;

  const poolId = poolIdForAssets(toPoolAsset, fromPoolAsset, LIQUIDITY_POOL_FEE_V18);
  const inner = ltx.nest();
  const poolEntry = loadLiquidityPool(inner, poolId);
  if (!poolEntry) { inner.rollback(); return undefined; }
  const cp = constantProductOf(poolEntry);
  if (cp.reserveA <= 0n || cp.reserveB <= 0n) { inner.rollback(); return undefined; }

  // which reserve is which depends on the direction of the trade
  const sendsA = assetEquals(toPoolAsset, cp.params.assetA) && assetEquals(fromPoolAsset, cp.params.assetB);
  const sendsB = assetEquals(toPoolAsset, cp.params.assetB) && assetEquals(fromPoolAsset, cp.params.assetA);
  if (!sendsA && !sendsB) throw new Error('liquidity pool does not hold the exchanged assets');
  const amounts = sendsA
    ? poolExchangeAmounts(cp.reserveA, maxSendToPool, cp.reserveB, maxReceiveFromPool, cp.params.fee, round)
    : poolExchangeAmounts(cp.reserveB, maxSendToPool, cp.reserveA, maxReceiveFromPool, cp.params.fee, round);
  if (!amounts) { inner.rollback(); return undefined; }

  if (sendsA) { cp.reserveA += amounts.toPool; cp.reserveB -= amounts.fromPool; }
  else { cp.reserveB += amounts.toPool; cp.reserveA -= amounts.fromPool; }
  if (cp.reserveA < 0n || cp.reserveB < 0n || cp.reserveA > INT64_MAX || cp.reserveB > INT64_MAX) {
    throw new Error('could not update pool reserves');
  }
  inner.update(poolEntry);
  inner.commit();
  return amounts;
}

