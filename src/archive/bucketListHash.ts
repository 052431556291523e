// How a ledger header commits to the ledger state: its bucketListHash, computed from the bucket
// hashes a history-archive state (HAS) names. The rules, as stellar-core applies them:
//   - a bucket's hash is the SHA-256 of its uncompressed file content (every record with its 4-byte
//     record mark); an empty bucket is the zero hash and has no file
//     (BucketOutputIterator::getBucket, XDROutputFileStream::writeOne);
//   - a level's hash is SHA-256(curr || snap) (BucketLevel::getHash);
//   - a bucket list's hash is SHA-256 over its 11 levels' hashes, level 0 first
//     (BucketListBase::getHash);
//   - the header's bucketListHash is the live list's hash before protocol 23, and from protocol 23
//     (HAS version 2) SHA-256(live list hash || hot-archive list hash)
//     (BucketManager::snapshotLedger; HistoryArchiveState::getBucketListHash does the same from a HAS).
// Pending merges (`next`) take no part in any of these.
import { sha256, toHex } from '../xdr/codec.ts';
import { HAS_VERSION_WITH_HOT_ARCHIVE, type BucketLevel, type HistoryArchiveState } from './historyArchiveState.ts';

/** The protocol whose headers commit to the hot archive too (core's FIRST_PROTOCOL_SUPPORTING_PERSISTENT_EVICTION). */
export const FIRST_PROTOCOL_WITH_HOT_ARCHIVE = 23;

export interface StateHashes {
  /** The live bucket list's hash. */
  live: string;
  /** The hot archive's bucket list hash (HAS version 2 only). */
  hotArchive?: string;
  /** What the checkpoint ledger's header must carry as bucketListHash. */
  bucketListHash: string;
}

/** The hashes the bucket lists of `has` give (hex), by core's rules above. */
export function stateHashes(has: Pick<HistoryArchiveState, 'version' | 'currentBuckets' | 'hotArchiveBuckets'>): StateHashes {
  const live = bucketListHash(has.currentBuckets);
  if (has.version < HAS_VERSION_WITH_HOT_ARCHIVE) return { live: toHex(live), bucketListHash: toHex(live) };
  const hot = bucketListHash(has.hotArchiveBuckets ?? []);
  return { live: toHex(live), hotArchive: toHex(hot), bucketListHash: toHex(sha256(live, hot)) };
}

export function bucketListHash(levels: readonly BucketLevel[]): Uint8Array {
  return sha256(...levels.map((level) => sha256(hashBytes(level.curr), hashBytes(level.snap))));
}

const hashBytes = (hex: string): Uint8Array => Buffer.from(hex, 'hex');
