// How the report groups transactions: one row per (operation types, real outcome). A transaction
// counts in exactly one row, so the rows add up to the transactions replayed:
//   - its operation types are the distinct types it holds, in the order they first appear
//     ("CHANGE_TRUST+PAYMENT");
//   - its outcome is the network's: "success", "failed: <code of the first failing operation>",
//     or, when the transaction failed as a whole, "(tx) <code>" alone (no operation ran).
// A fee bump is classified by its inner transaction's outcome unless the fee bump itself failed.
import type { xdr } from '../xdr/xdr.ts';
import { operationOutcomeName, operationSucceeded, operationTypeName, transactionCodeName } from './resultNames.ts';

export type RealOutcome =
  | { kind: 'success' }
  | { kind: 'failed'; operation: number; code: string }
  | { kind: 'tx'; code: string };

const TX_SUCCESS = 0, TX_FAILED = -1, FEE_BUMP_INNER_SUCCESS = 1, FEE_BUMP_INNER_FAILED = -13;

/** The outcome of the transaction the result is for (the inner one of a fee bump that went through). */
export function outcomeOf(result: xdr.TransactionResultWire): RealOutcome {
  const r = result.result;
  const body = r.code === FEE_BUMP_INNER_SUCCESS || r.code === FEE_BUMP_INNER_FAILED ? r.innerResultPair.result.result : r;
  if (body.code === TX_SUCCESS) return { kind: 'success' };
  if (body.code === TX_FAILED) {
    const results = (body as { results: xdr.OperationResultWire[] }).results;
    const operation = results.findIndex((op) => !operationSucceeded(op));
    return { kind: 'failed', operation, code: operation < 0 ? '(no failing operation)' : operationOutcomeName(results[operation]) };
  }
  return { kind: 'tx', code: transactionCodeName(body.code) };
}

/** Distinct operation types in order of first appearance. */
export function operationTypesOf(tx: xdr.TransactionWire): number[] {
  return [...new Set(tx.operations.map((op) => op.body.type))];
}

/** "success", "failed: PAYMENT_UNDERFUNDED" (with the failing operation's index when not the first), "(tx) txBAD_SEQ". */
export function outcomeLabel(outcome: RealOutcome): string {
  if (outcome.kind === 'tx') return `(tx) ${outcome.code}`;
  return outcome.kind === 'success' ? 'success' : `failed: ${outcome.code}`;
}

export function rowLabel(operationTypes: readonly number[], outcome: RealOutcome): string {
  if (outcome.kind === 'tx') return outcomeLabel(outcome);
  return `${operationTypes.map(operationTypeName).join('+')} / ${outcomeLabel(outcome)}`;
}

export const CLASSIFICATION_NOTE =
  'Rows: the distinct operation types of a transaction (in order of first appearance, joined by +) and the network\'s ' +
  'outcome: success, failed: <code of the first failing operation>, or (tx) <code> when the transaction failed as a whole. ' +
  'Fee bumps count by their inner transaction. Each transaction counts in one row.';
