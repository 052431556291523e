// What an operation answers: its result arm (OperationResult.tr) and whether it succeeded, or one
// of the top-level OperationResult codes.
import type { xdr } from '../../xdr/xdr.ts';
import type { OpOutcome } from './types.ts';
import type { SponsorshipResult } from '../sponsorshipRules.ts';

/** OperationResult codes other than opINNER that an operation itself may produce. */
export const OP_NOT_SUPPORTED = -3;
export const OP_TOO_MANY_SUBENTRIES = -4;
export const OP_EXCEEDED_WORK_LIMIT = -5;
export const OP_TOO_MANY_SPONSORING = -6;

export const succeed = (tr: xdr.OperationResultTrWire): OpOutcome => ({ tr, success: true });
export const failWith = (tr: xdr.OperationResultTrWire): OpOutcome => ({ tr, success: false });
/** A failure reported as a top-level OperationResult code; `tr` is only a placeholder (see OpOutcome.code). */
export const failOp = (code: -3 | -4 | -5 | -6, placeholder: xdr.OperationResultTrWire): OpOutcome =>
  ({ tr: placeholder, success: false, code });

/**
 * The result maker of one operation type: `result(code)` for a bare code, `result(0, {...})` for a
 * success carrying more (the offers a trade claimed, a balance id).
 */
export function resultMaker<Code extends number>(type: xdr.OperationResultTrWire['type'], arm: string) {
  return (code: Code, fields?: object): OpOutcome => {
    const tr = { type, [arm]: { code, ...fields } } as unknown as xdr.OperationResultTrWire;
    return code === 0 ? succeed(tr) : failWith(tr);
  };
}

/**
 * How an operation reports a reserve it could not pay (core's switch over SponsorshipResult after
 * createEntryWithPossibleSponsorship / createSignerWithPossibleSponsorship): null for 'ok', the
 * operation's own LOW_RESERVE outcome, or opTOO_MANY_SUBENTRIES / opTOO_MANY_SPONSORING (with that
 * outcome's arm as placeholder). TOO_MANY_SPONSORED cannot happen while sub-entries are limited; as in
 * core it is an internal error.
 */
export function reserveFailure(res: SponsorshipResult, lowReserve: OpOutcome): OpOutcome | null {
  switch (res) {
    case 'ok': return null;
    case 'lowReserve': return lowReserve;
    case 'tooManySubentries': return failOp(OP_TOO_MANY_SUBENTRIES, lowReserve.tr);
    case 'tooManySponsoring': return failOp(OP_TOO_MANY_SPONSORING, lowReserve.tr);
    case 'tooManySponsored': throw new Error('unexpected sponsorship result: too many sponsored');
  }
}
