// Claimable balance entries (CAP-23): their ids, keys and flags, shared by the operations that
// create, claim and claw them back.
import { xdr } from '../xdr/xdr.ts';
import { sha256, type AccountId, type Asset, type LedgerEntry, type LedgerKey } from '../xdr/codec.ts';
import type { LedgerTxn } from './ledgerTxn.ts';

export type ClaimableBalanceId = xdr.ClaimableBalanceIdWire;
export type ClaimableBalanceEntry = xdr.ClaimableBalanceEntryWire;

const ENVELOPE_TYPE_OP_ID = 6;
const CLAIMABLE_BALANCE_ID_TYPE_V0 = 0;

/** ClaimableBalanceFlags: the issuer may claw the balance back (CAP-35). */
export const CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG = 0x1;

/**
 * The id of the balance an operation creates: sha256 of the HashIDPreimage OP_ID arm naming the
 * operation by its transaction's source account and sequence number (the inner transaction's, for a
 * fee bump) and its index. Unique because a sequence number is consumed only once.
 */
export function claimableBalanceIdOf(txSource: AccountId, txSeqNum: bigint, opIndex: number): ClaimableBalanceId {
  const preimage = xdr.HashIdPreimage.schema.encode({
    type: ENVELOPE_TYPE_OP_ID,
    operationId: { sourceAccount: txSource, seqNum: txSeqNum, opNum: opIndex },
  });
  return { type: CLAIMABLE_BALANCE_ID_TYPE_V0, v0: sha256(preimage) };
}

/** A placeholder id (all zeros): what a result carries before its operation has run. */
export const zeroClaimableBalanceId = (): ClaimableBalanceId => ({ type: CLAIMABLE_BALANCE_ID_TYPE_V0, v0: new Uint8Array(32) });

export const claimableBalanceKey = (balanceId: ClaimableBalanceId): LedgerKey => ({ type: 4, claimableBalance: { balanceId } });

export const loadClaimableBalance = (ltx: LedgerTxn, balanceId: ClaimableBalanceId): LedgerEntry | undefined =>
  ltx.load(claimableBalanceKey(balanceId));

export function claimableBalanceOf(e: LedgerEntry): ClaimableBalanceEntry {
  if (e.data.type !== 4) throw new Error('expected a claimable balance entry');
  return e.data.claimableBalance;
}

export const isClawbackEnabledOnClaimableBalance = (cb: ClaimableBalanceEntry): boolean =>
  cb.ext.v === 1 && (cb.ext.v1.flags & CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG) !== 0;

/** A new balance entry; a clawback-enabled one carries the flag in its extension. */
export function claimableBalanceEntry(ledgerSeq: number, balanceId: ClaimableBalanceId, claimants: xdr.ClaimantWire[],
  asset: Asset, amount: bigint, clawbackEnabled: boolean): LedgerEntry {
  return {
    lastModifiedLedgerSeq: ledgerSeq,
    data: {
      type: 4,
      claimableBalance: {
        balanceId, claimants, asset, amount,
        ext: clawbackEnabled ? { v: 1, v1: { ext: { v: 0 }, flags: CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG } } : { v: 0 },
      },
    },
    ext: { v: 0 },
  };
}
