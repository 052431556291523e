// TOIDs (SEP-35 "total order ids"): ledger << 32 | transaction order << 12 | operation order, as a
// signed 64-bit integer, with the reference's (go-stellar-sdk toid) masking and int32 fields.
// getTransactions' cursor is the TOID of a transaction with the operation field fixed at 1.

export interface Toid {
  ledger: number;      // int32
  transaction: number; // 20 bits, 1-based application order
  operation: number;   // 12 bits
}

export const TOID_TRANSACTION_MASK = 0xfffff;
export const TOID_OPERATION_MASK = 0xfff;

export const toidEncode = ({ ledger, transaction, operation }: Toid): bigint => toid(ledger, transaction, operation);

/**
 * toidEncode without the object, for hot paths (an event id for every event getEvents returns).
 * The low 32 bits are one number (exact: below 2^32), so only two BigInts are made.
 */
export function toid(ledger: number, transaction: number, operation: number): bigint {
  const low = (transaction & TOID_TRANSACTION_MASK) * 4096 + (operation & TOID_OPERATION_MASK);
  return BigInt.asIntN(64, (BigInt(ledger >>> 0) << 32n) | BigInt(low));
}

export function toidDecode(id: bigint): Toid {
  return {
    ledger: Number(BigInt.asIntN(32, (id >> 32n) & 0xffffffffn)),
    transaction: Number((id >> 12n) & BigInt(TOID_TRANSACTION_MASK)),
    operation: Number(id & BigInt(TOID_OPERATION_MASK)),
  };
}

/** The getTransactions cursor of a transaction: its TOID with operation 1, as unpadded decimal. */
export const transactionCursor = (ledger: number, applicationOrder: number): string =>
  toidEncode({ ledger, transaction: applicationOrder, operation: 1 }).toString();

/** The TOID before every transaction of `ledger` (transaction and operation 0): where its range starts. */
export const ledgerStartToid = (ledger: number): bigint => toidEncode({ ledger, transaction: 0, operation: 0 });
