// Replays one closed ledger against the scratch state, as stellar-core closed it: every fee first,
// then each transaction in application order. A classic transaction goes through the engine with the
// fee the network charged and this ledger's header values, and is compared with the network's
// result and meta; then, whatever came out, the network's own changes are written, so the next
// transaction starts from the real state. Soroban transactions are not applied (their read-only
// footprint entries are in no meta); their real changes are written all the same.
import { metaChanges } from '../ingest/ledgerToBatch.ts';
import { applyTransaction, maxSeqNumsToApply } from '../ledger/closeLedger.ts';
import { LedgerTxn } from '../ledger/ledgerTxn.ts';
import { frameOf, type TransactionFrame } from '../ledger/transactionFrame.ts';
import type { LedgerContext } from '../ledger/ops/types.ts';
import type { LedgerHeader, LedgerKey } from '../xdr/codec.ts';
import type { ClosedLedger, ClosedTransaction } from './closedLedger.ts';
import type { BlindReads, ScratchState } from './scratchState.ts';
import { outcomeLabel, outcomeOf, operationTypesOf, rowLabel, type RealOutcome } from './classification.ts';
import { compareTransaction, comparableMetaVersions } from './compareTransaction.ts';
import { describeDifference } from './firstDifference.ts';
import { entriesFound, type StandInVersion } from './placeholders.ts';
import { MIN_REPLAYED_PROTOCOL, Reasons, verdictOf, type Verdict } from './verdict.ts';

export interface ReplayedTransaction {
  ledger: number;
  /** Application order within the ledger, from 0. */
  index: number;
  hashHex: string;
  operationTypes: number[];
  outcome: RealOutcome;
  row: string;
  /** Whether the engine applied it (not a Soroban transaction, nor one of a protocol it does not implement). */
  applied: boolean;
  verdict: Verdict;
}

/** Randomness only Soroban operations draw on; the replay never applies those. */
const UNUSED_PRNG_SEED = new Uint8Array(32);

/**
 * `previous` is the header of the ledger before, when the replay has it: a ledger applies its
 * transactions under the previous header's version, base fee and reserve (an upgrade in this
 * ledger takes effect after its transactions). Without it this ledger's own header stands in.
 */
export function replayLedger(ledger: ClosedLedger, state: ScratchState, previous: LedgerHeader | undefined,
  networkId: Uint8Array): ReplayedTransaction[] {
  const rules = previous ?? ledger.header;
  const context: LedgerContext = {
    ledgerSeq: ledger.sequence, closeTime: ledger.header.scpValue.closeTime, protocolVersion: rules.ledgerVersion,
    baseReserve: rules.baseReserve, baseFee: rules.baseFee, networkId,
  };
  for (const t of ledger.transactions) state.apply(t.feeProcessing);
  const frames = ledger.transactions.map((t) => frameOf(t.envelope, networkId));
  const maxSeqNumToApply = maxSeqNumsToApply(frames);

  const replayed = ledger.transactions.map((t, i) => {
    const frame = frames[i];
    const operationTypes = operationTypesOf(frame.tx);
    const outcome = outcomeOf(t.result);
    const notApplied = frame.isSoroban ? Reasons.soroban
      : context.protocolVersion < MIN_REPLAYED_PROTOCOL ? Reasons.oldProtocol(context.protocolVersion)
        : !comparableMetaVersions.has(t.meta.v) ? Reasons.metaVersion(t.meta.v) : null;
    const verdict: Verdict = notApplied
      ? { kind: 'undetermined', reason: notApplied }
      : applyAndCompare(frame, t, outcome, state, context, maxSeqNumToApply);
    state.apply(metaChanges(t.meta));
    return {
      ledger: ledger.sequence, index: t.index, hashHex: t.hashHex, operationTypes, outcome,
      row: rowLabel(operationTypes, outcome), applied: notApplied === null, verdict,
    };
  });

  for (const t of ledger.transactions) state.apply(t.postApplyFeeProcessing);
  for (const changes of ledger.upgradeChanges) state.apply(changes);
  state.evict(ledger.evictedKeys);
  return replayed;
}

function applyAndCompare(frame: TransactionFrame, t: ClosedTransaction, outcome: RealOutcome, state: ScratchState,
  context: LedgerContext, maxSeqNumToApply: ReturnType<typeof maxSeqNumsToApply>): Verdict {
  const found = entriesFound(frame, t.result);
  const first = applyOnce(frame, t, outcome, state, context, maxSeqNumToApply, found, 'bare');
  let dependsOnStandIns = false;
  if (first.difference !== null && first.reads.placeholders.size > 0) {
    const second = applyOnce(frame, t, outcome, state, context, maxSeqNumToApply, found, 'full');
    dependsOnStandIns = second.difference !== first.difference;
  }
  return verdictOf(first.difference, { result: t.result, outcome }, first.reads, dependsOnStandIns);
}

/** Applies the transaction in a fresh root over the state (which changes between transactions) and compares. */
function applyOnce(frame: TransactionFrame, t: ClosedTransaction, outcome: RealOutcome, state: ScratchState,
  context: LedgerContext, maxSeqNumToApply: ReturnType<typeof maxSeqNumsToApply>, found: LedgerKey[], standIns: StandInVersion):
  { difference: string | null; reads: BlindReads } {
  state.beginTransaction(found, { version: standIns, baseReserve: context.baseReserve });
  let difference: string | null;
  try {
    const root = new LedgerTxn(state, context.ledgerSeq, { idPool: state.idPool });
    const ours = applyTransaction(frame, root, context, t.result.feeCharged, maxSeqNumToApply, undefined, UNUSED_PRNG_SEED,
      { skipSignatureVerification: true, txSetBaseFee: t.txSetBaseFee });
    const d = compareTransaction(ours, { result: t.result, meta: t.meta });
    const ourOutcome = outcomeLabel(outcomeOf(ours.result));
    // a different outcome, named, says more than the first differing field (often a bare code)
    difference = d && (ourOutcome !== outcomeLabel(outcome)
      ? `outcome: ours ${ourOutcome} real ${outcomeLabel(outcome)}; ${describeDifference(d)}` : describeDifference(d));
  } catch (e) {
    difference = `the engine threw: ${(e as Error).message}`;
  }
  return { difference, reads: state.endTransaction() };
}
