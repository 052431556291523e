// CreatePassiveSellOffer: a new sell offer that does not take offers at exactly its own price, so
// two passive offers at the same price can rest against each other (market makers' spreads).
import type { xdr } from '../../xdr/xdr.ts';
import { manageOfferHandler } from './manageOffer.ts';
import { sellOfferRequest } from './manageSellOffer.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 4 }>;

export const createPassiveSellOffer = manageOfferHandler<Body>({
  type: 4,
  arm: 'createPassiveSellOfferResult',
  request: (body) => sellOfferRequest(body.createPassiveSellOfferOp, 0n, true),
});
