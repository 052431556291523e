// SetTrustLineFlags: the issuer sets and clears flags on a holder's trustline (protocol 17+).
// Revoking authorization (dropping below AUTHORIZED_TO_MAINTAIN_LIABILITIES) would also pull the
// holder's offers and redeem its pool shares in that asset into claimable balances (CAP-38); this
// engine has no offers and does not redeem pool shares yet (a withdrawal into the revoked line then
// fails as LINE_FULL, see liquidityPoolWithdraw.ts).
import type { xdr } from '@stellar/stellar-sdk';
import { trustLineKey } from '../../xdr/codec.ts';
import { setAuthorizedEvent } from '../sacEvents.ts';
import { AUTH_REVOCABLE_FLAG, AUTHORIZED_FLAG, MASK_TRUSTLINE_FLAGS_V17, TRUSTLINE_AUTH_FLAGS, TRUSTLINE_CLAWBACK_ENABLED_FLAG, accountIdEquals, accountOf, loadAccountOrThrow, trustLineFlagsValid, trustLineOf } from './accounts.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { resultMaker } from './opResult.ts';
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
    const entry = ltx.load(key);
    if (!entry) return result(SET_TRUST_LINE_FLAGS_NO_TRUST_LINE);
    const tl = trustLineOf(entry);
    const flags = (tl.flags & ~clearFlags) | setFlags;
    if ((flags & TRUSTLINE_AUTH_FLAGS) === TRUSTLINE_AUTH_FLAGS) return result(SET_TRUST_LINE_FLAGS_INVALID_STATE);

    ctx.events.push(setAuthorizedEvent(ledger.networkId, asset, trustor, (flags & AUTHORIZED_FLAG) !== 0));
    tl.flags = flags;
    ltx.update(entry);
    return result(SET_TRUST_LINE_FLAGS_SUCCESS);
  },
};
