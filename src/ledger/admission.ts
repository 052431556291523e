// Admission of a transaction submitted to the standalone network, as core's tryAdd: the queue's rules
// (duplicates, bans, one per source, its size), then validation against the next ledger; a refused
// transaction gets the ERROR answer core would give. Signatures are verified on worker threads
// beforehand, so validation finds them verified.
import { xdr } from '../xdr/xdr.ts';
import { accountKey, encodeLedgerKey, muxedToAccountId, toHex } from '../xdr/codec.ts';
import { LedgerTxn, type EntrySource } from './ledgerTxn.ts';
import type { TransactionFrame } from './transactionFrame.ts';
import type { Admission, TransactionQueue } from './transactionQueue.ts';
import { checkTransaction, type OperationResult } from './validation.ts';
import { TxCode } from './resultCodes.ts';
import { transactionResult } from './closeLedger.ts';
import type { LedgerContext } from './ops/types.ts';
import { sorobanMemoProblem, type SorobanEnv } from './soroban/resources.ts';
import { networkErrorEvent, type NetworkError } from './soroban/diagnostics.ts';
import type { SignatureVerifierPool } from './signatureWorkers.ts';
import { candidateSignatures, rememberVerified } from './signatures.ts';
import type { Impersonated } from './impersonation.ts';

/** A submission's answer: sendTransaction's status, the hash, and for ERROR the result and diagnostic error. */
export interface AdmissionResult {
  status: Admission | 'ERROR';
  hash: Uint8Array;
  errorResult?: Uint8Array;         // TransactionResult XDR
  diagnosticEvents?: Uint8Array[];  // DiagnosticEvent XDRs
}

/** The ledger a transaction submitted now is validated for: the one after `latest`, closing at `closeTime`. */
export function nextLedgerContext(latest: xdr.LedgerHeaderHistoryEntryWire, closeTime: bigint, networkId: Uint8Array,
  impersonated?: Impersonated): LedgerContext {
  return {
    ...(impersonated ? { impersonated } : {}),
    ledgerSeq: latest.header.ledgerSeq + 1,
    closeTime,
    protocolVersion: latest.header.ledgerVersion,
    baseReserve: latest.header.baseReserve,
    baseFee: latest.header.baseFee,
    networkId,
  };
}

/** Checks the envelope's likely signatures on worker threads, so validation finds them verified. */
export async function verifySignaturesOffThread(frame: TransactionFrame, state: EntrySource, verifier: SignatureVerifierPool): Promise<void> {
  const ids = [frame.sourceId, frame.feeSourceId, ...frame.tx.operations.flatMap((op) => op.sourceAccount ? [muxedToAccountId(op.sourceAccount)] : [])];
  const accounts = [...new Map(ids.map((id) => [toHex(id.ed25519), id])).values()].flatMap((id) => {
    const e = state.getEntry(encodeLedgerKey(accountKey(id)));
    return e && e.data.type === 0 ? [e.data.account] : [];
  });
  const items = [
    ...candidateSignatures(accounts, frame.innerHash, frame.signatures),
    ...(frame.feeBump ? candidateSignatures(accounts, frame.hash, frame.feeBump.signatures) : []),
  ];
  const results = await verifier.verify(items);
  items.forEach((it, i) => { if (typeof results[i] === 'boolean') rememberVerified(it.publicKey, it.message, it.signature, results[i]); });
}

/** Queues the transaction if the queue lets it in and it is valid for `ledger` over `state`. */
export function admitTransaction(frame: TransactionFrame, on: {
  queue: TransactionQueue; state: EntrySource; ledger: LedgerContext; soroban: SorobanEnv | undefined;
}): AdmissionResult {
  const { queue, ledger } = on;
  const hash = frame.hash;
  const admission = queue.admit(frame);
  if (admission.status !== 'PENDING') return { status: admission.status, hash };
  const ltx = new LedgerTxn(on.state, ledger.ledgerSeq);
  const pendingFees = queue.pendingFees(toHex(frame.feeSourceId.ed25519), admission.replaces);
  const check = checkTransaction(frame, ltx, { ledger, applying: false, pendingFees, soroban: on.soroban });
  ltx.rollback();
  const invalid = check.outer ?? check.inner;
  if (invalid) return refused(frame, invalid.code, invalid.opResults, check.outer !== null, invalid.error);
  const memo = sorobanMemoProblem(frame);
  if (memo) return refused(frame, TxCode.SOROBAN_INVALID, undefined, true, memo);
  queue.add(frame, admission.replaces);
  return { status: 'PENDING', hash };
}

/** An ERROR answer: the result core would give, and its diagnostic error when it reports one. */
function refused(frame: TransactionFrame, code: number, opResults: OperationResult[] | undefined, outer: boolean, error?: NetworkError): AdmissionResult {
  const result = transactionResult(frame, frame.declaredFee, code, opResults, outer);
  return {
    status: 'ERROR', hash: frame.hash, errorResult: xdr.TransactionResult.schema.encode(result),
    ...(error ? { diagnosticEvents: [xdr.DiagnosticEvent.schema.encode(networkErrorEvent(error))] } : {}),
  };
}
