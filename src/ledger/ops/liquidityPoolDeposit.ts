// LiquidityPoolDeposit (CAP-38): the source puts up to maxAmountA and maxAmountB into a pool whose
// shares it trusts, and receives pool shares. Into an empty pool it deposits both maxima and gets
// floor(sqrt(a * b)) shares; into a pool with shares it gets the largest share count both maxima
// cover (each side rounded down) and pays, per side, that fraction of the reserve rounded up, so a
// deposit never dilutes existing holders. The price a/b deposited must lie in [minPrice, maxPrice].
import type { xdr } from '../../xdr/xdr.ts';
import { liquidityPoolAddress, movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { assetEquals } from '../assets.ts';
import { constantProductOf, loadLiquidityPool, poolShareTrustLineKey, type ConstantProduct } from '../liquidityPools.ts';
import { INT64_MAX, bigDivide, bigMultiply, bigSquareRoot } from '../numeric.ts';
import { addNativeBalance, lineAddBalance, lineAvailableBalance, lineIsAuthorized, loadCreditLine, saveLine, type CreditLine } from '../holdings.ts';
import { accountOf, addTrustLineBalance, availableBalance, loadAccountOrThrow, trustLineMaxReceive, trustLineOf } from './accounts.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler, OpOutcome } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 22 }>;
type Code = xdr.LiquidityPoolDepositResultWire['code'];
type Price = xdr.PriceWire;

export const LIQUIDITY_POOL_DEPOSIT_SUCCESS = 0;
export const LIQUIDITY_POOL_DEPOSIT_MALFORMED = -1;
export const LIQUIDITY_POOL_DEPOSIT_NO_TRUST = -2;
export const LIQUIDITY_POOL_DEPOSIT_NOT_AUTHORIZED = -3;
export const LIQUIDITY_POOL_DEPOSIT_UNDERFUNDED = -4;
export const LIQUIDITY_POOL_DEPOSIT_LINE_FULL = -5;
export const LIQUIDITY_POOL_DEPOSIT_BAD_PRICE = -6;
export const LIQUIDITY_POOL_DEPOSIT_POOL_FULL = -7;

const result = resultMaker<Code>(22, 'liquidityPoolDepositResult');

/** Outside [minPrice, maxPrice] as amountA / amountB, compared by cross-multiplying (no rounding); zero amounts are always bad. */
function isBadPrice(amountA: bigint, amountB: bigint, minPrice: Price, maxPrice: Price): boolean {
  if (amountA === 0n || amountB === 0n) return true;
  return bigMultiply(amountA, BigInt(minPrice.d)) < bigMultiply(amountB, BigInt(minPrice.n))
    || bigMultiply(amountA, BigInt(maxPrice.d)) > bigMultiply(amountB, BigInt(maxPrice.n));
}

interface Deposit { amountA: bigint; amountB: bigint; shares: bigint }

/** What a deposit into a pool that has issued shares takes and gives (before the balance checks). */
function proportionalDeposit(cp: ConstantProduct, maxAmountA: bigint, maxAmountB: bigint): Deposit {
  // The shares each maximum would buy, rounded down; a side whose quotient overflows int64 does not
  // bind. Both cannot overflow: one reserve is at least the share total (core's argument), so its
  // quotient is at most its maximum.
  const byA = bigDivide(cp.totalPoolShares, maxAmountA, cp.reserveA, false);
  const byB = bigDivide(cp.totalPoolShares, maxAmountB, cp.reserveB, false);
  if (byA === undefined && byB === undefined) throw new Error('both pool share calculations overflowed');
  const shares = byA === undefined ? byB! : byB === undefined ? byA : byA < byB ? byA : byB;
  // What those shares cost of each reserve, rounded up (never more than the maximum given).
  const amountA = bigDivide(shares, cp.reserveA, cp.totalPoolShares, true);
  const amountB = bigDivide(shares, cp.reserveB, cp.totalPoolShares, true);
  if (amountA === undefined || amountB === undefined) throw new Error('pool deposit amount overflowed');
  return { amountA, amountB, shares };
}

export const liquidityPoolDeposit: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const { maxAmountA, maxAmountB, minPrice, maxPrice } = body.liquidityPoolDepositOp;
    if (maxAmountA <= 0n || maxAmountB <= 0n) return result(LIQUIDITY_POOL_DEPOSIT_MALFORMED);
    if (minPrice.n <= 0 || minPrice.d <= 0 || maxPrice.n <= 0 || maxPrice.d <= 0) return result(LIQUIDITY_POOL_DEPOSIT_MALFORMED);
    // minPrice > maxPrice, cross-multiplied (int32 products fit a double exactly, but stay in BigInt)
    if (BigInt(minPrice.n) * BigInt(maxPrice.d) > BigInt(minPrice.d) * BigInt(maxPrice.n)) return result(LIQUIDITY_POOL_DEPOSIT_MALFORMED);
    return null;
  },

  apply(body, ctx): OpOutcome {
    const op = body.liquidityPoolDepositOp;
    const { ltx, ledger } = ctx;

    const shareLineEntry = ltx.load(poolShareTrustLineKey(ctx.source, op.liquidityPoolId));
    if (!shareLineEntry) return result(LIQUIDITY_POOL_DEPOSIT_NO_TRUST);
    const shareLine = trustLineOf(shareLineEntry);

    // a pool lives as long as a share line to it does
    const poolEntry = loadLiquidityPool(ltx, op.liquidityPoolId);
    if (!poolEntry) throw new Error('pool-share trustline without its liquidity pool');
    const cp = constantProductOf(poolEntry);
    const { assetA, assetB } = cp.params;
    if (assetEquals(assetA, assetB)) throw new Error('liquidity pool with identical assets');

    // At most one constituent is native (they differ); the others are held through trustlines, which
    // outlive the share line (their liquidityPoolUseCount keeps them), or are the source's own asset.
    const account = assetA.type === 0 || assetB.type === 0 ? loadAccountOrThrow(ltx, ctx.source) : undefined;
    const lineA = assetA.type === 0 ? undefined : loadCreditLine(ltx, ctx.source, assetA);
    const lineB = assetB.type === 0 ? undefined : loadCreditLine(ltx, ctx.source, assetB);
    if ((assetA.type !== 0 && !lineA) || (assetB.type !== 0 && !lineB)) throw new Error('pool-share trustline without its constituent trustlines');
    if ((lineA && !lineIsAuthorized(lineA)) || (lineB && !lineIsAuthorized(lineB))) return result(LIQUIDITY_POOL_DEPOSIT_NOT_AUTHORIZED);

    const available = (line: CreditLine | undefined): bigint => (line ? lineAvailableBalance(line) : availableBalance(ledger, accountOf(account!)));
    const availableA = available(lineA);
    const availableB = available(lineB);
    const shareRoom = trustLineMaxReceive(shareLine);

    let deposit: Deposit;
    if (cp.totalPoolShares !== 0n) {
      deposit = proportionalDeposit(cp, op.maxAmountA, op.maxAmountB);
      if (availableA < deposit.amountA || availableB < deposit.amountB) return result(LIQUIDITY_POOL_DEPOSIT_UNDERFUNDED);
      if (isBadPrice(deposit.amountA, deposit.amountB, op.minPrice, op.maxPrice)) return result(LIQUIDITY_POOL_DEPOSIT_BAD_PRICE);
    } else {
      // the first deposit sets the price, so it takes both maxima
      if (availableA < op.maxAmountA || availableB < op.maxAmountB) return result(LIQUIDITY_POOL_DEPOSIT_UNDERFUNDED);
      if (isBadPrice(op.maxAmountA, op.maxAmountB, op.minPrice, op.maxPrice)) return result(LIQUIDITY_POOL_DEPOSIT_BAD_PRICE);
      deposit = { amountA: op.maxAmountA, amountB: op.maxAmountB, shares: bigSquareRoot(op.maxAmountA, op.maxAmountB) };
    }
    const { amountA, amountB, shares } = deposit;
    if (shareRoom < shares) return result(LIQUIDITY_POOL_DEPOSIT_LINE_FULL);

    if (INT64_MAX - amountA < cp.reserveA || INT64_MAX - amountB < cp.reserveB || INT64_MAX - shares < cp.totalPoolShares) {
      return result(LIQUIDITY_POOL_DEPOSIT_POOL_FULL);
    }
    // a zero share count prices as zero amounts, which BAD_PRICE has already refused
    if (amountA <= 0n || amountB <= 0n || shares <= 0n) throw new Error('pool deposit of a non-positive amount');

    const debit = (line: CreditLine | undefined, amount: bigint): void => {
      if (!(line ? lineAddBalance(line, -amount) : addNativeBalance(ledger, account!, -amount))) {
        throw new Error('pool deposit: debit failed after the balance check');
      }
    };
    debit(lineA, amountA);
    debit(lineB, amountB);
    if (lineA) saveLine(ltx, lineA);
    if (lineB) saveLine(ltx, lineB);
    if (account) ltx.update(account);
    cp.reserveA += amountA;
    cp.reserveB += amountB;
    cp.totalPoolShares += shares;
    ltx.update(poolEntry);
    if (!addTrustLineBalance(shareLine, shares)) throw new Error('pool deposit: share line overflowed after the limit check');
    ltx.update(shareLineEntry);

    const from = muxedAccountAddress(ctx.sourceMuxed);
    const pool = liquidityPoolAddress(op.liquidityPoolId);
    ctx.events.push(movementEvent(ledger.networkId, assetA, from, pool, amountA));
    ctx.events.push(movementEvent(ledger.networkId, assetB, from, pool, amountB));
    return result(LIQUIDITY_POOL_DEPOSIT_SUCCESS);
  },
};
