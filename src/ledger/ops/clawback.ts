// Clawback (CAP-35): the issuer takes `amount` of its asset back from a holder's trustline and burns
// it. Only lines that carry TRUSTLINE_CLAWBACK_ENABLED (set from the issuer's AUTH_CLAWBACK_ENABLED
// when the line was created) can be clawed back, authorized or not; the line's selling liabilities
// (what its offers have committed) stay out of reach.
import type { xdr } from '../../xdr/xdr.ts';
import { bytesEqual, muxedToAccountId } from '../../xdr/codec.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { clawbackEvent, muxedAccountAddress } from '../sacEvents.ts';
import { TRUSTLINE_CLAWBACK_ENABLED_FLAG, addTrustLineBalanceSkipAuthorization, loadTrustLine, trustLineOf } from './accounts.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 19 }>;
type Code = xdr.ClawbackResultWire['code'];

export const CLAWBACK_SUCCESS = 0;
export const CLAWBACK_MALFORMED = -1;
export const CLAWBACK_NOT_CLAWBACK_ENABLED = -2;
export const CLAWBACK_NO_TRUST = -3;
export const CLAWBACK_UNDERFUNDED = -4;

const result = resultMaker<Code>(19, 'clawbackResult');

export const clawback: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body, ctx) {
    const { asset, from, amount } = body.clawbackOp;
    // Core compares `from` with the source as MuxedAccounts: only the plain form of the issuer's own
    // key is MALFORMED here; a muxed form of it gets as far as apply, where it has no trustline.
    if (from.type === 0 && bytesEqual(from.ed25519, ctx.source.ed25519)) return result(CLAWBACK_MALFORMED);
    if (amount < 1n) return result(CLAWBACK_MALFORMED);
    if (asset.type === 0 || !isAssetValid(asset)) return result(CLAWBACK_MALFORMED);
    if (!isIssuer(ctx.source, asset)) return result(CLAWBACK_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { asset, from, amount } = body.clawbackOp;
    const { ltx, ledger } = ctx;
    const lineEntry = loadTrustLine(ltx, muxedToAccountId(from), asset);
    if (!lineEntry) return result(CLAWBACK_NO_TRUST);
    const line = trustLineOf(lineEntry);
    if ((line.flags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) === 0) return result(CLAWBACK_NOT_CLAWBACK_ENABLED);
    if (!addTrustLineBalanceSkipAuthorization(line, -amount)) return result(CLAWBACK_UNDERFUNDED);
    ltx.update(lineEntry);

    ctx.events.push(clawbackEvent(ledger.networkId, asset, muxedAccountAddress(from), amount));
    return result(CLAWBACK_SUCCESS);
  },
};
