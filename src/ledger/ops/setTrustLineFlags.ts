// SetTrustLineFlags: the issuer sets and clears flags on a holder's trustline (protocol 17+).
// Revoking authorization (dropping below AUTHORIZED_TO_MAINTAIN_LIABILITIES) also pulls the holder's
// offers in that asset and redeems its pool shares in pools holding it (revocation.ts).
import type { xdr } from '../../xdr/xdr.ts';
import { trustLineKey } from '../../xdr/codec.ts';
import { setAuthorizedEvent } from '../sacEvents.ts';
import { AUTH_REVOCABLE_FLAG, AUTHORIZED_FLAG, MASK_TRUSTLINE_FLAGS_V17, TRUSTLINE_AUTH_FLAGS, TRUSTLINE_CLAWBACK_ENABLED_FLAG, accountIdEquals, accountOf, loadAccountOrThrow, isAuthorizedToMaintainLiabilities, trustLineFlagsValid, trustLineOf } from './accounts.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { OP_TOO_MANY_SPONSORING, failOp, resultMaker } from './opResult.ts';
import { removeOffersAndPoolShares } from '../revocation.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 21 }>;
type Code = xdr.SetTrustLineFlagsResultWire['code'];

export const SET_TRUST_LINE_FLAGS_SUCCESS = 0;
export const SET_TRUST_LINE_FLAGS_MALFORMED = -1;
export const SET_TRUST_LINE_FLAGS_NO_TRUST_LINE = -2;
export const SET_TRUST_LINE_FLAGS_CANT_REVOKE = -3;
export const SET_TRUST_LINE_FLAGS_INVALID_STATE = -4;
export const SET_TRUST_LINE_FLAGS_LOW_RESERVE = -5;

const result = resultMaker<Code>(21, 'setTrustLineFlagsResult');

export const setTrustLineFlags: OpHandler<Body> = {
  threshold: () => 'low',

  checkValid(body, ctx) {
    const { trustor, asset, clearFlags, setFlags } = body.setTrustLineFlagsOp;
    if (asset.type === 0 || !isAssetValid(asset)) return result(SET_TRUST_LINE_FLAGS_MALFORMED);
    if (!isIssuer(ctx.source, asset)) return result(SET_TRUST_LINE_FLAGS_MALFORMED);
    if (accountIdEquals(trustor, ctx.source)) return result(SET_TRUST_LINE_FLAGS_MALFORMED);
    if ((setFlags & clearFlags) !== 0) return result(SET_TRUST_LINE_FLAGS_MALFORMED);
    // Clawback can only be cleared, never set, on a trustline.
    if (!trustLineFlagsValid(setFlags) || (setFlags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) !== 0) return result(SET_TRUST_LINE_FLAGS_MALFORMED);
    if ((clearFlags & ~MASK_TRUSTLINE_FLAGS_V17) !== 0) return result(SET_TRUST_LINE_FLAGS_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { trustor, asset, clearFlags, setFlags } = body.setTrustLineFlagsOp;
    const { ltx, ledger } = ctx;
    if (asset.type === 0) throw new Error('SetTrustLineFlags on the native asset');

    // Without AUTH_REVOCABLE the issuer may not take away any authorization it granted.
    const issuer = accountOf(loadAccountOrThrow(ltx, ctx.source));
    if ((issuer.flags & AUTH_REVOCABLE_FLAG) === 0) {
      const clearingAnyAuth = (clearFlags & TRUSTLINE_AUTH_FLAGS) !== 0;
      const settingAuthorized = (setFlags & AUTHORIZED_FLAG) !== 0;
      if (clearingAnyAuth && !settingAuthorized) return result(SET_TRUST_LINE_FLAGS_CANT_REVOKE);
    }

    const key = trustLineKey(trustor, asset);
    const before = ltx.load(key);
    if (!before) return result(SET_TRUST_LINE_FLAGS_NO_TRUST_LINE);
    const flags = (trustLineOf(before).flags & ~clearFlags) | setFlags;
    if ((flags & TRUSTLINE_AUTH_FLAGS) === TRUSTLINE_AUTH_FLAGS) return result(SET_TRUST_LINE_FLAGS_INVALID_STATE);

    if (isAuthorizedToMaintainLiabilities(trustLineOf(before)) && (flags & TRUSTLINE_AUTH_FLAGS) === 0) {
      const removed = removeOffersAndPoolShares(ltx, ledger, trustor, asset, ctx);
      if (removed === 'lowReserve') return result(SET_TRUST_LINE_FLAGS_LOW_RESERVE);
      if (removed === 'tooManySponsoring') return failOp(OP_TOO_MANY_SPONSORING, result(SET_TRUST_LINE_FLAGS_LOW_RESERVE).tr);
    }

    ctx.events.push(setAuthorizedEvent(ledger.networkId, asset, trustor, (flags & AUTHORIZED_FLAG) !== 0));
    // removing offers released liabilities on this very line: take it as it is now
    const entry = ltx.load(key)!;
    trustLineOf(entry).flags = flags;
    ltx.update(entry);
    return result(SET_TRUST_LINE_FLAGS_SUCCESS);
  },
};
