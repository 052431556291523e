// CreateClaimableBalance (CAP-23): moves `amount` of an asset out of the source into a new
// claimable balance entry that up to ten claimants may later claim, each under its own predicate.
// The entry is no one's sub-entry: its reserve (one base reserve per claimant) is sponsored by the
// creator, or by whoever sponsors the creator's future reserves. An issuer creating a balance of its
// own asset mints it (no trustline, nothing debited). A balance of a clawback-enabled line (or an
// issuer with AUTH_CLAWBACK_ENABLED) is itself clawback-enabled (CAP-35).
import type { xdr } from '../../xdr/xdr.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { claimableBalanceAddress, movementEvent, muxedAccountAddress } from '../sacEvents.ts';
import { isPredicateValid, toAbsolutePredicate } from '../claimPredicates.ts';
import { claimableBalanceEntry, claimableBalanceIdOf } from '../claimableBalances.ts';
import { createEntryWithPossibleSponsorship } from '../sponsorship.ts';
import {
  AUTH_CLAWBACK_ENABLED_FLAG, TRUSTLINE_CLAWBACK_ENABLED_FLAG, accountOf, addAccountBalance, addTrustLineBalance,
  availableBalance, isAuthorized, loadAccountOrThrow, loadTrustLine, trustLineOf,
} from './accounts.ts';
import { OP_TOO_MANY_SPONSORING, failOp, resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 14 }>;
type Code = xdr.CreateClaimableBalanceResultWire['code'];

export const CREATE_CLAIMABLE_BALANCE_SUCCESS = 0;
export const CREATE_CLAIMABLE_BALANCE_MALFORMED = -1;
export const CREATE_CLAIMABLE_BALANCE_LOW_RESERVE = -2;
export const CREATE_CLAIMABLE_BALANCE_NO_TRUST = -3;
export const CREATE_CLAIMABLE_BALANCE_NOT_AUTHORIZED = -4;
export const CREATE_CLAIMABLE_BALANCE_UNDERFUNDED = -5;

/** The XDR bound on claimants (Claimant claimants<10>). */
export const MAX_CLAIMANTS = 10;

const result = resultMaker<Code>(14, 'createClaimableBalanceResult');

export const createClaimableBalance: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const { asset, amount, claimants } = body.createClaimableBalanceOp;
    // More than ten claimants cannot be decoded from XDR; a wire object built in memory still gets MALFORMED.
    if (!isAssetValid(asset) || amount <= 0n || claimants.length === 0 || claimants.length > MAX_CLAIMANTS) {
      return result(CREATE_CLAIMABLE_BALANCE_MALFORMED);
    }
    const destinations = new Set<string>();
    for (const c of claimants) {
      const dest = Buffer.from(c.v0.destination.ed25519).toString('hex');
      if (destinations.has(dest)) return result(CREATE_CLAIMABLE_BALANCE_MALFORMED);
      destinations.add(dest);
    }
    if (!claimants.every((c) => isPredicateValid(c.v0.predicate))) return result(CREATE_CLAIMABLE_BALANCE_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { asset, amount, claimants } = body.createClaimableBalanceOp;
    const { ltx, ledger } = ctx;
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const source = accountOf(sourceEntry);

    // Take the amount from the source.
    let clawbackEnabled = false;
    if (asset.type === 0) {
      if (availableBalance(ledger, source) < amount) return result(CREATE_CLAIMABLE_BALANCE_UNDERFUNDED);
      if (!addAccountBalance(ledger, source, -amount)) throw new Error('CreateClaimableBalance: debit failed after balance check');
    } else if (isIssuer(ctx.source, asset)) {
      clawbackEnabled = (source.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0;
    } else {
      const lineEntry = loadTrustLine(ltx, ctx.source, asset);
      if (!lineEntry) return result(CREATE_CLAIMABLE_BALANCE_NO_TRUST);
      const line = trustLineOf(lineEntry);
      if (!isAuthorized(line)) return result(CREATE_CLAIMABLE_BALANCE_NOT_AUTHORIZED);
      if (!addTrustLineBalance(line, -amount)) return result(CREATE_CLAIMABLE_BALANCE_UNDERFUNDED);
      ltx.update(lineEntry);
      clawbackEnabled = (line.flags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) !== 0;
    }

    const balanceId = claimableBalanceIdOf(ctx.txSourceId, ctx.txSeqNum, ctx.opIndex);
    const absolute = claimants.map((c): xdr.ClaimantWire => ({
      type: 0,
      v0: { destination: c.v0.destination, predicate: toAbsolutePredicate(c.v0.predicate, ledger.closeTime) },
    }));
    const entry = claimableBalanceEntry(ledger.ledgerSeq, balanceId, absolute, asset, amount, clawbackEnabled);

    // The reserve, checked against the source's balance after the debit.
    switch (createEntryWithPossibleSponsorship(ltx, ledger, entry, sourceEntry)) {
      case 'ok': break;
      case 'lowReserve': return result(CREATE_CLAIMABLE_BALANCE_LOW_RESERVE);
      case 'tooManySponsoring': return failOp(OP_TOO_MANY_SPONSORING, result(CREATE_CLAIMABLE_BALANCE_MALFORMED).tr);
      // no sponsored account and no sub-entry is involved: neither can happen (core throws as well)
      case 'tooManySponsored': case 'tooManySubentries':
        throw new Error('CreateClaimableBalance: unexpected sponsorship result');
    }
    ltx.update(sourceEntry);
    ltx.create(entry);

    ctx.events.push(movementEvent(ledger.networkId, asset, muxedAccountAddress(ctx.sourceMuxed),
      claimableBalanceAddress(balanceId), amount, ctx.txMemo));
    return result(CREATE_CLAIMABLE_BALANCE_SUCCESS, { balanceId });
  },
};
