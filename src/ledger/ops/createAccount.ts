// CreateAccount: funds a new account with `startingBalance` taken from the source. The new account's
// reserve may be sponsored (CAP-33).
import { xdr } from '../../xdr/xdr.ts';
import { accountKey, type LedgerEntry } from '../../xdr/codec.ts';
import { accountAddress, muxedAccountAddress, transferEvent } from '../sacEvents.ts';
import { accountIdEquals, accountOf, addAccountBalance, availableBalance, loadAccountOrThrow, startingSequenceNumber } from './accounts.ts';
import { createEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { reserveFailure, resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 0 }>;
type Code = xdr.CreateAccountResultWire['code'];

const result = resultMaker<Code>(0, 'createAccountResult');

export const CREATE_ACCOUNT_SUCCESS = 0;
export const CREATE_ACCOUNT_MALFORMED = -1;
export const CREATE_ACCOUNT_UNDERFUNDED = -2;
export const CREATE_ACCOUNT_LOW_RESERVE = -3;
export const CREATE_ACCOUNT_ALREADY_EXIST = -4;

export const createAccount: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body, ctx) {
    const op = body.createAccountOp;
    if (op.startingBalance < 0n) return result(CREATE_ACCOUNT_MALFORMED);
    if (accountIdEquals(op.destination, ctx.source)) return result(CREATE_ACCOUNT_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { destination, startingBalance } = body.createAccountOp;
    const { ltx, ledger } = ctx;
    if (ltx.exists(accountKey(destination))) return result(CREATE_ACCOUNT_ALREADY_EXIST);

    const entry: LedgerEntry = {
      lastModifiedLedgerSeq: ledger.ledgerSeq,
      data: {
        type: 0,
        account: {
          accountId: destination,
          balance: startingBalance,
          seqNum: startingSequenceNumber(ledger),
          numSubEntries: 0,
          inflationDest: null,
          flags: 0,
          homeDomain: new xdr.XdrString(''),
          thresholds: new Uint8Array([1, 0, 0, 0]),
          signers: [],
          ext: { v: 0 },
        },
      },
      ext: { v: 0 },
    };
    // The new account holds its own two base reserves, unless someone sponsors its future reserves:
    // then the sponsor pays them and the starting balance may even be zero.
    const unpaid = reserveFailure(createEntryWithPossibleSponsorship(ltx, ledger, entry, entry), result(CREATE_ACCOUNT_LOW_RESERVE));
    if (unpaid) return unpaid;

    // Loaded after the sponsorship: when the source is the sponsor, its reserve has just grown.
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const source = accountOf(sourceEntry);
    if (availableBalance(ledger, source) < startingBalance) return result(CREATE_ACCOUNT_UNDERFUNDED);
    if (!addAccountBalance(ledger, source, -startingBalance)) throw new Error('CreateAccount: debit failed after balance check');
    ltx.update(sourceEntry);
    ltx.create(entry);

    ctx.events.push(transferEvent(ledger.networkId, { type: 0 }, muxedAccountAddress(ctx.sourceMuxed),
      accountAddress(destination), startingBalance, ctx.txMemo));
    return result(CREATE_ACCOUNT_SUCCESS);
  },
};
