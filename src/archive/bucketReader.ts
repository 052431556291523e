// The entries of a bucket file (uncompressed): record-marked XDR, one BucketEntry (live bucket list)
// or HotArchiveBucketEntry (hot archive) per record, optionally led by a METAENTRY. Streams: real
// buckets run to gigabytes, so nothing beyond the record being decoded is held.
import { xdr } from '../xdr/xdr.ts';
import { readRecords } from '../io/recordMarked.ts';
import type { ByteCap } from '../io/inputCaps.ts';
import type { LedgerEntry, LedgerKey } from '../xdr/codec.ts';

export type BucketMetadata = xdr.BucketMetadataWire;

/** Live bucket-list records. `entryXdr`/`keyXdr` are the LedgerEntry/LedgerKey XDR exactly as stored in the bucket. */
export type LiveBucketRecord =
  | { kind: 'meta'; meta: BucketMetadata }
  | { kind: 'live' | 'init'; entry: LedgerEntry; entryXdr: Uint8Array }
  | { kind: 'dead'; key: LedgerKey; keyXdr: Uint8Array };

/** Hot-archive records: an archived persistent contract entry, or a marker that the key is live again. */
export type HotArchiveRecord =
  | { kind: 'meta'; meta: BucketMetadata }
  | { kind: 'archived'; entry: LedgerEntry; entryXdr: Uint8Array }
  | { kind: 'live'; key: LedgerKey; keyXdr: Uint8Array };

/** BucketEntryType / HotArchiveBucketEntryType discriminants, and BucketListType values. */
const LIVEENTRY = 0, DEADENTRY = 1, INITENTRY = 2, METAENTRY = -1;
const HOT_ARCHIVE_ARCHIVED = 0, HOT_ARCHIVE_LIVE = 1, HOT_ARCHIVE_METAENTRY = -1;
const LIVE_LIST = 0, HOT_ARCHIVE_LIST = 1;
/** Every union arm's payload follows its 4-byte discriminant. */
const DISCRIMINANT_BYTES = 4;

export class BucketFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BucketFormatError';
  }
}

/** `cap`: the most bytes of one record (--max-input-bytes). */
export async function* readLiveBucket(chunks: AsyncIterable<Uint8Array>, what = 'bucket', cap?: ByteCap): AsyncGenerator<LiveBucketRecord> {
  let n = 0;
  for await (const record of readRecords(chunks, what, cap)) {
    const e = decode(xdr.BucketEntry.schema, record, what, n);
    const payload = record.subarray(DISCRIMINANT_BYTES);
    switch (e.type) {
      case LIVEENTRY: yield { kind: 'live', entry: e.liveEntry, entryXdr: payload }; break;
      case INITENTRY: yield { kind: 'init', entry: e.liveEntry, entryXdr: payload }; break;
      case DEADENTRY: yield { kind: 'dead', key: e.deadEntry, keyXdr: payload }; break;
      case METAENTRY:
        checkMeta(e.metaEntry, n, LIVE_LIST, what);
        yield { kind: 'meta', meta: e.metaEntry };
        break;
    }
    n++;
  }
}

export async function* readHotArchiveBucket(chunks: AsyncIterable<Uint8Array>, what = 'hot-archive bucket', cap?: ByteCap): AsyncGenerator<HotArchiveRecord> {
  let n = 0;
  for await (const record of readRecords(chunks, what, cap)) {
    const e = decode(xdr.HotArchiveBucketEntry.schema, record, what, n);
    const payload = record.subarray(DISCRIMINANT_BYTES);
    switch (e.type) {
      case HOT_ARCHIVE_ARCHIVED: yield { kind: 'archived', entry: e.archivedEntry, entryXdr: payload }; break;
      case HOT_ARCHIVE_LIVE: yield { kind: 'live', key: e.key, keyXdr: payload }; break;
      case HOT_ARCHIVE_METAENTRY:
        checkMeta(e.metaEntry, n, HOT_ARCHIVE_LIST, what);
        yield { kind: 'meta', meta: e.metaEntry };
        break;
    }
    n++;
  }
}

function decode<T>(schema: { decode(bytes: Uint8Array): T }, record: Uint8Array, what: string, n: number): T {
  try {
    return schema.decode(record);
  } catch (e) {
    throw new BucketFormatError(`${what}: record ${n} is not a valid entry: ${(e as Error).message}`);
  }
}

/** A meta entry may only lead the file, and when it names its list it must be the list being read. */
function checkMeta(meta: BucketMetadata, n: number, list: number, what: string): void {
  if (n !== 0) throw new BucketFormatError(`${what}: METAENTRY at record ${n}; it may only be the first record`);
  if (meta.ext.v === 1 && meta.ext.bucketListType !== list) {
    const names = ['live', 'hot-archive'];
    throw new BucketFormatError(`${what}: is a ${names[meta.ext.bucketListType] ?? `type ${meta.ext.bucketListType}`} bucket, read as a ${names[list]} bucket`);
  }
}
