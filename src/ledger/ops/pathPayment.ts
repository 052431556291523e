// What PathPaymentStrictReceive and PathPaymentStrictSend share (stellar-core's
// PathPaymentOpFrameBase): debiting the sender, crediting the destination, and converting one asset
// into the next along the path through the book or a pool. Strict receive walks the path backwards
// from the amount the destination must get; strict send walks it forwards from the amount sent.
import type { xdr } from '../../xdr/xdr.ts';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { OpContext, OpOutcome } from './types.ts';
import { accountKey, muxedToAccountId, type AccountId, type Asset } from '../../xdr/codec.ts';
import { accountIdEquals, accountOf, addAccountBalance, availableBalance, loadAccount } from './accounts.ts';
import { assetEquals, assetIssuer, isAssetValid } from '../assets.ts';
import { lineAddBalance, lineIsAuthorized, loadCreditLine, saveLine } from '../holdings.ts';
import { convertWithOffersAndPools, type CrossingBudget } from '../exchange/convert.ts';
import type { ClaimAtom } from '../exchange/crossOffers.ts';
import type { Rounding } from '../exchange/exchangeMath.ts';
import { claimAtomEvents, movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { OP_EXCEEDED_WORK_LIMIT, failOp } from './opResult.ts';

/** Result codes both path payments share (the last one differs: OVER_SENDMAX / UNDER_DESTMIN). */
export const PATH_SUCCESS = 0;
export const PATH_MALFORMED = -1;
export const PATH_UNDERFUNDED = -2;
export const PATH_SRC_NO_TRUST = -3;
export const PATH_SRC_NOT_AUTHORIZED = -4;
export const PATH_NO_DESTINATION = -5;
export const PATH_NO_TRUST = -6;
export const PATH_NOT_AUTHORIZED = -7;
export const PATH_LINE_FULL = -8;
export const PATH_TOO_FEW_OFFERS = -10;
export const PATH_OFFER_CROSS_SELF = -11;
export const PATH_CONSTRAINT_NOT_MET = -12;

export interface PathRequest {
  sendAsset: Asset;
  destAsset: Asset;
  destination: xdr.MuxedAccountWire;
  path: Asset[];
}

/** Amounts must be positive and every asset valid (doCheckValid); null when they are. */
export function pathRequestInvalid(r: PathRequest, amounts: bigint[]): boolean {
  return amounts.some((a) => a <= 0n) || !isAssetValid(r.sendAsset) || !isAssetValid(r.destAsset) || !r.path.every(isAssetValid);
}

/**
 * A payment of an asset to its own issuer with no path needs neither the issuer's account nor any
 * conversion (shouldBypassIssuerCheck).
 */
export function bypassesIssuerCheck(r: PathRequest): boolean {
  const issuer = assetIssuer(r.destAsset);
  return r.destAsset.type !== 0 && r.path.length === 0 && assetEquals(r.sendAsset, r.destAsset) &&
    issuer !== undefined && accountIdEquals(issuer, muxedToAccountId(r.destination));
}

export const destinationExists = (ltx: LedgerTxn, r: PathRequest): boolean => ltx.exists(accountKey(muxedToAccountId(r.destination)));

/** Takes `amount` of the send asset from the source; a failure code, or null. */
export function debitSource(ctx: OpContext, asset: Asset, amount: bigint): number | null {
  const { ltx, ledger, source } = ctx;
  if (asset.type === 0) {
    const account = loadAccount(ltx, source);
    if (!account) return PATH_MALFORMED;
    if (amount > availableBalance(ledger, accountOf(account))) return PATH_UNDERFUNDED;
    if (!addAccountBalance(ledger, accountOf(account), -amount)) throw new Error('path payment: debit failed after balance check');
    ltx.update(account);
    return null;
  }
  const line = loadCreditLine(ltx, source, asset);
  if (!line) return PATH_SRC_NO_TRUST;
  if (!lineIsAuthorized(line)) return PATH_SRC_NOT_AUTHORIZED;
  if (!lineAddBalance(line, -amount)) return PATH_UNDERFUNDED;
  saveLine(ltx, line);
  return null;
}

/** Gives `amount` of the destination asset to the destination; a failure code, or null. */
export function creditDestination(ctx: OpContext, r: PathRequest, amount: bigint): number | null {
  const { ltx, ledger } = ctx;
  const destId = muxedToAccountId(r.destination);
  if (r.destAsset.type === 0) {
    const account = loadAccount(ltx, destId);
    if (!account || !addAccountBalance(ledger, accountOf(account), amount)) return PATH_LINE_FULL;
    ltx.update(account);
    return null;
  }
  const line = loadCreditLine(ltx, destId, r.destAsset);
  if (!line) return PATH_NO_TRUST;
  if (!lineIsAuthorized(line)) return PATH_NOT_AUTHORIZED;
  if (!lineAddBalance(line, amount)) return PATH_LINE_FULL;
  saveLine(ltx, line);
  return null;
}

export interface Hop { amountSend: bigint; amountRecv: bigint; trail: ClaimAtom[] }

/**
 * Converts one hop; `exact` says which side had to be met in full (the received amount for strict
 * receive, the sent amount for strict send). A failure is an OpOutcome.
 */
export function convertHop(ctx: OpContext, sendAsset: Asset, maxSend: bigint, recvAsset: Asset, maxRecv: bigint,
  round: Rounding, budget: CrossingBudget, exact: 'receive' | 'send', result: (code: number) => OpOutcome,
  placeholder: () => xdr.OperationResultTrWire): Hop | OpOutcome {
  const converted = convertWithOffersAndPools(ctx.ltx, ctx.ledger, sendAsset, maxSend, recvAsset, maxRecv, round,
    (o) => (accountIdEquals(o.sellerId, ctx.source) ? 'stopCrossSelf' : 'keep'), budget);
  switch (converted.result) {
    case 'stopCrossSelf': return result(PATH_OFFER_CROSS_SELF);
    case 'crossedTooMany': return failOp(OP_EXCEEDED_WORK_LIMIT, placeholder());
    case 'ok': {
      const met = exact === 'receive' ? converted.wheatReceived === maxRecv : converted.sheepSend === maxSend;
      if (met) return { amountSend: converted.sheepSend, amountRecv: converted.wheatReceived, trail: converted.trail };
      return result(PATH_TOO_FEW_OFFERS);
    }
    default: return result(PATH_TOO_FEW_OFFERS);
  }
}

export const isHop = (h: Hop | OpOutcome): h is Hop => 'trail' in h;

/** The trade events, then the payment's own movement to the destination (with its memo or mux id). */
export function emitPathPaymentEvents(ctx: OpContext, r: PathRequest, offers: ClaimAtom[], amount: bigint): void {
  const { networkId } = ctx.ledger;
  ctx.events.push(...claimAtomEvents(networkId, ctx.sourceMuxed, offers));
  ctx.events.push(movementEvent(networkId, r.destAsset, muxedAccountAddress(ctx.sourceMuxed), muxedAccountAddress(r.destination), amount, ctx.txMemo));
}

export const lastPayment = (r: PathRequest, amount: bigint): xdr.SimplePaymentResultWire =>
  ({ destination: muxedToAccountId(r.destination) as AccountId, asset: r.destAsset, amount });
