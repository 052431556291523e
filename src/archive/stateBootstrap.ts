// Fills a store with the ledger state of a history-archive checkpoint: a node following a network
// starts from it, then applies each later ledger's changes.
//
// Buckets are applied from the oldest content to the newest, straight into the store: later entries
// overwrite earlier ones and DEADENTRY removes, so no set of seen keys is kept in memory (pubnet has
// tens of millions of entries). The whole fill is one replaceState: a corrupt or missing bucket,
// detected at any point, leaves the store's previous state.
//
// Nothing of the archive is taken on trust. Before the store is touched, the checkpoint's bucket
// lists are checked against its ledger header (checkpointVerification.ts); each bucket's content
// is checked against its name as it streams, so a bucket that fails fails the whole fill.
//
// The hot archive (protocol 23 on) holds persistent contract entries evicted from the live state.
// They are stored too, so getLedgerEntries and simulation can find them and ask for a restore, but
// they never override the live state. Whether a key is live is read from its TTL entry, not from
// the entry itself: the store also holds archived copies put by older hot-archive buckets, while a
// TTL entry only ever comes from the live state, and every live contract entry has one. So, applying
// hot-archive buckets oldest to newest:
//   ARCHIVED  put the entry unless its TTL is live state (a newer archived copy replaces an older one);
//   LIVE      (the key was restored) remove the archived copy an older bucket put, unless its TTL is
//             live state; a marker never removes anything from the live state.
// Stored archived entries therefore have no TTL entry.
import type { StateSink, StoreWriter } from '../store/types.ts';
import { encodeLedgerKey, type LedgerEntry, type LedgerHeaderHistoryEntry } from '../xdr/codec.ts';
import { isPersistentKey, ledgerKeyOf, ttlKeyFor } from '../xdr/ledgerKeys.ts';
import { readHotArchiveBucket, readLiveBucket, BucketFormatError } from './bucketReader.ts';
import type { HistoryArchive } from './historyArchive.ts';
import { verifyCheckpoint } from './checkpointVerification.ts';
import { assertCheckpoint, bucketSlot, bucketsOldestFirst, type BucketLevel, type HistoryArchiveState } from './historyArchiveState.ts';

export interface BootstrapProgress {
  list: 'live' | 'hotArchive';
  bucket: string;
  /** The bucket's position among the list's non-empty buckets, in apply order (0 = oldest). */
  index: number;
  buckets: number;
  /** Uncompressed bytes and records read from this bucket so far. */
  bytes: number;
  entries: number;
  done: boolean;
}

export interface BootstrapOptions {
  /** Refuse an archive whose state names another network (checked before the store is touched). */
  networkPassphrase?: string;
  /** Records between progress reports within a bucket; default 65536. */
  progressEvery?: number;
}

export interface BootstrapResult {
  checkpoint: number;
  state: HistoryArchiveState;
  /** The checkpoint ledger's header entry, verified to commit to the state that was filled in. */
  header: LedgerHeaderHistoryEntry;
  /** Records applied (all kinds, meta excluded) and uncompressed bytes read, over all buckets. */
  entries: number;
  bytes: number;
}

/**
 * Replaces the store's ledger state with the state at `checkpointLedger` (default: the archive's
 * latest checkpoint). Keys are stored as LedgerKey XDR, entries as LedgerEntry XDR, lastModified as
 * the entry's lastModifiedLedgerSeq.
 */
export async function bootstrapState(
  store: Pick<StoreWriter, 'replaceState'>,
  archive: HistoryArchive,
  checkpointLedger?: number,
  onProgress?: (p: BootstrapProgress) => void,
  options: BootstrapOptions = {},
): Promise<BootstrapResult> {
  if (checkpointLedger !== undefined) assertCheckpoint(checkpointLedger);
  const state = checkpointLedger === undefined ? await archive.rootState() : await archive.checkpointState(checkpointLedger);
  assertCheckpoint(state.currentLedger);
  const wanted = options.networkPassphrase;
  if (wanted !== undefined && state.networkPassphrase !== undefined && state.networkPassphrase !== wanted) {
    throw new Error(`${archive.description} is an archive of "${state.networkPassphrase}", not of "${wanted}"`);
  }
  const { header } = await verifyCheckpoint(archive, state);

  const every = options.progressEvery ?? 65536;
  const totals = { entries: 0, bytes: 0 };
  await store.replaceState(state.currentLedger, async (sink) => {
    const live = bucketsOldestFirst(state.currentBuckets);
    for (const [index, hash] of live.entries()) {
      const p = progressOf('live', hash, index, live.length);
      for await (const r of readLiveBucket(counted(archive.bucket(hash, named('live', state.currentBuckets, hash)), p), `bucket ${hash}`, archive.recordCap)) {
        if (r.kind === 'meta') continue;
        if (r.kind === 'dead') sink.remove(r.keyXdr);
        else sink.put(encodeLedgerKey(ledgerKeyOf(r.entry.data)), r.entryXdr, r.entry.lastModifiedLedgerSeq);
        tick(p);
      }
      finish(p);
    }
    const hot = bucketsOldestFirst(state.hotArchiveBuckets ?? []);
    for (const [index, hash] of hot.entries()) {
      const p = progressOf('hotArchive', hash, index, hot.length);
      const what = `hot-archive bucket ${hash}`;
      for await (const r of readHotArchiveBucket(counted(archive.bucket(hash, named('hot-archive', state.hotArchiveBuckets!, hash)), p), what, archive.recordCap)) {
        if (r.kind === 'meta') continue;
        if (r.kind === 'archived') putArchived(sink, r.entry, r.entryXdr, what);
        else if (!sink.has(encodeLedgerKey(ttlKeyFor(r.key)))) sink.remove(r.keyXdr);
        tick(p);
      }
      finish(p);
    }
  });
  return { checkpoint: state.currentLedger, state, header, ...totals };

  function progressOf(list: BootstrapProgress['list'], bucket: string, index: number, buckets: number): BootstrapProgress {
    const p: BootstrapProgress = { list, bucket, index, buckets, bytes: 0, entries: 0, done: false };
    onProgress?.({ ...p });
    return p;
  }
  function tick(p: BootstrapProgress): void {
    p.entries++;
    totals.entries++;
    if (onProgress && p.entries % every === 0) onProgress({ ...p });
  }
  function finish(p: BootstrapProgress): void {
    p.done = true;
    totals.bytes += p.bytes;
    onProgress?.({ ...p });
  }
}

function putArchived(sink: StateSink, entry: LedgerEntry, entryXdr: Uint8Array, what: string): void {
  const key = ledgerKeyOf(entry.data);
  // Anything else would be put over live state unchecked (only contract entries have TTLs).
  if (!isPersistentKey(key)) throw new BucketFormatError(`${what}: archived entry of type ${entry.data.type}; only persistent contract data and contract code can be archived`);
  if (sink.has(encodeLedgerKey(ttlKeyFor(key)))) return;
  sink.put(encodeLedgerKey(key), entryXdr, entry.lastModifiedLedgerSeq);
}

/** A bucket as errors name it: its list, its place there, its hash. */
const named = (list: string, levels: readonly BucketLevel[], hash: string): string => `the ${list} bucket list's ${bucketSlot(levels, hash)}, bucket ${hash},`;

/** Passes chunks through, counting their bytes into the progress record. */
async function* counted(chunks: AsyncIterable<Uint8Array>, p: BootstrapProgress): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    p.bytes += chunk.length;
    yield chunk;
  }
}
