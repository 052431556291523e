// The buckets the standalone network publishes for a state, and the bucket-list hash they give:
// the live state as ONE bucket at level 0 curr of the live list, and from protocol 23 the archived
// entries as one bucket at level 0 curr of the hot archive (every other level empty). The publisher
// (archivePublisher.ts) writes these buckets; the standalone network puts the hash they give in a
// checkpoint ledger's header (src/standalone/checkpointCommitment.ts), so what it publishes passes
// the checks any reader makes (checkpointVerification.ts). Both go through the functions here, so
// the bytes written and the bytes hashed cannot differ.
import { createHash } from 'node:crypto';
import { xdr } from '../xdr/xdr.ts';
import { frameRecord } from '../io/recordMarked.ts';
import { decodeLedgerKey, sha256, toHex } from '../xdr/codec.ts';
import { EntryType, isPersistentKey, ledgerKeyType } from '../xdr/ledgerKeys.ts';
import type { StoreReader } from '../store/types.ts';
import { FIRST_PROTOCOL_WITH_HOT_ARCHIVE, stateHashes } from './bucketListHash.ts';
import {
  HAS_VERSION_BEFORE_HOT_ARCHIVE, HAS_VERSION_WITH_HOT_ARCHIVE, ZERO_HASH, emptyBucketLevels, type HistoryArchiveState,
} from './historyArchiveState.ts';

/** What the published buckets are read from: a store, or a store with a ledger's writes over it. */
export type StateSource = Pick<StoreReader, 'allEntries' | 'entriesOfTypes'>;

/** Protocols that write a METAENTRY first in every bucket (11), and that name the bucket list in it (23). */
const FIRST_PROTOCOL_WITH_METAENTRY = 11;
const LIVE_BUCKET_LIST = 0;
const HOT_ARCHIVE_BUCKET_LIST = 1;
const LIVEENTRY = new Uint8Array([0, 0, 0, 0]);
const HOT_ARCHIVE_ARCHIVED = new Uint8Array([0, 0, 0, 0]);
const { CONTRACT_DATA, CONTRACT_CODE, TTL } = EntryType;

export interface StateBucketRecords {
  /** The live bucket's records (unframed), in key order: consume it before `hot`. */
  live: Iterable<Uint8Array>;
  /** The hot-archive bucket's records: empty before protocol 23 or when nothing is archived. */
  hot(): Uint8Array[];
  /** LIVEENTRY records `live` gave so far. */
  liveEntries(): number;
}

/**
 * The records of the published buckets of `source`'s state. The live bucket holds every entry
 * except the archived ones (persistent contract entries stored without a TTL: evicted), which go
 * to the hot-archive bucket from protocol 23.
 */
export function stateBucketRecords(source: StateSource, protocolVersion: number): StateBucketRecords {
  const withHotArchive = protocolVersion >= FIRST_PROTOCOL_WITH_HOT_ARCHIVE;
  const metaEntry = (bucketListType: number): Uint8Array[] => (protocolVersion >= FIRST_PROTOCOL_WITH_METAENTRY ? [xdr.BucketEntry.schema.encode({
    type: -1,
    metaEntry: { ledgerVersion: protocolVersion, ext: withHotArchive ? { v: 1, bucketListType } : { v: 0 } },
  })] : []);
  // TTL keys sort after every contract key, so which entries have one is known only after a first pass
  const ttlHashes = new Set<string>();
  if (withHotArchive) {
    for (const e of source.entriesOfTypes(TTL, TTL)) ttlHashes.add(toHex(e.key.subarray(4, 36)));
  }
  const isArchived = (key: Uint8Array): boolean => {
    const type = ledgerKeyType(key);
    if (!withHotArchive || (type !== CONTRACT_CODE && type !== CONTRACT_DATA)) return false;
    return isPersistentKey(decodeLedgerKey(key)) && !ttlHashes.has(toHex(sha256(key)));
  };
  // archived entries are set aside while the live bucket is read (they are few: evicted ones)
  const archived: Uint8Array[] = [];
  let entries = 0;
  function* live(): Generator<Uint8Array> {
    yield* metaEntry(LIVE_BUCKET_LIST);
    for (const e of source.allEntries()) {
      if (isArchived(e.key)) { archived.push(e.entry); continue; }
      // A LIVEENTRY is its discriminant followed by the LedgerEntry XDR, which the store holds as is.
      yield Buffer.concat([LIVEENTRY, e.entry]);
      entries++;
    }
  }
  return {
    live: live(),
    hot: () => (archived.length === 0 ? [] : [
      ...metaEntry(HOT_ARCHIVE_BUCKET_LIST),
      ...archived.map((entry) => Buffer.concat([HOT_ARCHIVE_ARCHIVED, entry])),
    ]),
    liveEntries: () => entries,
  };
}

/**
 * A bucket's hash: the sha256 of its content, each record framed (record mark included); the zero
 * hash for an empty bucket (core writes no file for it). `onFramed` sees each framed record.
 */
export function bucketHash(records: Iterable<Uint8Array>, onFramed?: (framed: Uint8Array) => void): string {
  const digest = createHash('sha256');
  let empty = true;
  for (const record of records) {
    const framed = frameRecord(record);
    digest.update(framed);
    onFramed?.(framed);
    empty = false;
  }
  return empty ? ZERO_HASH : digest.digest('hex');
}

/** The HAS bucket lists that name the two published buckets (the version follows the protocol). */
export function publishedBucketLists(liveHash: string, hotHash: string, protocolVersion: number):
  Pick<HistoryArchiveState, 'version' | 'currentBuckets' | 'hotArchiveBuckets'> {
  const lists: Pick<HistoryArchiveState, 'version' | 'currentBuckets' | 'hotArchiveBuckets'> = {
    version: protocolVersion >= FIRST_PROTOCOL_WITH_HOT_ARCHIVE ? HAS_VERSION_WITH_HOT_ARCHIVE : HAS_VERSION_BEFORE_HOT_ARCHIVE,
    currentBuckets: emptyBucketLevels(),
  };
  lists.currentBuckets[0].curr = liveHash;
  if (lists.version === HAS_VERSION_WITH_HOT_ARCHIVE) {
    lists.hotArchiveBuckets = emptyBucketLevels();
    lists.hotArchiveBuckets[0].curr = hotHash;
  }
  return lists;
}

/**
 * The header bucketListHash of `source`'s state as the network publishes it: what a checkpoint
 * ledger's header must carry for its published checkpoint to verify. Reads (and hashes) the whole
 * state, writing nothing.
 */
export function publishedBucketListHash(source: StateSource, protocolVersion: number): Uint8Array {
  const records = stateBucketRecords(source, protocolVersion);
  const live = bucketHash(records.live);
  const hot = bucketHash(records.hot());
  return Buffer.from(stateHashes(publishedBucketLists(live, hot, protocolVersion)).bucketListHash, 'hex');
}
