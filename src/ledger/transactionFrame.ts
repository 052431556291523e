// A submitted envelope, decoded once, with what validation and apply keep asking about it.
import type { xdr } from '@stellar/stellar-sdk';
import { muxedToAccountId, toHex, type AccountId, type MuxedAccount, type TransactionEnvelope } from '../xdr/codec.ts';
import { innerTransaction, innerTransactionHash, transactionHash } from '../xdr/transactions.ts';

export interface FeeBumpPart {
  feeSource: MuxedAccount;
  feeSourceId: AccountId;
  fee: bigint;
  signatures: xdr.DecoratedSignatureWire[];
}

export interface TransactionFrame {
  envelope: TransactionEnvelope;
  /** The envelope's XDR as submitted, when known: stored as is instead of re-encoded. */
  envelopeXdr?: Uint8Array;
  hash: Uint8Array;          // network hash (outer hash for a fee bump)
  hashHex: string;
  innerHash: Uint8Array;     // the inner transaction's hash (= hash unless fee bump)
  tx: xdr.TransactionWire;   // the (inner) transaction in V1 form
  signatures: xdr.DecoratedSignatureWire[]; // of the (inner) transaction
  sourceId: AccountId;
  feeBump: FeeBumpPart | null;
  /** Who pays, and how much at most. */
  feeSourceId: AccountId;
  declaredFee: bigint;
  /** Operations the fee is counted over: a fee bump counts one more. */
  feeOps: number;
}

export function frameOf(envelope: TransactionEnvelope, networkId: Uint8Array): TransactionFrame {
  const tx = innerTransaction(envelope);
  const hash = transactionHash(networkId, envelope);
  const sourceId = muxedToAccountId(tx.sourceAccount);
  const signatures = envelope.type === 0 ? envelope.v0.signatures : envelope.type === 2 ? envelope.v1.signatures : envelope.feeBump.tx.innerTx.v1.signatures;
  if (envelope.type === 5) {
    const fb = envelope.feeBump;
    const feeSourceId = muxedToAccountId(fb.tx.feeSource);
    return {
      envelope, hash, hashHex: toHex(hash), innerHash: innerTransactionHash(networkId, envelope)!, tx, signatures, sourceId,
      feeBump: { feeSource: fb.tx.feeSource, feeSourceId, fee: fb.tx.fee, signatures: fb.signatures },
      feeSourceId, declaredFee: fb.tx.fee, feeOps: tx.operations.length + 1,
    };
  }
  return {
    envelope, hash, hashHex: toHex(hash), innerHash: hash, tx, signatures, sourceId, feeBump: null,
    feeSourceId: sourceId, declaredFee: BigInt(tx.fee), feeOps: tx.operations.length,
  };
}

/** Fee actually charged when the ledger's base fee is `baseFee`: never more than was offered. */
export function chargedFee(frame: TransactionFrame, baseFee: number): bigint {
  const due = BigInt(baseFee) * BigInt(frame.feeOps);
  return due < frame.declaredFee ? due : frame.declaredFee;
}

/** The fee per operation offered, for ordering and replace-by-fee. */
export const feeRate = (frame: TransactionFrame): number => Number(frame.declaredFee) / frame.feeOps;
