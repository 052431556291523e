// Transaction envelopes: their network hashes and the parts both the engine and ingestion need.
import { xdr } from './xdr.ts';
import { encodeXdr, sha256, type TransactionEnvelope } from './codec.ts';

type Transaction = xdr.TransactionWire;

/** A V0 envelope's transaction as the V1 transaction it is hashed and validated as. */
export function v0ToTransaction(v0: xdr.TransactionV0Wire): Transaction {
  return {
    sourceAccount: { type: 0, ed25519: v0.sourceAccountEd25519 },
    fee: v0.fee,
    seqNum: v0.seqNum,
    cond: v0.timeBounds ? { type: 1, timeBounds: v0.timeBounds } : { type: 0 },
    memo: v0.memo,
    operations: v0.operations,
    ext: { v: 0 },
  };
}

/** The transaction an envelope carries (the inner one of a fee bump), in V1 form. */
export function innerTransaction(env: TransactionEnvelope): Transaction {
  switch (env.type) {
    case 0: return v0ToTransaction(env.v0.tx);
    case 2: return env.v1.tx;
    case 5: return env.feeBump.tx.innerTx.v1.tx;
  }
}

/** sha256 of the TransactionSignaturePayload: what is signed and what identifies the transaction. */
export function transactionHash(networkId: Uint8Array, env: TransactionEnvelope): Uint8Array {
  const tagged: xdr.TransactionSignaturePayloadTaggedTransactionWire = env.type === 5
    ? { type: 5, feeBump: env.feeBump.tx }
    : { type: 2, tx: innerTransaction(env) };
  return sha256(encodeXdr(xdr.TransactionSignaturePayload.schema, { networkId, taggedTransaction: tagged }));
}

/** The inner transaction's own hash, for fee bumps. */
export function innerTransactionHash(networkId: Uint8Array, env: TransactionEnvelope): Uint8Array | null {
  if (env.type !== 5) return null;
  return sha256(encodeXdr(xdr.TransactionSignaturePayload.schema, {
    networkId, taggedTransaction: { type: 2, tx: env.feeBump.tx.innerTx.v1.tx },
  }));
}

export const decodeEnvelope = (b: Uint8Array): TransactionEnvelope => xdr.TransactionEnvelope.schema.decode(b);
export const encodeEnvelope = (e: TransactionEnvelope): Uint8Array => encodeXdr(xdr.TransactionEnvelope.schema, e);

export const isSuccessfulResult = (r: xdr.TransactionResultWire): boolean => r.result.code === 0 || r.result.code === 1;
