// PathPaymentStrictReceive: the destination receives exactly `destAmount` of `destAsset`; the path
// is converted backwards from it, and the sender pays what that costs, at most `sendMax`.
import type { xdr } from '../../xdr/xdr.ts';
import type { OpHandler } from './types.ts';
import { Rounding } from '../exchange/exchangeMath.ts';
import { INT64_MAX } from '../numeric.ts';
import { MAX_OFFERS_TO_CROSS } from '../exchange/convert.ts';
import { assetEquals } from '../assets.ts';
import type { ClaimAtom } from '../exchange/crossOffers.ts';
import { resultMaker } from './opResult.ts';
import {
  PATH_CONSTRAINT_NOT_MET, PATH_MALFORMED, PATH_NO_DESTINATION, PATH_SUCCESS, bypassesIssuerCheck, convertHop,
  creditDestination, debitSource, destinationExists, emitPathPaymentEvents, isHop, lastPayment, pathRequestInvalid,
} from './pathPayment.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 2 }>;

const result = resultMaker<number>(2, 'pathPaymentStrictReceiveResult');

export const pathPaymentStrictReceive: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const op = body.pathPaymentStrictReceiveOp;
    return pathRequestInvalid(op, [op.destAmount, op.sendMax]) ? result(PATH_MALFORMED) : null;
  },

  apply(body, ctx) {
    const op = body.pathPaymentStrictReceiveOp;
    const bypass = bypassesIssuerCheck(op);
    if (!bypass && !destinationExists(ctx.ltx, op)) return result(PATH_NO_DESTINATION);
    const credited = creditDestination(ctx, op, op.destAmount);
    if (credited !== null) return result(credited);

    let offers: ClaimAtom[] = [];
    let recvAsset = op.destAsset;
    let maxAmountRecv = op.destAmount;
    const budget = { remaining: MAX_OFFERS_TO_CROSS };
    for (const sendAsset of [...op.path].reverse().concat([op.sendAsset])) {
      if (assetEquals(recvAsset, sendAsset)) continue;
      const hop = convertHop(ctx, sendAsset, INT64_MAX, recvAsset, maxAmountRecv, Rounding.PATH_PAYMENT_STRICT_RECEIVE,
        budget, 'receive', result, () => result(PATH_MALFORMED).tr);
      if (!isHop(hop)) return hop;
      maxAmountRecv = hop.amountSend;
      recvAsset = sendAsset;
      offers = [...hop.trail, ...offers];
    }

    if (maxAmountRecv > op.sendMax) return result(PATH_CONSTRAINT_NOT_MET);
    const debited = debitSource(ctx, op.sendAsset, maxAmountRecv);
    if (debited !== null) return result(debited);

    emitPathPaymentEvents(ctx, op, offers, op.destAmount);
    return result(PATH_SUCCESS, { success: { offers, last: lastPayment(op, op.destAmount) } });
  },
};
