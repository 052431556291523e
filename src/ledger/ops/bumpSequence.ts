// BumpSequence: raises the source's sequence number to `bumpTo` (a lower or equal target is a
// successful no-op). From protocol 19 the account's seqLedger/seqTime are stamped either way.
import type { xdr } from '../../xdr/xdr.ts';
import { accountOf, loadAccountOrThrow, touchSeqLedger } from './accounts.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 11 }>;
type Code = xdr.BumpSequenceResultWire['code'];

export const BUMP_SEQUENCE_SUCCESS = 0;
export const BUMP_SEQUENCE_BAD_SEQ = -1;

const result = resultMaker<Code>(11, 'bumpSeqResult');

export const bumpSequence: OpHandler<Body> = {
  threshold: () => 'low',

  checkValid(body) {
    return body.bumpSequenceOp.bumpTo < 0n ? result(BUMP_SEQUENCE_BAD_SEQ) : null;
  },

  apply(body, ctx) {
    const { bumpTo } = body.bumpSequenceOp;
    const { ltx, ledger } = ctx;
    const entry = loadAccountOrThrow(ltx, ctx.source);
    const acc = accountOf(entry);
    const bumps = bumpTo > acc.seqNum;
    if (bumps || ledger.protocolVersion >= 19) {
      touchSeqLedger(ledger, acc);
      if (bumps) acc.seqNum = bumpTo;
      ltx.update(entry);
    }
    return result(BUMP_SEQUENCE_SUCCESS);
  },
};
