// A submitted envelope, decoded once, with what validation and apply keep asking about it.
import type { xdr } from '../xdr/xdr.ts';
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
  /** The (inner) transaction's Soroban resources and resource fee; null for classic transactions. */
  sorobanData: xdr.SorobanTransactionDataWire | null;
  /** sorobanData.resourceFee for Soroban transactions, else 0. */
  resourceFee: bigint;
  /** The transaction holds a Soroban operation (then it holds only that one). */
  isSoroban: boolean;
}

export function frameOf(envelope: TransactionEnvelope, networkId: Uint8Array): TransactionFrame {
  const tx = innerTransaction(envelope);
  const hash = transactionHash(networkId, envelope);
  const sourceId = muxedToAccountId(tx.sourceAccount);
  const sorobanData = tx.ext.v === 1 ? tx.ext.sorobanData : null;
  const hasSorobanOp = tx.operations.some((op) => op.body.type === 24 || op.body.type === 25 || op.body.type === 26);
  const soroban = { sorobanData, resourceFee: sorobanData && hasSorobanOp ? sorobanData.resourceFee : 0n, isSoroban: hasSorobanOp };
  const signatures = envelope.type === 0 ? envelope.v0.signatures : envelope.type === 2 ? envelope.v1.signatures : envelope.feeBump.tx.innerTx.v1.signatures;
  if (envelope.type === 5) {
    const fb = envelope.feeBump;
    const feeSourceId = muxedToAccountId(fb.tx.feeSource);
    return {
      envelope, hash, hashHex: toHex(hash), innerHash: innerTransactionHash(networkId, envelope)!, tx, signatures, sourceId,
      feeBump: { feeSource: fb.tx.feeSource, feeSourceId, fee: fb.tx.fee, signatures: fb.signatures },
      feeSourceId, declaredFee: fb.tx.fee, feeOps: tx.operations.length + 1, ...soroban,
    };
  }
  return {
    envelope, hash, hashHex: toHex(hash), innerHash: hash, tx, signatures, sourceId, feeBump: null,
    feeSourceId: sourceId, declaredFee: BigInt(tx.fee), feeOps: tx.operations.length, ...soroban,
  };
}

/**
 * Fee charged up front when the ledger's base fee is `baseFee`: the whole declared resource fee
 * (its refundable part comes back after apply) plus the inclusion fee, never more than was offered.
 */
export const chargedFee = (frame: TransactionFrame, baseFee: number): bigint =>
  feeAtBaseFee(frame.declaredFee, frame.resourceFee, frame.feeOps, BigInt(baseFee));

/** A bid of `declared` over `ops` operations charged at `baseFee`: the resource fee, plus the inclusion fee up to the bid. */
export function feeAtBaseFee(declared: bigint, resourceFee: bigint, ops: number, baseFee: bigint): bigint {
  const inclusion = declared - resourceFee;
  const due = baseFee * BigInt(ops);
  return resourceFee + (due < inclusion ? due : inclusion);
}

/** The inclusion fee per operation offered, for ordering and replace-by-fee. */
export const feeRate = (frame: TransactionFrame): number => Number(frame.declaredFee - frame.resourceFee) / frame.feeOps;
