// AccountMerge: deletes the source account and pays its whole native balance to the destination.
// The source may hold nothing but signers (which are removed), may not sponsor anything, and may not
// be merged if recreating it in this ledger would let its sequence number go backwards.
import type { xdr } from '../../xdr/xdr.ts';
import { accountKey, muxedToAccountId } from '../../xdr/codec.ts';
import { muxedAccountAddress, transferEvent } from '../sacEvents.ts';
import { AUTH_IMMUTABLE_FLAG, accountIdEquals, accountOf, addAccountBalance, loadAccount, loadAccountOrThrow, numSponsoring, startingSequenceNumber } from './accounts.ts';
import { removeEntryWithPossibleSponsorship, removeSignerWithPossibleSponsorship } from '../sponsorship.ts';
import { openSponsorshipCount } from '../futureReserves.ts';
import { failWith, succeed } from './opResult.ts';
import type { OpHandler, OpOutcome } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 8 }>;
type FailCode = Exclude<xdr.AccountMergeResultWire['code'], 0>;

export const ACCOUNT_MERGE_SUCCESS = 0;
export const ACCOUNT_MERGE_MALFORMED = -1;
export const ACCOUNT_MERGE_NO_ACCOUNT = -2;
export const ACCOUNT_MERGE_IMMUTABLE_SET = -3;
export const ACCOUNT_MERGE_HAS_SUB_ENTRIES = -4;
export const ACCOUNT_MERGE_SEQNUM_TOO_FAR = -5;
export const ACCOUNT_MERGE_DEST_FULL = -6;
export const ACCOUNT_MERGE_IS_SPONSOR = -7;

const fail = (code: FailCode): OpOutcome =>
  failWith({ type: 8, accountMergeResult: { code } as xdr.AccountMergeResultWire });

export const accountMerge: OpHandler<Body> = {
  threshold: () => 'high',

  checkValid(body, ctx) {
    return accountIdEquals(muxedToAccountId(body.destination), ctx.source) ? fail(ACCOUNT_MERGE_MALFORMED) : null;
  },

  apply(body, ctx) {
    const { ltx, ledger } = ctx;
    const destId = muxedToAccountId(body.destination);
    if (!ltx.exists(accountKey(destId))) return fail(ACCOUNT_MERGE_NO_ACCOUNT);

    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const source = accountOf(sourceEntry);
    if ((source.flags & AUTH_IMMUTABLE_FLAG) !== 0) return fail(ACCOUNT_MERGE_IMMUTABLE_SET);
    if (source.numSubEntries !== source.signers.length) return fail(ACCOUNT_MERGE_HAS_SUB_ENTRIES);

    // A merged account can be recreated in this very ledger starting at ledgerSeq << 32; refuse
    // if the account (or a later transaction of this ledger) is already at or beyond that.
    const maxSeq = startingSequenceNumber(ledger);
    const pending = ctx.maxSeqNumToApply?.(ctx.source);
    if ((pending !== undefined && pending >= maxSeq) || source.seqNum >= maxSeq) return fail(ACCOUNT_MERGE_SEQNUM_TOO_FAR);

    // an account paying reserves for others, or about to (an open sponsorship), must stay
    if (openSponsorshipCount(ltx, ctx.source) !== undefined) return fail(ACCOUNT_MERGE_IS_SPONSOR);
    if (numSponsoring(source) > 0) return fail(ACCOUNT_MERGE_IS_SPONSOR);

    while (source.signers.length > 0) removeSignerWithPossibleSponsorship(ltx, sourceEntry, source.signers.length - 1);

    const amount = source.balance;
    const destEntry = loadAccount(ltx, destId)!;
    if (!addAccountBalance(ledger, accountOf(destEntry), amount)) return fail(ACCOUNT_MERGE_DEST_FULL);
    ltx.update(destEntry);

    // Releases a sponsor's reserve if the account entry itself was sponsored.
    removeEntryWithPossibleSponsorship(ltx, sourceEntry, sourceEntry);
    ltx.erase(accountKey(ctx.source));

    ctx.events.push(transferEvent(ledger.networkId, { type: 0 }, muxedAccountAddress(ctx.sourceMuxed),
      muxedAccountAddress(body.destination), amount, ctx.txMemo));
    return succeed({ type: 8, accountMergeResult: { code: ACCOUNT_MERGE_SUCCESS, sourceAccountBalance: amount } });
  },
};
