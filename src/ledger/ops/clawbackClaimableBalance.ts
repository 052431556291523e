// ClawbackClaimableBalance (CAP-35): the issuer of a clawback-enabled claimable balance's asset
// takes the whole balance back, burning it. The entry goes away and its reserve returns to its
// sponsor, exactly as when it is claimed.
import type { xdr } from '../../xdr/xdr.ts';
import { isIssuer } from '../assets.ts';
import { claimableBalanceAddress, clawbackEvent } from '../sacEvents.ts';
import { claimableBalanceKey, claimableBalanceOf, isClawbackEnabledOnClaimableBalance, loadClaimableBalance } from '../claimableBalances.ts';
import { removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { loadAccountOrThrow } from './accounts.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 20 }>;
type Code = xdr.ClawbackClaimableBalanceResultWire['code'];

export const CLAWBACK_CLAIMABLE_BALANCE_SUCCESS = 0;
export const CLAWBACK_CLAIMABLE_BALANCE_DOES_NOT_EXIST = -1;
export const CLAWBACK_CLAIMABLE_BALANCE_NOT_ISSUER = -2;
export const CLAWBACK_CLAIMABLE_BALANCE_NOT_CLAWBACK_ENABLED = -3;

const result = resultMaker<Code>(20, 'clawbackClaimableBalanceResult');

export const clawbackClaimableBalance: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid: () => null,

  apply(body, ctx) {
    const { balanceId } = body.clawbackClaimableBalanceOp;
    const { ltx, ledger } = ctx;
    const cbEntry = loadClaimableBalance(ltx, balanceId);
    if (!cbEntry) return result(CLAWBACK_CLAIMABLE_BALANCE_DOES_NOT_EXIST);
    const cb = claimableBalanceOf(cbEntry);
    // native has no issuer, so no one may claw it back
    if (!isIssuer(ctx.source, cb.asset)) return result(CLAWBACK_CLAIMABLE_BALANCE_NOT_ISSUER);
    if (!isClawbackEnabledOnClaimableBalance(cb)) return result(CLAWBACK_CLAIMABLE_BALANCE_NOT_CLAWBACK_ENABLED);

    // As in core, the issuer's account is loaded (and so written) to release the reserve, which it
    // holds itself only if it created the balance.
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    removeEntryWithPossibleSponsorship(ltx, cbEntry, sourceEntry);
    ltx.update(sourceEntry);
    ltx.erase(claimableBalanceKey(balanceId));

    ctx.events.push(clawbackEvent(ledger.networkId, cb.asset, claimableBalanceAddress(balanceId), cb.amount));
    return result(CLAWBACK_CLAIMABLE_BALANCE_SUCCESS);
  },
};
