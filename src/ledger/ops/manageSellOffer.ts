// ManageSellOffer: create, update or delete an offer to sell `amount` of `selling` at `price`
// (buying per selling). The shared mechanics are in manageOffer.ts.
import type { xdr } from '../../xdr/xdr.ts';
import { offerLiabilities } from '../exchange/exchangeMath.ts';
import { manageOfferHandler, type OfferRequest } from './manageOffer.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 3 }>;

/** A sell offer of `amount` sheep: its own amount caps what it sends. */
export function sellOfferRequest(op: { selling: xdr.AssetWire; buying: xdr.AssetWire; amount: bigint; price: xdr.PriceWire },
  offerId: bigint, passiveOnCreate: boolean): OfferRequest {
  return {
    sheep: op.selling, wheat: op.buying, offerId, price: op.price, passiveOnCreate, amount: op.amount,
    liabilities: () => offerLiabilities(op.price, op.amount),
    limit: (maxSheepSend, sheepSent, maxWheatReceive) => {
      const left = op.amount - sheepSent;
      return { maxSheepSend: left < maxSheepSend ? left : maxSheepSend, maxWheatReceive };
    },
  };
}

export const manageSellOffer = manageOfferHandler<Body>({
  type: 3,
  arm: 'manageSellOfferResult',
  request: (body) => sellOfferRequest(body.manageSellOfferOp, body.manageSellOfferOp.offerId, false),
});
