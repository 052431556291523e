// PathPaymentStrictSend: the sender pays exactly `sendAmount` of `sendAsset`; the path is converted
// forwards from it, and the destination receives what that buys, at least `destMin`.
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

type Body = Extract<xdr.OperationBodyWire, { type: 13 }>;

const result = resultMaker<number>(13, 'pathPaymentStrictSendResult');

export const pathPaymentStrictSend: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const op = body.pathPaymentStrictSendOp;
    return pathRequestInvalid(op, [op.sendAmount, op.destMin]) ? result(PATH_MALFORMED) : null;
  },

  apply(body, ctx) {
    const op = body.pathPaymentStrictSendOp;
    const bypass = bypassesIssuerCheck(op);
    if (!bypass && !destinationExists(ctx.ltx, op)) return result(PATH_NO_DESTINATION);
    const debited = debitSource(ctx, op.sendAsset, op.sendAmount);
    if (debited !== null) return result(debited);

    const offers: ClaimAtom[] = [];
    let sendAsset = op.sendAsset;
    let maxAmountSend = op.sendAmount;
    const budget = { remaining: MAX_OFFERS_TO_CROSS };
    for (const recvAsset of [...op.path, op.destAsset]) {
      if (assetEquals(recvAsset, sendAsset)) continue;
      const hop = convertHop(ctx, sendAsset, maxAmountSend, recvAsset, INT64_MAX, Rounding.PATH_PAYMENT_STRICT_SEND,
        budget, 'send', result, () => result(PATH_MALFORMED).tr);
      if (!isHop(hop)) return hop;
      maxAmountSend = hop.amountRecv;
      sendAsset = recvAsset;
      offers.push(...hop.trail);
    }

    if (maxAmountSend < op.destMin) return result(PATH_CONSTRAINT_NOT_MET);
    const credited = creditDestination(ctx, op, maxAmountSend);
    if (credited !== null) return result(credited);

    emitPathPaymentEvents(ctx, op, offers, maxAmountSend);
    return result(PATH_SUCCESS, { success: { offers, last: lastPayment(op, maxAmountSend) } });
  },
};
