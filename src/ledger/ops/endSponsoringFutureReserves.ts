// EndSponsoringFutureReserves: the source (a sponsored account) ends the sponsorship of its future
// reserves that BeginSponsoringFutureReserves opened earlier in the transaction.
import type { xdr } from '../../xdr/xdr.ts';
import { activeSponsorOf, closeSponsorship } from '../futureReserves.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 17 }>;
type Code = xdr.EndSponsoringFutureReservesResultWire['code'];

export const END_SPONSORING_FUTURE_RESERVES_SUCCESS = 0;
export const END_SPONSORING_FUTURE_RESERVES_NOT_SPONSORED = -1;

const result = resultMaker<Code>(17, 'endSponsoringFutureReservesResult');

export const endSponsoringFutureReserves: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid: () => null,

  apply(_body, ctx) {
    if (!activeSponsorOf(ctx.ltx, ctx.source)) return result(END_SPONSORING_FUTURE_RESERVES_NOT_SPONSORED);
    closeSponsorship(ctx.ltx, ctx.source);
    return result(END_SPONSORING_FUTURE_RESERVES_SUCCESS);
  },
};
