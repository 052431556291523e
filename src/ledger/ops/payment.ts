// Payment: moves `amount` of one asset from the source to the destination. Like stellar-core, it is a
// strict-receive path payment without a path (same asset both ends, sendMax = amount), whose result
// codes it shares number for number; only native to oneself succeeds at once, changing nothing.
// An issuer needs no trustline for its own asset (it mints when sending and burns when receiving),
// and a payment back to the issuer does not even require the issuer account to exist.
import type { xdr } from '../../xdr/xdr.ts';
import { muxedToAccountId } from '../../xdr/codec.ts';
import { movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { accountIdEquals } from './accounts.ts';
import { isAssetValid } from '../assets.ts';
import { resultMaker } from './opResult.ts';
import { pathPaymentStrictReceive } from './pathPaymentStrictReceive.ts';
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
/** The lowest code a path payment without a path can answer; the rest (offers, constraints) cannot happen. */
const PAYMENT_NO_ISSUER = -9;

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
    if (asset.type === 0 && accountIdEquals(muxedToAccountId(destination), ctx.source)) {
      ctx.events.push(movementEvent(ctx.ledger.networkId, asset, muxedAccountAddress(ctx.sourceMuxed),
        muxedAccountAddress(destination), amount, ctx.txMemo));
      return result(PAYMENT_SUCCESS);
    }
    const asPath: Extract<xdr.OperationBodyWire, { type: 2 }> = {
      type: 2,
      pathPaymentStrictReceiveOp: { sendAsset: asset, sendMax: amount, destination, destAsset: asset, destAmount: amount, path: [] },
    };
    const outcome = pathPaymentStrictReceive.apply(asPath, ctx);
    const code = (outcome.tr as Extract<xdr.OperationResultTrWire, { type: 2 }>).pathPaymentStrictReceiveResult.code;
    if (code > PAYMENT_SUCCESS || code < PAYMENT_NO_ISSUER) throw new Error(`unexpected path payment result ${code} for a payment`);
    return result(code as Code);
  },
};
