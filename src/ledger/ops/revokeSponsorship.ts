// RevokeSponsorship: changes who pays the reserve of one ledger entry or one signer. The source must
// be paying it now: the current sponsor, or the owner of an unsponsored entry. Afterwards it is paid
// by the account sponsoring the source's future reserves, if that is someone other than the owner
// (a transfer, or a new sponsorship); otherwise by the owner (the sponsorship is removed). With the
// source A and the owner B:
//
//   no open sponsorship of A      -> B pays
//   A sponsored by B              -> B pays
//   A sponsored by C (C != B)     -> C pays
//
// A claimable balance has no owner to fall back on, so its sponsorship can only be transferred.
import type { xdr } from '../../xdr/xdr.ts';
import type { AccountEntry, AccountId, LedgerEntry, LedgerKey } from '../../xdr/codec.ts';
import { accountIdEquals, accountOf, compareSignerKeys, extV2, isStringValid, loadAccount, loadAccountOrThrow } from './accounts.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { activeSponsorOf } from '../futureReserves.ts';
import {
  canEstablishEntrySponsorship, canEstablishSignerSponsorship, canRemoveEntrySponsorship, canRemoveSignerSponsorship,
  canTransferEntrySponsorship, canTransferSignerSponsorship, establishEntrySponsorship, establishSignerSponsorship,
  removeEntrySponsorship, removeSignerSponsorship, sponsorOf, transferEntrySponsorship, transferSignerSponsorship,
  type SponsorshipResult,
} from '../sponsorshipRules.ts';
import { reserveFailure, resultMaker } from './opResult.ts';
import type { OpContext, OpHandler, OpOutcome } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 18 }>;
type Code = xdr.RevokeSponsorshipResultWire['code'];

export const REVOKE_SPONSORSHIP_SUCCESS = 0;
export const REVOKE_SPONSORSHIP_DOES_NOT_EXIST = -1;
export const REVOKE_SPONSORSHIP_NOT_SPONSOR = -2;
export const REVOKE_SPONSORSHIP_LOW_RESERVE = -3;
export const REVOKE_SPONSORSHIP_ONLY_TRANSFERABLE = -4;
export const REVOKE_SPONSORSHIP_MALFORMED = -5;

const result = resultMaker<Code>(18, 'revokeSponsorshipResult');

export const revokeSponsorship: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const op = body.revokeSponsorshipOp;
    if (op.type !== 0) return null;
    return isRevocableKey(op.ledgerKey) ? null : result(REVOKE_SPONSORSHIP_MALFORMED);
  },

  apply(body, ctx) {
    const op = body.revokeSponsorshipOp;
    return op.type === 0 ? revokeEntrySponsorship(op.ledgerKey, ctx) : revokeSignerSponsorship(op.signer, ctx);
  },
};

/** Keys of entries that carry a reserve, well formed. */
function isRevocableKey(key: LedgerKey): boolean {
  switch (key.type) {
    case 0: return true;
    case 1: {
      const { accountId, asset } = key.trustLine;
      return isAssetValid(asset) && asset.type !== 0 && !isIssuer(accountId, asset);
    }
    case 2: return key.offer.offerId > 0n;
    case 3: return key.data.dataName.length >= 1 && isStringValid(key.data.dataName);
    case 4: return true;
    default: return false; // liquidity pools and Soroban entries carry no reserve
  }
}

/** The account that pays an entry's reserve when no one sponsors it; for a claimable balance, its sponsor. */
function ownerOf(e: LedgerEntry): AccountId {
  switch (e.data.type) {
    case 0: return e.data.account.accountId;
    case 1: return e.data.trustLine.accountId;
    case 2: return e.data.offer.sellerId;
    case 3: return e.data.data.accountId;
    case 4: {
      const sponsor = sponsorOf(e);
      if (!sponsor) throw new Error('claimable balance without a sponsor');
      return sponsor;
    }
    default: throw new Error(`entry type ${e.data.type} is not reserve-backed`);
  }
}

/** How a refused sponsorship change is reported (the checks here never answer tooManySubentries). */
const failureOf = (res: SponsorshipResult): OpOutcome | null => reserveFailure(res, result(REVOKE_SPONSORSHIP_LOW_RESERVE));

/**
 * The account that will pay once the source gives up paying: the one sponsoring the source's future
 * reserves, unless that is the owner (then undefined: the owner pays).
 */
function nextSponsor(ctx: OpContext, owner: AccountId): AccountId | undefined {
  const active = activeSponsorOf(ctx.ltx, ctx.source);
  return active && !accountIdEquals(active, owner) ? active : undefined;
}

function revokeEntrySponsorship(key: LedgerKey, ctx: OpContext): OpOutcome {
  const { ltx, ledger } = ctx;
  const le = ltx.load(key);
  if (!le) return result(REVOKE_SPONSORSHIP_DOES_NOT_EXIST);
  const owner = ownerOf(le);
  const current = sponsorOf(le);
  // whoever pays now must be the source: the sponsor, or the owner of an unsponsored entry
  if (!accountIdEquals(current ?? owner, ctx.source)) return result(REVOKE_SPONSORSHIP_NOT_SPONSOR);
  const next = nextSponsor(ctx, owner);
  if (!next && le.data.type === 4) return result(REVOKE_SPONSORSHIP_ONLY_TRANSFERABLE);

  // for an account entry the sponsored account is the entry itself, not a second copy of it
  const sponsoredEntry = (): LedgerEntry => le.data.type === 0 ? le : loadAccountOrThrow(ltx, owner);
  if (current && next) {
    const oldSponsor = loadAccountOrThrow(ltx, current);
    const newSponsor = loadAccountOrThrow(ltx, next);
    const refused = failureOf(canTransferEntrySponsorship(ledger, le, accountOf(oldSponsor), accountOf(newSponsor)));
    if (refused) return refused;
    transferEntrySponsorship(le, accountOf(oldSponsor), accountOf(newSponsor));
    ltx.update(oldSponsor);
    ltx.update(newSponsor);
  } else if (current) {
    const oldSponsor = loadAccountOrThrow(ltx, current);
    const sponsored = sponsoredEntry();
    const refused = failureOf(canRemoveEntrySponsorship(ledger, le, accountOf(oldSponsor), accountOf(sponsored)));
    if (refused) return refused;
    removeEntrySponsorship(le, accountOf(oldSponsor), accountOf(sponsored));
    ltx.update(oldSponsor);
    if (sponsored !== le) ltx.update(sponsored);
  } else if (next) {
    const newSponsor = loadAccountOrThrow(ltx, next);
    const sponsored = sponsoredEntry();
    const refused = failureOf(canEstablishEntrySponsorship(ledger, le, accountOf(newSponsor), accountOf(sponsored)));
    if (refused) return refused;
    establishEntrySponsorship(le, accountOf(newSponsor), accountOf(sponsored));
    ltx.update(newSponsor);
    if (sponsored !== le) ltx.update(sponsored);
  }
  // the owner keeps paying: nothing changes, but core has loaded the entry and so records it
  ltx.update(le);
  return result(REVOKE_SPONSORSHIP_SUCCESS);
}

function revokeSignerSponsorship(signer: xdr.RevokeSponsorshipOpSignerWire, ctx: OpContext): OpOutcome {
  const { ltx, ledger } = ctx;
  const { accountId, signerKey } = signer;
  const accountEntry = loadAccount(ltx, accountId);
  if (!accountEntry) return result(REVOKE_SPONSORSHIP_DOES_NOT_EXIST);
  const acc = accountOf(accountEntry);
  const index = acc.signers.findIndex((s) => compareSignerKeys(s.key, signerKey) === 0);
  if (index < 0) return result(REVOKE_SPONSORSHIP_DOES_NOT_EXIST);
  const current = currentSignerSponsor(acc, index);
  if (!accountIdEquals(current ?? accountId, ctx.source)) return result(REVOKE_SPONSORSHIP_NOT_SPONSOR);
  const next = nextSponsor(ctx, accountId);

  if (current && next) {
    const oldSponsor = loadAccountOrThrow(ltx, current);
    const newSponsor = loadAccountOrThrow(ltx, next);
    const refused = failureOf(canTransferSignerSponsorship(ledger, acc, index, accountOf(oldSponsor), accountOf(newSponsor)));
    if (refused) return refused;
    transferSignerSponsorship(acc, index, accountOf(oldSponsor), accountOf(newSponsor));
    ltx.update(oldSponsor);
    ltx.update(newSponsor);
  } else if (current) {
    const oldSponsor = loadAccountOrThrow(ltx, current);
    const refused = failureOf(canRemoveSignerSponsorship(ledger, acc, index, accountOf(oldSponsor)));
    if (refused) return refused;
    removeSignerSponsorship(acc, index, accountOf(oldSponsor));
    ltx.update(oldSponsor);
  } else if (next) {
    const newSponsor = loadAccountOrThrow(ltx, next);
    const refused = failureOf(canEstablishSignerSponsorship(ledger, acc, index, accountOf(newSponsor)));
    if (refused) return refused;
    establishSignerSponsorship(acc, index, accountOf(newSponsor));
    ltx.update(newSponsor);
  }
  ltx.update(accountEntry);
  return result(REVOKE_SPONSORSHIP_SUCCESS);
}

function currentSignerSponsor(acc: AccountEntry, index: number): AccountId | null {
  const v2 = extV2(acc);
  if (!v2) return null;
  if (index >= v2.signerSponsoringIDs.length) throw new Error('signerSponsoringIDs out of step with signers');
  return v2.signerSponsoringIDs[index];
}
