// Ledger headers of the standalone network: how each follows the previous one, and its hash.
import { xdr } from '../xdr/xdr.ts';
import { sha256, type LedgerHeader } from '../xdr/codec.ts';

const SKIP_1 = 50, SKIP_2 = 5000, SKIP_3 = 50000, SKIP_4 = 500000;

export const headerHash = (h: LedgerHeader): Uint8Array => sha256(xdr.LedgerHeader.schema.encode(h));

export function nextHeader(prev: { header: LedgerHeader; hash: Uint8Array }, parts: {
  scpValue: xdr.StellarValueWire; txSetResultHash: Uint8Array; bucketListHash: Uint8Array; feePool: bigint; idPool: bigint;
  /** Upgraded header values (the previous ledger's when absent). */
  ledgerVersion?: number; baseFee?: number; baseReserve?: number; maxTxSetSize?: number;
}): LedgerHeader {
  const header: LedgerHeader = {
    ...prev.header,
    ledgerVersion: parts.ledgerVersion ?? prev.header.ledgerVersion,
    baseFee: parts.baseFee ?? prev.header.baseFee,
    baseReserve: parts.baseReserve ?? prev.header.baseReserve,
    maxTxSetSize: parts.maxTxSetSize ?? prev.header.maxTxSetSize,
    ledgerSeq: prev.header.ledgerSeq + 1,
    previousLedgerHash: prev.hash,
    scpValue: parts.scpValue,
    txSetResultHash: parts.txSetResultHash,
    bucketListHash: parts.bucketListHash,
    feePool: parts.feePool,
    idPool: parts.idPool,
    skipList: [...prev.header.skipList],
  };
  updateSkipList(header);
  return header;
}

/** stellar-core's skip list: bucket-list hashes of ledgers 50, 5000, 50000 and 500000 back. */
export function updateSkipList(h: Pick<LedgerHeader, 'ledgerSeq' | 'skipList' | 'bucketListHash'>): void {
  const seq = h.ledgerSeq;
  if (seq % SKIP_1 !== 0) return;
  const v = seq - SKIP_1;
  if (v > 0 && v % SKIP_2 === 0) {
    const w = seq - SKIP_2 - SKIP_1;
    if (w > 0 && w % SKIP_3 === 0) {
      const x = seq - SKIP_3 - SKIP_2 - SKIP_1;
      if (x > 0 && x % SKIP_4 === 0) h.skipList[3] = h.skipList[2];
      h.skipList[2] = h.skipList[1];
    }
    h.skipList[1] = h.skipList[0];
  }
  h.skipList[0] = h.bucketListHash;
}
