// One ledger from an outside source, checked before anything of it is stored: it decodes, its
// header hashes to the hash it claims, it is the ledger the source said, and it chains onto the
// ledger stored before it, or onto the checkpoint the state came from. Transaction hashes are
// recomputed under our passphrase when ingestion matches results to envelopes, so a ledger of
// another network fails there.
import { xdr } from '../xdr/xdr.ts';
import { bytesEqual, sha256, toHex } from '../xdr/codec.ts';
import type { RawLedger } from '../sources/ledgerSource.ts';
import type { IngestBatch } from '../store/types.ts';

export class CorruptLedgerError extends Error {}

/**
 * A ledger whose hash is known from elsewhere: the checkpoint a follower's state was bootstrapped
 * from, whose header the history archive gave and checkpointVerification.ts checked.
 */
export interface KnownLedger { sequence: number; hash: Uint8Array }

/**
 * `batch` (converted from `raw`) after the checks above; throws CorruptLedgerError otherwise.
 * With `known`, the ledger of that sequence must have that hash, and the one after it must chain
 * onto it when it is the first stored: the ledgers and the state are then the same network's.
 */
export function verifiedLedgerBatch(raw: RawLedger, batch: IngestBatch, previousHash: Uint8Array | undefined, known?: KnownLedger): IngestBatch {
  // Only the header is decoded here: the rest was decoded once, by the batch builder.
  const entry = xdr.LedgerHeaderHistoryEntry.schema.decode(batch.ledger.header);
  const header = entry.header;
  if (header.ledgerSeq !== raw.sequence) {
    throw new CorruptLedgerError(`ledger ${raw.sequence}: the meta holds ledger ${header.ledgerSeq}`);
  }
  const computed = sha256(xdr.LedgerHeader.schema.encode(header));
  if (!bytesEqual(computed, entry.hash)) {
    throw new CorruptLedgerError(`ledger ${raw.sequence}: header hashes to ${toHex(computed)}, the meta says ${toHex(entry.hash)}`);
  }
  if (known && header.ledgerSeq === known.sequence && !bytesEqual(entry.hash, known.hash)) {
    throw new CorruptLedgerError(`ledger ${raw.sequence}: hashes to ${toHex(entry.hash)}, but the history archive's checkpoint header for it hashes to ${toHex(known.hash)}`);
  }
  if (previousHash && !bytesEqual(header.previousLedgerHash, previousHash)) {
    throw new CorruptLedgerError(`ledger ${raw.sequence}: previous ledger hash ${toHex(header.previousLedgerHash)} does not match the stored ledger ${raw.sequence - 1} (${toHex(previousHash)})`);
  }
  if (!previousHash && known && header.ledgerSeq === known.sequence + 1 && !bytesEqual(header.previousLedgerHash, known.hash)) {
    throw new CorruptLedgerError(`ledger ${raw.sequence}: previous ledger hash ${toHex(header.previousLedgerHash)} does not match the history archive's checkpoint ${known.sequence} (${toHex(known.hash)})`);
  }
  return batch;
}
