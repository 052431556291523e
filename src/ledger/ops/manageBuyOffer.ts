// ManageBuyOffer: an offer stated as `buyAmount` of `buying` at `price` (selling per buying). It
// rests in the book as a sell offer at the inverse price; its buy amount caps what it receives.
import type { xdr } from '../../xdr/xdr.ts';
import { exchangeWithoutPriceErrorThresholds, Rounding } from '../exchange/exchangeMath.ts';
import { INT64_MAX } from '../numeric.ts';
import { manageOfferHandler } from './manageOffer.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 12 }>;

export const manageBuyOffer = manageOfferHandler<Body>({
  type: 12,
  arm: 'manageBuyOfferResult',
  request: (body) => {
    const op = body.manageBuyOfferOp;
    const price = { n: op.price.d, d: op.price.n };
    return {
      sheep: op.selling, wheat: op.buying, offerId: op.offerId, price, passiveOnCreate: false, amount: op.buyAmount,
      liabilities: () => {
        const r = exchangeWithoutPriceErrorThresholds(price, INT64_MAX, INT64_MAX, INT64_MAX, op.buyAmount, Rounding.NORMAL);
        return { buying: r.sheepSend, selling: r.wheatReceived };
      },
      limit: (maxSheepSend, _sheepSent, maxWheatReceive, wheatReceived) => {
        const left = op.buyAmount - wheatReceived;
        return { maxSheepSend, maxWheatReceive: left < maxWheatReceive ? left : maxWheatReceive };
      },
    };
  },
});
