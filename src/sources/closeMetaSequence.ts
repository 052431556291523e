// The header of an encoded LedgerCloseMeta, read without decoding the rest. Sources check every
// ledger they hand out against the sequence they expect, and getLedgers serves datastore ledgers
// with their header: decoding the whole meta for that would cost tens of milliseconds for a busy
// pubnet ledger, the header takes microseconds.
import { xdr } from '../xdr/xdr.ts';
import { Reader } from '@stellar/js-xdr';

export interface CloseMetaHeader {
  entry: xdr.LedgerHeaderHistoryEntryWire;
  /** The LedgerHeaderHistoryEntry's XDR, sliced from the meta (XDR is canonical: as it would encode). */
  bytes: Uint8Array;
}

/** Throws (naming `what`) when the bytes do not start with a LedgerCloseMeta header. */
export function closeMetaHeader(lcm: Uint8Array, what: string): CloseMetaHeader {
  try {
    const reader = new Reader(lcm);
    // Every version is `int v`, then (V1 and later) a LedgerCloseMetaExt, then the header entry.
    const v = reader.readInt32('v');
    if (v < 0 || v > 2) throw new Error(`unknown LedgerCloseMeta version ${v}`);
    if (v > 0) xdr.LedgerCloseMetaExt.schema._read(reader, 'ext');
    const from = reader.offset;
    const entry = xdr.LedgerHeaderHistoryEntry.schema._read(reader, 'ledgerHeader');
    return { entry, bytes: lcm.subarray(from, reader.offset) };
  } catch (e) {
    throw new Error(`${what}: not a LedgerCloseMeta (${(e as Error).message})`);
  }
}

/** The ledger sequence of an encoded LedgerCloseMeta; throws (naming `what`) when it is not one. */
export function ledgerSequenceOf(lcm: Uint8Array, what: string): number {
  return closeMetaHeader(lcm, what).entry.header.ledgerSeq;
}
