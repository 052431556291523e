// The pool side of a hop: trade with the constant-product pool of the pair, if it exists and holds
// both assets (stellar-core's exchangeWithPool at the LedgerTxn level). Offers (rounding NORMAL)
// never trade with pools.
import { xdr } from '@stellar/stellar-sdk';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { LedgerContext } from '../ops/types.ts';
import { sha256, type Asset } from '../../xdr/codec.ts';
import { compareAssets } from '../assets.ts';
import { Rounding } from './exchangeMath.ts';

export const LIQUIDITY_POOL_FEE_BPS = 30;

/** The id of the constant-product pool of two assets: the hash of its parameters, assets in XDR order. */
export function poolIdOf(x: Asset, y: Asset): Uint8Array {
  const [assetA, assetB] = compareAssets(x, y) < 0 ? [x, y] : [y, x];
  return sha256(xdr.LiquidityPoolParameters.schema.encode({ type: 0, constantProduct: { assetA, assetB, fee: LIQUIDITY_POOL_FEE_BPS } }));
}

/** What a pool trade moved: `toPool` of the sent asset in, `fromPool` of the received asset out. */
export interface PoolTrade { toPool: bigint; fromPool: bigint }

export function exchangeWithPool(ltx: LedgerTxn, ledger: LedgerContext, toPoolAsset: Asset, maxSendToPool: bigint,
  fromPoolAsset: Asset, maxReceiveFromPool: bigint, round: Rounding, maxOffersToCross: number): PoolTrade | undefined {
  if (ledger.protocolVersion < 18 || round === Rounding.NORMAL || maxOffersToCross === 0) return undefined;
  const pool = ltx.load({ type: 5, liquidityPool: { liquidityPoolId: poolIdOf(toPoolAsset, fromPoolAsset) } });
  if (!pool) return undefined;
  void maxSendToPool; void maxReceiveFromPool;
  throw new Error('liquidity pool trades are not applied yet');
}
