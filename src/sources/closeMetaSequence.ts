// The ledger sequence of an encoded LedgerCloseMeta, read from its header alone. Sources check every
// ledger they hand out against the sequence they expect; decoding the whole meta for that would cost
// tens of milliseconds for a busy pubnet ledger, the header takes microseconds.
import { xdr } from '@stellar/stellar-sdk';
import { Reader } from '@stellar/js-xdr';

/** Throws (naming `what`) when the bytes do not start with a LedgerCloseMeta header. */
export function ledgerSequenceOf(lcm: Uint8Array, what: string): number {
  try {
    const reader = new Reader(lcm);
    // Every version is `int v`, then (V1 and later) a LedgerCloseMetaExt, then the header entry.
    const v = reader.readInt32('v');
    if (v < 0 || v > 2) throw new Error(`unknown LedgerCloseMeta version ${v}`);
    if (v > 0) xdr.LedgerCloseMetaExt.schema._read(reader, 'ext');
    return xdr.LedgerHeaderHistoryEntry.schema._read(reader, 'ledgerHeader').header.ledgerSeq;
  } catch (e) {
    throw new Error(`${what}: not a LedgerCloseMeta (${(e as Error).message})`);
  }
}
