// BeginSponsoringFutureReserves: the source pays the reserves of whatever `sponsoredId` creates until
// `sponsoredId` ends the sponsorship (EndSponsoringFutureReserves), which must happen within the same
// transaction (txBAD_SPONSORSHIP otherwise, see closeLedger.ts).
import type { xdr } from '../../xdr/xdr.ts';
import { accountIdEquals } from './accounts.ts';
import { activeSponsorOf, openSponsorship, openSponsorshipCount } from '../futureReserves.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 16 }>;
type Code = xdr.BeginSponsoringFutureReservesResultWire['code'];

export const BEGIN_SPONSORING_FUTURE_RESERVES_SUCCESS = 0;
export const BEGIN_SPONSORING_FUTURE_RESERVES_MALFORMED = -1;
export const BEGIN_SPONSORING_FUTURE_RESERVES_ALREADY_SPONSORED = -2;
export const BEGIN_SPONSORING_FUTURE_RESERVES_RECURSIVE = -3;

const result = resultMaker<Code>(16, 'beginSponsoringFutureReservesResult');

export const beginSponsoringFutureReserves: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body, ctx) {
    const sponsored = body.beginSponsoringFutureReservesOp.sponsoredId;
    return accountIdEquals(sponsored, ctx.source) ? result(BEGIN_SPONSORING_FUTURE_RESERVES_MALFORMED) : null;
  },

  apply(body, ctx) {
    const sponsored = body.beginSponsoringFutureReservesOp.sponsoredId;
    const { ltx } = ctx;
    if (activeSponsorOf(ltx, sponsored)) return result(BEGIN_SPONSORING_FUTURE_RESERVES_ALREADY_SPONSORED);
    // no chains: a sponsored account may not sponsor, and a sponsoring account may not be sponsored
    if (activeSponsorOf(ltx, ctx.source)) return result(BEGIN_SPONSORING_FUTURE_RESERVES_RECURSIVE);
    if (openSponsorshipCount(ltx, sponsored) !== undefined) return result(BEGIN_SPONSORING_FUTURE_RESERVES_RECURSIVE);
    openSponsorship(ltx, ctx.source, sponsored);
    return result(BEGIN_SPONSORING_FUTURE_RESERVES_SUCCESS);
  },
};
