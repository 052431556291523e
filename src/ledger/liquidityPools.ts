// Constant-product liquidity pools (CAP-38): pool ids, keys and entries, the pool-share trustline
// bookkeeping ChangeTrust does (liquidityPoolUseCount on the constituent trustlines, the pool's
// poolSharesTrustLineCount, creating the pool with its first share line and erasing it with its
// last), and the withdrawal arithmetic.
import { xdr } from '../xdr/xdr.ts';
import {
  encodeLedgerKey, sha256, trustLineKey,
  type AccountId, type Asset, type LedgerEntry, type LedgerKey, type TrustLineEntry,
} from '../xdr/codec.ts';
import type { LedgerTxn } from './ledgerTxn.ts';
import { compareAssets, isIssuer } from './assets.ts';
import { isAuthorizedToMaintainLiabilities, trustLineOf } from './ops/accounts.ts';
import { INT64_MAX, bigDivideOrThrow } from './numeric.ts';

/** The only fee a pool may have (LIQUIDITY_POOL_FEE_V18), in basis points. */
export const LIQUIDITY_POOL_FEE_V18 = 30;

const INT32_MAX = 0x7fff_ffff;

export type PoolId = Uint8Array;
export type ConstantProductParams = xdr.LiquidityPoolConstantProductParametersWire;
export type ConstantProduct = xdr.LiquidityPoolEntryConstantProductWire;

/** The parameters of the pool between two assets: assetA < assetB in XDR order. */
export function constantProductParams(x: Asset, y: Asset, fee = LIQUIDITY_POOL_FEE_V18): ConstantProductParams {
  return compareAssets(x, y) <= 0 ? { assetA: x, assetB: y, fee } : { assetA: y, assetB: x, fee };
}

/** A pool's id: sha256 of its LiquidityPoolParameters XDR. */
export function poolIdOfParams(params: ConstantProductParams): PoolId {
  return sha256(xdr.LiquidityPoolParameters.schema.encode({ type: 0, constantProduct: params }));
}

/** The id of the pool between two assets, in either order (stellar-core's getPoolID). */
export const poolIdForAssets = (x: Asset, y: Asset, fee = LIQUIDITY_POOL_FEE_V18): PoolId =>
  poolIdOfParams(constantProductParams(x, y, fee));

export const liquidityPoolKey = (id: PoolId): LedgerKey => ({ type: 5, liquidityPool: { liquidityPoolId: id } });

export const poolShareTrustLineKey = (owner: AccountId, id: PoolId): LedgerKey =>
  trustLineKey(owner, { type: 3, liquidityPoolId: id });

/**
 * The LedgerKey XDR every pool-share trustline key of `owner` starts with (type, account, asset
 * type), for reading them from storage as one key range.
 */
export function poolShareTrustLineKeyPrefix(owner: AccountId): Uint8Array {
  const key = encodeLedgerKey(poolShareTrustLineKey(owner, new Uint8Array(32)));
  return key.subarray(0, key.length - 32);
}

export const loadLiquidityPool = (ltx: LedgerTxn, id: PoolId): LedgerEntry | undefined => ltx.load(liquidityPoolKey(id));

/** The constant-product body of a pool entry (a working copy when the entry is one). */
export function constantProductOf(e: LedgerEntry): ConstantProduct {
  if (e.data.type !== 5) throw new Error('expected a liquidity pool entry');
  return e.data.liquidityPool.body.constantProduct;
}

/** A pool as its first share trustline creates it: empty, counted once. */
export function newLiquidityPoolEntry(ledgerSeq: number, id: PoolId, params: ConstantProductParams): LedgerEntry {
  return {
    lastModifiedLedgerSeq: ledgerSeq,
    data: {
      type: 5,
      liquidityPool: {
        liquidityPoolId: id,
        body: { type: 0, constantProduct: { params, reserveA: 0n, reserveB: 0n, totalPoolShares: 0n, poolSharesTrustLineCount: 1n } },
      },
    },
    ext: { v: 0 },
  };
}

/**
 * What withdrawing `shares` of `totalShares` returns of a reserve: rounded down, so the pool never
 * pays out more than the shares are worth.
 */
export function poolWithdrawalAmount(shares: bigint, totalShares: bigint, reserve: bigint): bigint {
  if (shares > totalShares) throw new Error('withdrawing more shares than the pool has issued');
  return bigDivideOrThrow(shares, reserve, totalShares, false);
}

// ---------------------------------------------------------------------------------------------
// liquidityPoolUseCount (TrustLineEntryExtensionV2)

/** How many pool-share trustlines of the same account use this trustline's asset. */
export function liquidityPoolUseCount(tl: TrustLineEntry): number {
  return tl.ext.v === 1 && tl.ext.v1.ext.v === 2 ? tl.ext.v1.ext.v2.liquidityPoolUseCount : 0;
}

function prepareTrustLineExtV2(tl: TrustLineEntry): xdr.TrustLineEntryExtensionV2Wire {
  if (tl.ext.v === 0) tl.ext = { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 0 } } };
  if (tl.ext.v1.ext.v === 0) tl.ext.v1.ext = { v: 2, v2: { liquidityPoolUseCount: 0, ext: { v: 0 } } };
  return tl.ext.v1.ext.v2;
}

/** A constituent the owner holds through a trustline (not native, not its own asset). */
const heldThroughTrustLine = (owner: AccountId, asset: Asset): boolean => asset.type !== 0 && !isIssuer(owner, asset);

// ---------------------------------------------------------------------------------------------
// Pool-share trustlines coming and going (ChangeTrust)

export type NewShareLineCheck = 'ok' | 'trustLineMissing' | 'notAuthorizedToMaintainLiabilities';

/**
 * Bookkeeping for a new pool-share trustline of `owner` (stellar-core's tryManagePoolOnNewTrustLine):
 * each constituent held through a trustline must have one, at least authorized to maintain
 * liabilities, and its liquidityPoolUseCount goes up; then the pool's poolSharesTrustLineCount goes up,
 * or the pool is created. On a failure the caller rolls back what was written.
 */
export function addPoolShareTrustLine(ltx: LedgerTxn, ledgerSeq: number, owner: AccountId, params: ConstantProductParams): NewShareLineCheck {
  for (const asset of [params.assetA, params.assetB]) {
    if (!heldThroughTrustLine(owner, asset)) continue;
    const lineEntry = ltx.load(trustLineKey(owner, asset as xdr.TrustLineAssetWire));
    if (!lineEntry) return 'trustLineMissing';
    const tl = trustLineOf(lineEntry);
    if (!isAuthorizedToMaintainLiabilities(tl)) return 'notAuthorizedToMaintainLiabilities';
    const v2 = prepareTrustLineExtV2(tl);
    if (v2.liquidityPoolUseCount >= INT32_MAX) throw new Error('liquidityPoolUseCount is INT32_MAX');
    v2.liquidityPoolUseCount += 1;
    ltx.update(lineEntry);
  }

  const id = poolIdOfParams(params);
  const poolEntry = loadLiquidityPool(ltx, id);
  if (poolEntry) {
    const cp = constantProductOf(poolEntry);
    if (cp.poolSharesTrustLineCount >= INT64_MAX) throw new Error('poolSharesTrustLineCount is INT64_MAX');
    cp.poolSharesTrustLineCount += 1n;
    ltx.update(poolEntry);
  } else {
    ltx.create(newLiquidityPoolEntry(ledgerSeq, id, params));
  }
  return 'ok';
}

/**
 * Bookkeeping after `owner`'s pool-share trustline was erased (stellar-core's
 * managePoolOnDeletedTrustLine): the constituents' liquidityPoolUseCount and the pool's
 * poolSharesTrustLineCount go down, and the pool is erased with its last share line.
 */
export function removePoolShareTrustLine(ltx: LedgerTxn, owner: AccountId, params: ConstantProductParams): void {
  for (const asset of [params.assetA, params.assetB]) {
    if (!heldThroughTrustLine(owner, asset)) continue;
    const lineEntry = ltx.load(trustLineKey(owner, asset as xdr.TrustLineAssetWire));
    if (!lineEntry) throw new Error('constituent trustline of a pool-share trustline is missing');
    const tl = trustLineOf(lineEntry);
    if (liquidityPoolUseCount(tl) <= 0) throw new Error('liquidityPoolUseCount would go negative');
    prepareTrustLineExtV2(tl).liquidityPoolUseCount -= 1;
    ltx.update(lineEntry);
  }

  const id = poolIdOfParams(params);
  const poolEntry = loadLiquidityPool(ltx, id);
  if (!poolEntry) throw new Error('liquidity pool is missing');
  const cp = constantProductOf(poolEntry);
  if (cp.poolSharesTrustLineCount <= 0n) throw new Error('poolSharesTrustLineCount would go negative');
  cp.poolSharesTrustLineCount -= 1n;
  if (cp.poolSharesTrustLineCount === 0n) ltx.erase(liquidityPoolKey(id));
  else ltx.update(poolEntry);
}
