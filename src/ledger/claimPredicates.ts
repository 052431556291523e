// Claim predicates (CAP-23): when a claimant of a claimable balance may claim it. Three steps, in
// the order a balance lives through them, each as stellar-core does it:
//   - validity, checked when CreateClaimableBalance is validated (shape and nesting depth);
//   - conversion on creation: "before N seconds from now" becomes "before the absolute time
//     closeTime + N", so a stored balance never holds a relative predicate;
//   - evaluation against the close time of the ledger a ClaimClaimableBalance is applied in.
import type { xdr } from '../xdr/xdr.ts';
import { INT64_MAX } from './numeric.ts';

export type ClaimPredicate = xdr.ClaimPredicateWire;

export const CLAIM_PREDICATE_UNCONDITIONAL = 0;
export const CLAIM_PREDICATE_AND = 1;
export const CLAIM_PREDICATE_OR = 2;
export const CLAIM_PREDICATE_NOT = 3;
export const CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME = 4;
export const CLAIM_PREDICATE_BEFORE_RELATIVE_TIME = 5;

/**
 * How deep predicates may nest, counting the claimant's own predicate as level 1: core refuses a
 * predicate whose leaves sit below level 4, which bounds the work of evaluating one.
 */
export const MAX_PREDICATE_DEPTH = 4;

/**
 * Whether a predicate may be put in a claimable balance: AND and OR take exactly two operands, NOT
 * exactly one, times are not negative, and nothing nests deeper than MAX_PREDICATE_DEPTH. Any shape
 * the wire object can take (including ones XDR could not carry) gets an answer; none throws.
 */
export function isPredicateValid(pred: ClaimPredicate, depth = 1): boolean {
  if (depth > MAX_PREDICATE_DEPTH) return false;
  switch (pred.type) {
    case CLAIM_PREDICATE_UNCONDITIONAL: return true;
    case CLAIM_PREDICATE_AND: return bothValid(pred.andPredicates, depth);
    case CLAIM_PREDICATE_OR: return bothValid(pred.orPredicates, depth);
    case CLAIM_PREDICATE_NOT: return pred.notPredicate !== null && isPredicateValid(pred.notPredicate, depth + 1);
    case CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME: return pred.absBefore >= 0n;
    case CLAIM_PREDICATE_BEFORE_RELATIVE_TIME: return pred.relBefore >= 0n;
    default: return false;
  }
}

function bothValid(operands: readonly ClaimPredicate[], depth: number): boolean {
  return operands.length === 2 && isPredicateValid(operands[0], depth + 1) && isPredicateValid(operands[1], depth + 1);
}

/**
 * closeTime + relative, saturating at INT64_MAX: a relative time so large that the sum would not
 * fit an int64 means "never expires" rather than wrapping into the past.
 */
export function relativeToAbsolute(closeTime: bigint, relative: bigint): bigint {
  return closeTime > INT64_MAX - relative ? INT64_MAX : closeTime + relative;
}

/**
 * The predicate as it is stored: every BEFORE_RELATIVE_TIME replaced by the BEFORE_ABSOLUTE_TIME it
 * means in the ledger closing at `closeTime`. Returns a new tree; the operation's own is left as is.
 * Expects a valid predicate (isPredicateValid).
 */
export function toAbsolutePredicate(pred: ClaimPredicate, closeTime: bigint): ClaimPredicate {
  switch (pred.type) {
    case CLAIM_PREDICATE_AND:
      return { type: CLAIM_PREDICATE_AND, andPredicates: pred.andPredicates.map((p) => toAbsolutePredicate(p, closeTime)) };
    case CLAIM_PREDICATE_OR:
      return { type: CLAIM_PREDICATE_OR, orPredicates: pred.orPredicates.map((p) => toAbsolutePredicate(p, closeTime)) };
    case CLAIM_PREDICATE_NOT:
      return { type: CLAIM_PREDICATE_NOT, notPredicate: pred.notPredicate && toAbsolutePredicate(pred.notPredicate, closeTime) };
    case CLAIM_PREDICATE_BEFORE_RELATIVE_TIME:
      return { type: CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME, absBefore: relativeToAbsolute(closeTime, pred.relBefore) };
    case CLAIM_PREDICATE_UNCONDITIONAL:
      return { type: CLAIM_PREDICATE_UNCONDITIONAL };
    case CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME:
      return { type: CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME, absBefore: pred.absBefore };
  }
}

/**
 * Whether a stored predicate holds in the ledger closing at `closeTime`. BEFORE_ABSOLUTE_TIME holds
 * strictly before its time. A stored predicate was validated and made absolute when its balance was
 * created, so any other shape means the ledger state is corrupt: that is an internal error (core
 * throws too), not a result code.
 */
export function isPredicateSatisfied(pred: ClaimPredicate, closeTime: bigint): boolean {
  switch (pred.type) {
    case CLAIM_PREDICATE_UNCONDITIONAL:
      return true;
    case CLAIM_PREDICATE_AND:
      return isPredicateSatisfied(operand(pred.andPredicates, 0), closeTime) && isPredicateSatisfied(operand(pred.andPredicates, 1), closeTime);
    case CLAIM_PREDICATE_OR:
      return isPredicateSatisfied(operand(pred.orPredicates, 0), closeTime) || isPredicateSatisfied(operand(pred.orPredicates, 1), closeTime);
    case CLAIM_PREDICATE_NOT:
      if (!pred.notPredicate) throw new Error('stored claim predicate: NOT without an operand');
      return !isPredicateSatisfied(pred.notPredicate, closeTime);
    case CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME:
      // absBefore is never negative in a stored predicate; core compares it as unsigned
      return BigInt.asUintN(64, pred.absBefore) > closeTime;
    default:
      throw new Error(`stored claim predicate of type ${pred.type}`);
  }
}

function operand(operands: readonly ClaimPredicate[], i: 0 | 1): ClaimPredicate {
  if (operands.length !== 2) throw new Error('stored claim predicate: AND/OR without exactly two operands');
  return operands[i];
}
