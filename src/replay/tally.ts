// Counts replayed transactions into the report's rows, reasons and differences as they come, so a
// long replay keeps only counts and the differences, never the transactions themselves.
import { supportedOperationTypes } from '../ledger/ops/index.ts';
import { operationTypeName } from './resultNames.ts';
import type { ReplayedTransaction } from './ledgerReplay.ts';

export interface Counts { transactions: number; identical: number; different: number; undetermined: number }

export interface Row extends Counts {
  label: string;
  /** The transactions hold an operation type the engine does not support (it answers opNOT_SUPPORTED). */
  unsupported: boolean;
}

export interface DifferenceRecord {
  ledger: number;
  hash: string;
  operations: string;
  row: string;
  difference: string;
  /** Holds an operation type the engine does not support. */
  unsupported: boolean;
}

/** A transaction the engine applied whose difference the metas cannot settle. */
export interface UndeterminedRecord extends Omit<DifferenceRecord, 'unsupported'> { reason: string }

export interface OperationTypeCounts { transactions: number; applied: number }

const zero = (): Counts => ({ transactions: 0, identical: 0, different: 0, undetermined: 0 });

const supported = new Set(supportedOperationTypes);

export class Tally {
  readonly rows = new Map<string, Row>();
  readonly reasons = new Map<string, number>();
  readonly differences: DifferenceRecord[] = [];
  /** The undetermined transactions the engine applied, with the difference it could not settle. */
  readonly undetermined: UndeterminedRecord[] = [];
  /** Per operation type (by name): transactions holding it, and how many of them the engine applied. */
  readonly operationTypes = new Map<string, OperationTypeCounts>();
  /** Successful transactions made only of supported operation types, applied by the engine. */
  readonly supportedSuccesses = zero();
  readonly total = zero();

  add(t: ReplayedTransaction): void {
    const unsupported = t.operationTypes.some((type) => !supported.has(type));
    const key = `${unsupported ? 1 : 0}|${t.row}`;
    let row = this.rows.get(key);
    if (!row) { row = { label: t.row, unsupported, ...zero() }; this.rows.set(key, row); }
    const counted = [row, this.total];
    if (!unsupported && t.applied && t.outcome.kind === 'success') counted.push(this.supportedSuccesses);
    for (const c of counted) { c.transactions++; c[t.verdict.kind]++; }

    for (const type of t.operationTypes) {
      const name = operationTypeName(type);
      const c = this.operationTypes.get(name) ?? { transactions: 0, applied: 0 };
      c.transactions++;
      if (t.applied) c.applied++;
      this.operationTypes.set(name, c);
    }
    const where = { ledger: t.ledger, hash: t.hashHex, operations: t.operationTypes.map(operationTypeName).join('+'), row: t.row };
    if (t.verdict.kind === 'undetermined') {
      this.reasons.set(t.verdict.reason, (this.reasons.get(t.verdict.reason) ?? 0) + 1);
      if (t.verdict.difference !== undefined) this.undetermined.push({ ...where, reason: t.verdict.reason, difference: t.verdict.difference });
    }
    if (t.verdict.kind === 'different') {
      this.differences.push({ ...where, difference: t.verdict.difference, unsupported });
    }
  }
}
