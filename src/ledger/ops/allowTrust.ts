// AllowTrust (superseded by SetTrustLineFlags but still valid): the issuer sets the authorization
// level (0, AUTHORIZED or AUTHORIZED_TO_MAINTAIN_LIABILITIES) of a holder's trustline to one of its
// own asset codes. As with SetTrustLineFlags, revoking pulls the holder's offers in the asset and
// redeems its pool shares.
import type { xdr } from '../../xdr/xdr.ts';
import { trustLineKey, type Asset } from '../../xdr/codec.ts';
import { setAuthorizedEvent } from '../sacEvents.ts';
import { AUTH_REVOCABLE_FLAG, AUTHORIZED_FLAG, AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG, TRUSTLINE_AUTH_FLAGS, accountIdEquals, accountOf, isAuthorized, isAuthorizedToMaintainLiabilities, loadAccountOrThrow, trustLineFlagsValid, trustLineOf } from './accounts.ts';
import { isAssetValid } from '../assets.ts';
import { OP_TOO_MANY_SPONSORING, failOp, resultMaker } from './opResult.ts';
import { removeOffersAndPoolShares } from '../revocation.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 7 }>;
type Code = xdr.AllowTrustResultWire['code'];

export const ALLOW_TRUST_SUCCESS = 0;
export const ALLOW_TRUST_MALFORMED = -1;
export const ALLOW_TRUST_NO_TRUST_LINE = -2;
export const ALLOW_TRUST_TRUST_NOT_REQUIRED = -3;
export const ALLOW_TRUST_CANT_REVOKE = -4;
export const ALLOW_TRUST_SELF_NOT_ALLOWED = -5;
export const ALLOW_TRUST_LOW_RESERVE = -6;

const result = resultMaker<Code>(7, 'allowTrustResult');

/** The asset named by an AllowTrust: the code, issued by the operation source. */
function assetOf(body: Body, issuer: xdr.PublicKeyWire): Asset {
  const code = body.allowTrustOp.asset;
  return code.type === 1
    ? { type: 1, alphaNum4: { assetCode: code.assetCode4, issuer } }
    : { type: 2, alphaNum12: { assetCode: code.assetCode12, issuer } };
}

export const allowTrust: OpHandler<Body> = {
  threshold: () => 'low',

  checkValid(body, ctx) {
    const { trustor, authorize } = body.allowTrustOp;
    if (authorize > AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG || !trustLineFlagsValid(authorize)) return result(ALLOW_TRUST_MALFORMED);
    if (!isAssetValid(assetOf(body, ctx.source))) return result(ALLOW_TRUST_MALFORMED);
    if (accountIdEquals(trustor, ctx.source)) return result(ALLOW_TRUST_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { trustor, authorize } = body.allowTrustOp;
    const { ltx, ledger } = ctx;
    if (accountIdEquals(trustor, ctx.source)) return result(ALLOW_TRUST_SELF_NOT_ALLOWED);

    const issuer = accountOf(loadAccountOrThrow(ltx, ctx.source));
    const revocable = (issuer.flags & AUTH_REVOCABLE_FLAG) !== 0;
    if (!revocable && authorize === 0) return result(ALLOW_TRUST_CANT_REVOKE);

    const asset = assetOf(body, ctx.source);
    const key = trustLineKey(trustor, asset);
    const entry = ltx.load(key);
    if (!entry) return result(ALLOW_TRUST_NO_TRUST_LINE);
    const tl = trustLineOf(entry);
    const flags = (tl.flags & ~TRUSTLINE_AUTH_FLAGS) | authorize;
    // Without AUTH_REVOCABLE, a fully authorized line cannot be stepped down to maintain-liabilities.
    if (!revocable && isAuthorized(tl) && (flags & AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG) !== 0) {
      return result(ALLOW_TRUST_CANT_REVOKE);
    }

    if (isAuthorizedToMaintainLiabilities(tl) && (flags & TRUSTLINE_AUTH_FLAGS) === 0) {
      const removed = removeOffersAndPoolShares(ltx, ledger, trustor, asset, ctx);
      if (removed === 'lowReserve') return result(ALLOW_TRUST_LOW_RESERVE);
      if (removed === 'tooManySponsoring') return failOp(OP_TOO_MANY_SPONSORING, result(ALLOW_TRUST_LOW_RESERVE).tr);
    }

    ctx.events.push(setAuthorizedEvent(ledger.networkId, asset, trustor, (flags & AUTHORIZED_FLAG) !== 0));
    // removing offers released liabilities on this very line: take it as it is now
    const current = ltx.load(key)!;
    trustLineOf(current).flags = flags;
    ltx.update(current);
    return result(ALLOW_TRUST_SUCCESS);
  },
};
