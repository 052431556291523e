// Where sendTransaction hands an envelope: the standalone network's queue, or a core node's /tx on a
// followed network. The contract both keep, and what sendTransaction answers from it.
import type { TransactionEnvelope } from '../xdr/codec.ts';

/** The largest envelope accepted, in bytes (sendTransaction and the core-compatible /tx alike). */
export const MAX_ENVELOPE_BYTES = 1024 * 1024;

export type SubmitStatus = 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER' | 'ERROR';

export interface SubmitResult {
  status: SubmitStatus;
  hash: Uint8Array;                 // network hash of the envelope (outer hash for a fee bump)
  errorResult?: Uint8Array;         // TransactionResult XDR, status ERROR only
  diagnosticEvents?: Uint8Array[];  // DiagnosticEvent XDRs, status ERROR only
}

export interface TransactionSubmitter {
  /** `envelope` is `envelopeXdr` decoded (the caller has decoded it to check it: not done twice). */
  submit(envelopeXdr: Uint8Array, envelope: TransactionEnvelope): Promise<SubmitResult>;
}

/**
 * The submitter's backend failed in a way the API names: sendTransaction answers -32603 with
 * `answer` (the reference's words), the detail goes to the log.
 */
export class SubmitterError extends Error {
  readonly answer: string;
  constructor(answer: string, detail: string) {
    super(detail);
    this.answer = answer;
    this.name = 'SubmitterError';
  }
}
