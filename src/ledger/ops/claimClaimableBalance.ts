// ClaimClaimableBalance (CAP-23): a claimant whose predicate holds at this ledger's close time takes
// the whole balance. The entry goes away and its reserve returns to whoever sponsored it. The issuer
// claiming a balance of its own asset burns it (no trustline needed, nothing credited).
import type { xdr } from '../../xdr/xdr.ts';
import { isIssuer } from '../assets.ts';
import { claimableBalanceAddress, movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { isPredicateSatisfied } from '../claimPredicates.ts';
import { claimableBalanceKey, claimableBalanceOf, loadClaimableBalance } from '../claimableBalances.ts';
import { removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import {
  accountIdEquals, accountOf, addAccountBalance, addTrustLineBalance, isAuthorized, loadAccountOrThrow, loadTrustLine, trustLineOf,
} from './accounts.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 15 }>;
type Code = xdr.ClaimClaimableBalanceResultWire['code'];

export const CLAIM_CLAIMABLE_BALANCE_SUCCESS = 0;
export const CLAIM_CLAIMABLE_BALANCE_DOES_NOT_EXIST = -1;
export const CLAIM_CLAIMABLE_BALANCE_CANNOT_CLAIM = -2;
export const CLAIM_CLAIMABLE_BALANCE_LINE_FULL = -3;
export const CLAIM_CLAIMABLE_BALANCE_NO_TRUST = -4;
export const CLAIM_CLAIMABLE_BALANCE_NOT_AUTHORIZED = -5;
// CLAIM_CLAIMABLE_BALANCE_TRUSTLINE_FROZEN (-6) answers only for keys the network configuration
// freezes (CAP-77); this network freezes none.

const result = resultMaker<Code>(15, 'claimClaimableBalanceResult');

export const claimClaimableBalance: OpHandler<Body> = {
  threshold: () => 'low',

  checkValid: () => null,

  apply(body, ctx) {
    const { balanceId } = body.claimClaimableBalanceOp;
    const { ltx, ledger } = ctx;
    const cbEntry = loadClaimableBalance(ltx, balanceId);
    if (!cbEntry) return result(CLAIM_CLAIMABLE_BALANCE_DOES_NOT_EXIST);
    const cb = claimableBalanceOf(cbEntry);

    const claimant = cb.claimants.find((c) => accountIdEquals(c.v0.destination, ctx.source));
    if (!claimant || !isPredicateSatisfied(claimant.v0.predicate, ledger.closeTime)) {
      return result(CLAIM_CLAIMABLE_BALANCE_CANNOT_CLAIM);
    }

    const { asset, amount } = cb;
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    if (asset.type === 0) {
      if (!addAccountBalance(ledger, accountOf(sourceEntry), amount)) return result(CLAIM_CLAIMABLE_BALANCE_LINE_FULL);
    } else if (!isIssuer(ctx.source, asset)) {
      const lineEntry = loadTrustLine(ltx, ctx.source, asset);
      if (!lineEntry) return result(CLAIM_CLAIMABLE_BALANCE_NO_TRUST);
      const line = trustLineOf(lineEntry);
      if (!isAuthorized(line)) return result(CLAIM_CLAIMABLE_BALANCE_NOT_AUTHORIZED);
      if (!addTrustLineBalance(line, amount)) return result(CLAIM_CLAIMABLE_BALANCE_LINE_FULL);
      ltx.update(lineEntry);
    }

    // The sponsor's reserve is released; the claimant itself may be that sponsor. Core loads the
    // claimant's account for this whatever the asset, so it is written (and appears in the meta)
    // even when a credit claim leaves it unchanged.
    removeEntryWithPossibleSponsorship(ltx, cbEntry, sourceEntry);
    ltx.update(sourceEntry);
    ltx.erase(claimableBalanceKey(balanceId));

    ctx.events.push(movementEvent(ledger.networkId, asset, claimableBalanceAddress(balanceId),
      muxedAccountAddress(ctx.sourceMuxed), amount, ctx.txMemo));
    return result(CLAIM_CLAIMABLE_BALANCE_SUCCESS);
  },
};
