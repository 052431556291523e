// LiquidityPoolWithdraw (CAP-38): the source returns `amount` pool shares and receives that fraction
// of each reserve, rounded down (so the remaining holders never lose), refusing when a side falls
// short of its minimum or does not fit the source's balance or limit.
import type { xdr } from '../../xdr/xdr.ts';
import type { Asset } from '../../xdr/codec.ts';
import { liquidityPoolAddress, movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { constantProductOf, loadLiquidityPool, poolShareTrustLineKey, poolWithdrawalAmount } from '../liquidityPools.ts';
import { addNativeBalance, lineAddBalance, lineIsAuthorizedToMaintainLiabilities, loadCreditLine, saveLine } from '../holdings.ts';
import { addTrustLineBalance, loadAccountOrThrow, trustLineAvailableBalance, trustLineOf } from './accounts.ts';
import { resultMaker } from './opResult.ts';
import type { OpContext, OpHandler, OpOutcome } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 23 }>;
type Code = xdr.LiquidityPoolWithdrawResultWire['code'];

export const LIQUIDITY_POOL_WITHDRAW_SUCCESS = 0;
export const LIQUIDITY_POOL_WITHDRAW_MALFORMED = -1;
export const LIQUIDITY_POOL_WITHDRAW_NO_TRUST = -2;
export const LIQUIDITY_POOL_WITHDRAW_UNDERFUNDED = -3;
export const LIQUIDITY_POOL_WITHDRAW_LINE_FULL = -4;
export const LIQUIDITY_POOL_WITHDRAW_UNDER_MINIMUM = -5;

const result = resultMaker<Code>(23, 'liquidityPoolWithdrawResult');

/** Credits one side of the withdrawal to the source; the failure code, or null when it fits. */
function receive(ctx: OpContext, asset: Asset, minAmount: bigint, amount: bigint): Code | null {
  if (amount < minAmount) return LIQUIDITY_POOL_WITHDRAW_UNDER_MINIMUM;
  if (asset.type === 0) {
    const account = loadAccountOrThrow(ctx.ltx, ctx.source);
    if (!addNativeBalance(ctx.ledger, account, amount)) return LIQUIDITY_POOL_WITHDRAW_LINE_FULL;
    ctx.ltx.update(account);
    return null;
  }
  const line = loadCreditLine(ctx.ltx, ctx.source, asset);
  // the constituent trustlines outlive the share line (their liquidityPoolUseCount keeps them)
  if (!line) throw new Error('pool-share trustline without its constituent trustlines');
  // A line not even authorized to maintain liabilities takes no balance. Core never meets one here,
  // since revoking authorization redeems the holder's pool shares; a state from before this engine
  // redeemed them could hold one, and the withdrawal then fails as the line being unable to receive.
  if (amount !== 0n && !lineIsAuthorizedToMaintainLiabilities(line)) return LIQUIDITY_POOL_WITHDRAW_LINE_FULL;
  if (!lineAddBalance(line, amount)) return LIQUIDITY_POOL_WITHDRAW_LINE_FULL;
  saveLine(ctx.ltx, line);
  return null;
}

export const liquidityPoolWithdraw: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const { amount, minAmountA, minAmountB } = body.liquidityPoolWithdrawOp;
    if (amount <= 0n || minAmountA < 0n || minAmountB < 0n) return result(LIQUIDITY_POOL_WITHDRAW_MALFORMED);
    return null;
  },

  apply(body, ctx): OpOutcome {
    const op = body.liquidityPoolWithdrawOp;
    const { ltx, ledger } = ctx;

    const shareLineEntry = ltx.load(poolShareTrustLineKey(ctx.source, op.liquidityPoolId));
    if (!shareLineEntry) return result(LIQUIDITY_POOL_WITHDRAW_NO_TRUST);
    const shareLine = trustLineOf(shareLineEntry);
    if (trustLineAvailableBalance(shareLine) < op.amount) return result(LIQUIDITY_POOL_WITHDRAW_UNDERFUNDED);

    const poolEntry = loadLiquidityPool(ltx, op.liquidityPoolId);
    if (!poolEntry) throw new Error('pool-share trustline without its liquidity pool');
    const cp = constantProductOf(poolEntry);
    const { assetA, assetB } = cp.params;

    // A is priced and credited before B is priced, as core does, so UNDER_MINIMUM or LINE_FULL on A wins.
    const amountA = poolWithdrawalAmount(op.amount, cp.totalPoolShares, cp.reserveA);
    const failA = receive(ctx, assetA, op.minAmountA, amountA);
    if (failA !== null) return result(failA);
    const amountB = poolWithdrawalAmount(op.amount, cp.totalPoolShares, cp.reserveB);
    const failB = receive(ctx, assetB, op.minAmountB, amountB);
    if (failB !== null) return result(failB);

    if (!addTrustLineBalance(shareLine, -op.amount)) throw new Error('pool withdrawal: share debit failed after the balance check');
    ltx.update(shareLineEntry);
    cp.totalPoolShares -= op.amount;
    cp.reserveA -= amountA;
    cp.reserveB -= amountB;
    ltx.update(poolEntry);

    // the source receives, so a muxed source's id (or else the memo) travels with the amounts
    const pool = liquidityPoolAddress(op.liquidityPoolId);
    const to = muxedAccountAddress(ctx.sourceMuxed);
    ctx.events.push(movementEvent(ledger.networkId, assetA, pool, to, amountA, ctx.txMemo));
    ctx.events.push(movementEvent(ledger.networkId, assetB, pool, to, amountB, ctx.txMemo));
    return result(LIQUIDITY_POOL_WITHDRAW_SUCCESS);
  },
};
