// Payment: moves `amount` of one asset from the source to the destination. Like stellar-core, it
// behaves as a path payment without a path: credit the destination first, then debit the source.
// An issuer needs no trustline for its own asset (it mints when sending and burns when receiving),
// and a payment back to the issuer does not even require the issuer account to exist.
import type { xdr } from '@stellar/stellar-sdk';
import { accountKey, muxedToAccountId } from '../../xdr/codec.ts';
import { movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { accountIdEquals, accountOf, addAccountBalance, addTrustLineBalance, availableBalance, isAuthorized, loadAccount, loadTrustLine, trustLineOf } from './accounts.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 1 }>;
type Code = xdr.PaymentResultWire['code'];

export const PAYMENT_SUCCESS = 0;
export const PAYMENT_MALFORMED = -1;
export const PAYMENT_UNDERFUNDED = -2;
export const PAYMENT_SRC_NO_TRUST = -3;
export const PAYMENT_SRC_NOT_AUTHORIZED = -4;
export const PAYMENT_NO_DESTINATION = -5;
export const PAYMENT_NO_TRUST = -6;
export const PAYMENT_NOT_AUTHORIZED = -7;
export const PAYMENT_LINE_FULL = -8;

const result = resultMaker<Code>(1, 'paymentResult');

export const payment: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const { amount, asset } = body.paymentOp;
    if (amount <= 0n || !isAssetValid(asset)) return result(PAYMENT_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { destination, asset, amount } = body.paymentOp;
    const { ltx, ledger } = ctx;
    const destId = muxedToAccountId(destination);
    const emit = () => ctx.events.push(movementEvent(ledger.networkId, asset,
      muxedAccountAddress(ctx.sourceMuxed), muxedAccountAddress(destination), amount, ctx.txMemo));

    // Native to oneself changes nothing (but still reports the movement).
    if (asset.type === 0 && accountIdEquals(destId, ctx.source)) {
      emit();
      return result(PAYMENT_SUCCESS);
    }

    const destIsIssuer = isIssuer(destId, asset);
    if (!destIsIssuer && !ltx.exists(accountKey(destId))) return result(PAYMENT_NO_DESTINATION);

    // Credit the destination.
    if (asset.type === 0) {
      const destEntry = loadAccount(ltx, destId)!;
      if (!addAccountBalance(ledger, accountOf(destEntry), amount)) return result(PAYMENT_LINE_FULL);
      ltx.update(destEntry);
    } else if (!destIsIssuer) {
      const lineEntry = loadTrustLine(ltx, destId, asset);
      if (!lineEntry) return result(PAYMENT_NO_TRUST);
      const line = trustLineOf(lineEntry);
      if (!isAuthorized(line)) return result(PAYMENT_NOT_AUTHORIZED);
      if (!addTrustLineBalance(line, amount)) return result(PAYMENT_LINE_FULL);
      ltx.update(lineEntry);
    }

    // Debit the source.
    if (asset.type === 0) {
      const srcEntry = loadAccount(ltx, ctx.source);
      if (!srcEntry) return result(PAYMENT_MALFORMED);
      const src = accountOf(srcEntry);
      if (amount > availableBalance(ledger, src)) return result(PAYMENT_UNDERFUNDED);
      if (!addAccountBalance(ledger, src, -amount)) throw new Error('Payment: debit failed after balance check');
      ltx.update(srcEntry);
    } else if (!isIssuer(ctx.source, asset)) {
      const lineEntry = loadTrustLine(ltx, ctx.source, asset);
      if (!lineEntry) return result(PAYMENT_SRC_NO_TRUST);
      const line = trustLineOf(lineEntry);
      if (!isAuthorized(line)) return result(PAYMENT_SRC_NOT_AUTHORIZED);
      if (!addTrustLineBalance(line, -amount)) return result(PAYMENT_UNDERFUNDED);
      ltx.update(lineEntry);
    }

    emit();
    return result(PAYMENT_SUCCESS);
  },
};
