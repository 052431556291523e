// What revoking a holder's authorization for an asset does to its pool shares (CAP-38, stellar-core's
// removeOffersAndPoolShareTrustLines after the offers): every pool-share trustline of the holder
// whose pool holds the asset is deleted, and the shares are redeemed as a withdrawal would, each
// side becoming a claimable balance the holder can claim unconditionally (its own asset is simply
// burnt). The balances take over the reserve the share line held: whoever backed the line (its
// sponsor, else the holder) sponsors them.
import { xdr } from '../xdr/xdr.ts';
import { sha256, toHex, type AccountId, type Asset, type ContractEvent } from '../xdr/codec.ts';
import type { LedgerTxn } from './ledgerTxn.ts';
import type { LedgerContext } from './ops/types.ts';
import { assetEquals, compareBytes, isIssuer } from './assets.ts';
import {
  TRUSTLINE_CLAWBACK_ENABLED_FLAG, UINT32_MAX, accountOf, loadAccountOrThrow, loadTrustLine, numSponsoring,
  prepareAccountExtV2, trustLineOf,
} from './ops/accounts.ts';
import { claimableBalanceEntry, type ClaimableBalanceId } from './claimableBalances.ts';
import { activeSponsorOf } from './futureReserves.ts';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship, reserveMultiplier, sponsorOf } from './sponsorship.ts';
import { constantProductOf, loadLiquidityPool, poolShareTrustLineKey, poolWithdrawalAmount, removePoolShareTrustLine, type PoolId } from './liquidityPools.ts';
import { burnEvent, claimableBalanceAddress, liquidityPoolAddress, transferEvent } from './sacEvents.ts';

/** The operation revoking: balance ids derive from it, and the redemptions are its events. */
export interface RevokingOperation {
  txSourceId: AccountId;
  txSeqNum: bigint;
  opIndex: number;
  events: ContractEvent[];
}

export type RedemptionResult = 'ok' | 'lowReserve' | 'tooManySponsoring';

const ENVELOPE_TYPE_POOL_REVOKE_OP_ID = 7;

/** The id of the balance redeeming one side of one pool: the POOL_REVOKE_OP_ID preimage's hash. */
export function poolRevokeBalanceId(op: RevokingOperation, poolId: PoolId, asset: Asset): ClaimableBalanceId {
  const preimage = xdr.HashIdPreimage.schema.encode({
    type: ENVELOPE_TYPE_POOL_REVOKE_OP_ID,
    revokeId: { sourceAccount: op.txSourceId, seqNum: op.txSeqNum, opNum: op.opIndex, liquidityPoolId: poolId, asset },
  });
  return { type: 0, v0: sha256(preimage) };
}

/** The holder's pool-share trustlines whose pool holds `asset`, in key order (pool id bytes), as core sorts them. */
function shareLinesHolding(ltx: LedgerTxn, holder: AccountId, asset: Asset): PoolId[] {
  const ids: PoolId[] = [];
  for (const line of ltx.poolShareTrustLinesOf(holder)) {
    const tlAsset = trustLineOf(line).asset;
    if (tlAsset.type !== 3) continue;
    const pool = loadLiquidityPool(ltx, tlAsset.liquidityPoolId);
    if (!pool) throw new Error('pool-share trustline without its liquidity pool');
    const { assetA, assetB } = constantProductOf(pool).params;
    if (assetEquals(assetA, asset) || assetEquals(assetB, asset)) ids.push(tlAsset.liquidityPoolId);
  }
  return ids.sort(compareBytes);
}

/**
 * Redeems the holder's pool shares in every pool holding `asset` (see the module header), inside
 * `ltx`. On a failure ('lowReserve', 'tooManySponsoring': only an open sponsorship of the backer can
 * refuse) the caller rolls `ltx` back.
 */
export function redeemPoolSharesOnRevoke(ltx: LedgerTxn, ledger: LedgerContext, holder: AccountId, asset: Asset,
  op: RevokingOperation): RedemptionResult {
  if (ledger.protocolVersion < 18) return 'ok';
  for (const poolId of shareLinesHolding(ltx, holder, asset)) {
    const lineKey = poolShareTrustLineKey(holder, poolId);
    const lineEntry = ltx.load(lineKey)!;
    const shares = trustLineOf(lineEntry).balance;
    const backer = sponsorOf(lineEntry) ?? holder;

    // the share line goes first, releasing its reserve for the balances to take over
    const holderEntry = loadAccountOrThrow(ltx, holder);
    removeEntryWithPossibleSponsorship(ltx, lineEntry, holderEntry);
    ltx.update(holderEntry);
    ltx.erase(lineKey);

    const poolEntry = loadLiquidityPool(ltx, poolId)!;
    const cp = constantProductOf(poolEntry);
    if (shares !== 0n) {
      const amountA = poolWithdrawalAmount(shares, cp.totalPoolShares, cp.reserveA);
      const resA = redeemInto(ltx, ledger, holder, backer, poolId, cp.params.assetA, amountA, op);
      if (resA !== 'ok') return resA;
      const amountB = poolWithdrawalAmount(shares, cp.totalPoolShares, cp.reserveB);
      const resB = redeemInto(ltx, ledger, holder, backer, poolId, cp.params.assetB, amountB, op);
      if (resB !== 'ok') return resB;
      cp.totalPoolShares -= shares;
      cp.reserveA -= amountA;
      cp.reserveB -= amountB;
      ltx.update(poolEntry);
    }
    // the constituent lines' use counts and the pool's line count, as deleting the line by ChangeTrust does
    removePoolShareTrustLine(ltx, holder, cp.params);
  }
  return 'ok';
}

/** One side of a redeemed share line: nothing for 0, a burn for the holder's own asset, else a claimable balance. */
function redeemInto(ltx: LedgerTxn, ledger: LedgerContext, holder: AccountId, backer: AccountId, poolId: PoolId,
  asset: Asset, amount: bigint, op: RevokingOperation): RedemptionResult {
  if (amount === 0n) return 'ok';
  const pool = liquidityPoolAddress(poolId);
  if (isIssuer(holder, asset)) {
    op.events.push(burnEvent(ledger.networkId, asset, pool, amount));
    return 'ok';
  }

  const balanceId = poolRevokeBalanceId(op, poolId, asset);
  // the balance can be clawed back when the holder's line could have been
  let clawback = false;
  if (asset.type !== 0) {
    const line = loadTrustLine(ltx, holder, asset);
    if (!line) throw new Error('pool-share trustline without its constituent trustline');
    clawback = (trustLineOf(line).flags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) !== 0;
  }
  const entry = claimableBalanceEntry(ledger.ledgerSeq, balanceId,
    [{ type: 0, v0: { destination: holder, predicate: { type: 0 } } }], asset, amount, clawback);
  op.events.push(transferEvent(ledger.networkId, asset, pool, claimableBalanceAddress(balanceId), amount));

  const backerEntry = loadAccountOrThrow(ltx, backer);
  if (activeSponsorOf(ltx, backer)) {
    // in a sponsorship sandwich the sandwich's sponsor pays, and it may not be able to
    switch (createEntryWithPossibleSponsorship(ltx, ledger, entry, backerEntry)) {
      case 'ok': break;
      case 'lowReserve': return 'lowReserve';
      case 'tooManySponsoring': return 'tooManySponsoring';
      default: throw new Error('unexpected sponsorship result redeeming pool shares');
    }
  } else {
    // otherwise the backer sponsors it without a reserve check: the reserve is the one the share
    // line held, even if the base reserve has risen since
    const mult = reserveMultiplier(entry);
    const acc = accountOf(backerEntry);
    if (numSponsoring(acc) > UINT32_MAX - mult) throw new Error(`no numSponsoring left for ${toHex(backer.ed25519)}`);
    entry.ext = { v: 1, v1: { sponsoringId: backer, ext: { v: 0 } } };
    prepareAccountExtV2(acc).numSponsoring += mult;
  }
  ltx.update(backerEntry);
  ltx.create(entry);
  return 'ok';
}
