// Whether a replayed transaction came out identical, different, or undetermined: a difference the
// metas cannot settle because the engine had to read something no meta shows.
import type { xdr } from '../xdr/xdr.ts';
import type { BlindReads } from './scratchState.ts';
import type { RealOutcome } from './classification.ts';

export type Verdict =
  | { kind: 'identical' }
  | { kind: 'different'; difference: string }
  | { kind: 'undetermined'; reason: string; difference?: string };

export const Reasons = {
  soroban: 'Soroban transaction: not applied (its read-only footprint entries are in no meta)',
  oldProtocol: (p: number) => `protocol ${p}: the engine implements protocol ${MIN_REPLAYED_PROTOCOL} and later`,
  metaVersion: (v: number) => `TransactionMeta v${v}: no counterpart of the engine's meta`,
  signatures: 'the network refused a signature: the replay does not verify signatures',
  failedBlindEntries: 'failed on the network, and read entries no meta shows',
  failedBlindBook: 'failed on the network, and read the order book (only offers some meta shows are in it)',
  placeholder: 'depends on entries no meta shows, known only to exist (from the result): ours changes with what stands in for them',
} as const;

/** The classic rules the engine follows start at protocol 19 (ops/accounts.ts). */
export const MIN_REPLAYED_PROTOCOL = 19;

const BAD_AUTH = -6, BAD_AUTH_EXTRA = -10, OP_BAD_AUTH = -1;

/** Whether the network's result is a signature failure (of the transaction, a fee bump, or an operation). */
export function signatureRefused(result: xdr.TransactionResultWire): boolean {
  const r = result.result;
  if (r.code === BAD_AUTH || r.code === BAD_AUTH_EXTRA) return true;
  const body = r.code === 1 || r.code === -13 ? r.innerResultPair.result.result : r;
  if (body.code === BAD_AUTH || body.code === BAD_AUTH_EXTRA) return true;
  return body.code === -1 && (body as { results: xdr.OperationResultWire[] }).results.some((op) => op.code === OP_BAD_AUTH);
}

/**
 * The verdict on a transaction the engine applied. `difference` is null when ours is identical;
 * otherwise what the engine read that the metas do not show decides whether the difference is the
 * engine's. `dependsOnStandIns`: the engine's outcome changed with the contents of the stand-ins for
 * entries known only to exist (placeholders.ts).
 */
export function verdictOf(difference: string | null, real: { result: xdr.TransactionResultWire; outcome: RealOutcome },
  reads: BlindReads, dependsOnStandIns: boolean): Verdict {
  if (difference === null) return { kind: 'identical' };
  if (signatureRefused(real.result)) return { kind: 'undetermined', reason: Reasons.signatures, difference };
  if (dependsOnStandIns) return { kind: 'undetermined', reason: Reasons.placeholder, difference };
  // What a failed transaction read is rolled back with it and so shows in no meta; a successful one
  // shows every entry it changed, and the entries it only read are stood in for, so its outcome is
  // the engine's to get right.
  if (real.outcome.kind !== 'success') {
    if (reads.unknownKeys.size > 0) return { kind: 'undetermined', reason: Reasons.failedBlindEntries, difference };
    if (reads.bookQueries > 0) return { kind: 'undetermined', reason: Reasons.failedBlindBook, difference };
  }
  return { kind: 'different', difference };
}
