// Checks that a history-archive checkpoint is the network's, before any of its state is used: the
// checkpoint's ledger headers hash to the hashes their entries claim and chain onto each other, and
// the bucket lists the checkpoint's state (HAS) names hash to the checkpoint ledger's header
// bucketListHash (rules in bucketListHash.ts). What is left, each bucket's content against its
// name, is checked as the bucket streams (HistoryArchive.bucket): buckets run to gigabytes.
//
// The header itself is trusted as the archive's: whoever reads it later checks it against what
// they know of the network (a follower's next ledger names it as its previous ledger, see
// src/ingest/verifiedLedger.ts).
import { xdr } from '../xdr/xdr.ts';
import { bytesEqual, sha256, toHex, type LedgerHeaderHistoryEntry } from '../xdr/codec.ts';
import { ArchiveVerificationError, type HistoryArchive } from './historyArchive.ts';
import { FIRST_PROTOCOL_WITH_HOT_ARCHIVE, stateHashes } from './bucketListHash.ts';
import { HAS_VERSION_WITH_HOT_ARCHIVE, checkpointFilePath, type HistoryArchiveState } from './historyArchiveState.ts';

export interface VerifiedCheckpoint {
  /** The checkpoint ledger's header entry, whose hash and bucketListHash were checked. */
  header: LedgerHeaderHistoryEntry;
}

/** Throws an ArchiveVerificationError, one line naming what does not match, unless `has` is its checkpoint's. */
export async function verifyCheckpoint(archive: HistoryArchive, has: HistoryArchiveState): Promise<VerifiedCheckpoint> {
  const checkpoint = has.currentLedger;
  const where = `${archive.description}: checkpoint ${checkpoint}`;
  const headers = await archive.ledgerHeaders(checkpoint).catch((e: unknown) => {
    throw new ArchiveVerificationError(`${where} cannot be verified: ${(e as Error).message}`);
  });
  let previous: LedgerHeaderHistoryEntry | undefined;
  for (const entry of headers) {
    const seq = entry.header.ledgerSeq;
    const actual = sha256(xdr.LedgerHeader.schema.encode(entry.header));
    if (!bytesEqual(actual, entry.hash)) {
      throw new ArchiveVerificationError(`${where}: ledger ${seq}'s header hashes to ${toHex(actual)}, its entry in ${checkpointFilePath('ledger', checkpoint)} says ${toHex(entry.hash)}`);
    }
    if (previous && !bytesEqual(entry.header.previousLedgerHash, previous.hash)) {
      throw new ArchiveVerificationError(`${where}: ledger ${seq}'s header names ${toHex(entry.header.previousLedgerHash)} as its previous ledger, but ledger ${seq - 1} hashes to ${toHex(previous.hash)}`);
    }
    previous = entry;
  }
  const header = headers[headers.length - 1];
  const protocol = header.header.ledgerVersion;
  // core writes a version-2 state exactly when the header commits to a hot archive
  const headerHasHotArchive = protocol >= FIRST_PROTOCOL_WITH_HOT_ARCHIVE;
  if (headerHasHotArchive !== (has.version >= HAS_VERSION_WITH_HOT_ARCHIVE)) {
    throw new ArchiveVerificationError(`${where}: ledger ${checkpoint} is protocol ${protocol}, whose header commits to ${headerHasHotArchive ? 'a live and a hot-archive' : 'only a live'} bucket list, `
      + `but the state (version ${has.version}) names ${has.version >= HAS_VERSION_WITH_HOT_ARCHIVE ? 'both' : 'only a live one'}`);
  }
  const hashes = stateHashes(has);
  const expected = toHex(header.header.bucketListHash);
  if (hashes.bucketListHash !== expected) {
    const lists = hashes.hotArchive === undefined
      ? `the live bucket list hashes to ${hashes.live}`
      : `the live and hot-archive bucket lists hash to ${hashes.bucketListHash} (live ${hashes.live}, hot archive ${hashes.hotArchive})`;
    throw new ArchiveVerificationError(`${where}: ${lists}, but ledger ${checkpoint}'s header has bucketListHash ${expected}`);
  }
  return { header };
}
