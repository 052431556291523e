// Read access to a stellar-core history archive (a folder, or a bucket over HTTP, through an
// ObjectStore): its state files, its per-checkpoint files and its buckets, each verified before use.
// Every file is looked up at its stellar-core path first, then flat (file name only), the layout of
// copies such as the test fixtures.
import { createHash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { xdr } from '../xdr/xdr.ts';
import { openObjectStore, type HttpOptions, type ObjectStore } from '../io/objectStore.ts';
import {
  DEFAULT_MAX_BUCKET_BYTES, INFLATE_CHUNK_BYTES, InputTooLargeError, capped, gunzipCapped, inputCap, type ByteCap,
} from '../io/inputCaps.ts';
import { splitRecords } from '../io/recordMarked.ts';
import type { LedgerHeaderHistoryEntry } from '../xdr/codec.ts';
import {
  ROOT_STATE_PATH, assertCheckpoint, bucketPath, checkpointFilePath, checkpointStatePath, firstLedgerOfCheckpoint, flatPath,
  isZeroHash, parseHistoryArchiveState, type CheckpointFileKind, type HistoryArchiveState,
} from './historyArchiveState.ts';

export class HistoryArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryArchiveError';
  }
}

/**
 * The archive's content is not what it claims to be: a bucket that does not hash to its name, a
 * bucket list that does not hash to the checkpoint header's bucketListHash, a header that does not
 * hash to its hash. Unlike a missing or unreadable file, reading it again cannot help.
 */
export class ArchiveVerificationError extends HistoryArchiveError {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveVerificationError';
  }
}

/** What the archive takes from its store: each file and bucket record, and each bucket as a whole. */
export interface ArchiveCaps {
  /** A state file, a checkpoint file (as read and decompressed), one bucket record (--max-input-bytes). */
  input?: ByteCap;
  /** A bucket, as read and decompressed: buckets are streamed, so this bounds time, not memory (--max-bucket-bytes). */
  bucket?: ByteCap;
}

export const bucketCap = (bytes = DEFAULT_MAX_BUCKET_BYTES): ByteCap => ({ bytes, flag: 'max-bucket-bytes' });

export class HistoryArchive {
  readonly description: string;
  /** The most bytes of one bucket record (bucketReader.ts reads with it). */
  readonly recordCap: ByteCap;
  private readonly store: ObjectStore;
  private readonly bucketCap: ByteCap;

  constructor(store: ObjectStore, caps: ArchiveCaps = {}) {
    this.store = store;
    this.description = store.description;
    this.recordCap = caps.input ?? inputCap();
    this.bucketCap = caps.bucket ?? bucketCap();
  }

  /** An archive at a folder path, file://, http(s)://, gs:// or s3:// location. */
  static open(location: string, http?: HttpOptions, caps: ArchiveCaps = {}): HistoryArchive {
    return new HistoryArchive(openObjectStore(location, http, caps.input), caps);
  }

  /** The archive's latest checkpoint state (`.well-known/stellar-history.json`). */
  async rootState(): Promise<HistoryArchiveState> {
    const found = await this.firstOf(withFlat(ROOT_STATE_PATH));
    if (!found) throw new HistoryArchiveError(`no history archive at ${this.description}: ${ROOT_STATE_PATH} not found`);
    return parseHistoryArchiveState(found.bytes, `${this.description}/${found.key}`);
  }

  /** The state as of a checkpoint ledger (63, 127, ...). */
  async checkpointState(checkpoint: number): Promise<HistoryArchiveState> {
    assertCheckpoint(checkpoint);
    const found = await this.firstOf(withFlat(checkpointStatePath(checkpoint)));
    if (!found) throw new HistoryArchiveError(`${this.description}: no state for checkpoint ${checkpoint} (${checkpointStatePath(checkpoint)} not found)`);
    const has = parseHistoryArchiveState(found.bytes, `${this.description}/${found.key}`);
    if (has.currentLedger !== checkpoint) {
      throw new HistoryArchiveError(`${this.description}/${found.key}: describes ledger ${has.currentLedger}, not checkpoint ${checkpoint}`);
    }
    return has;
  }

  /**
   * A bucket's uncompressed content as a stream of chunks, nothing for the zero hash. The sha256 of
   * the content must equal the bucket's name (stellar-core names a bucket by the hash of its
   * uncompressed file); as that is only known at the end, the content is hashed as it streams and
   * the stream throws an ArchiveVerificationError after its last chunk when it does not match, so a
   * consumer must not commit what it read before the stream has ended. A missing bucket, a file
   * that is not gzip, or a truncated one throw too. `what` names the bucket in errors (its place in
   * a bucket list, say).
   */
  async *bucket(hash: string, what = `bucket ${hash}`): AsyncGenerator<Uint8Array> {
    if (isZeroHash(hash)) return;
    const path = bucketPath(hash);
    const compressed = await this.firstStream(withFlat(path));
    if (!compressed) throw new HistoryArchiveError(`${this.description}: ${what} is missing (${path} not found)`);
    const digest = createHash('sha256');
    const where = `${this.description}: ${what}`;
    const content = pipeline(Readable.from(capped(compressed, this.bucketCap, where)), createGunzip({ chunkSize: INFLATE_CHUNK_BYTES }),
      () => { /* errors surface through the iteration */ });
    try {
      for await (const chunk of capped(content as AsyncIterable<Buffer>, this.bucketCap, where, true)) {
        digest.update(chunk);
        yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      }
    } catch (e) {
      if (e instanceof HistoryArchiveError || e instanceof InputTooLargeError) throw e;
      throw new HistoryArchiveError(`${this.description}: ${what}: cannot read: ${(e as Error).message}`);
    } finally {
      content.destroy();
    }
    const actual = digest.digest('hex');
    if (actual !== hash.toLowerCase()) {
      throw new ArchiveVerificationError(`${this.description}: ${what} is corrupt: its content hashes to ${actual}, not to its name`);
    }
  }

  /** A checkpoint's ledger/transactions/results/scp file, uncompressed; undefined when the archive lacks it. */
  async checkpointFile(kind: CheckpointFileKind, checkpoint: number): Promise<Uint8Array | undefined> {
    assertCheckpoint(checkpoint);
    const found = await this.firstOf(withFlat(checkpointFilePath(kind, checkpoint)));
    if (!found) return undefined;
    try {
      return await gunzipCapped(found.bytes, this.recordCap, `${this.description}/${found.key}`);
    } catch (e) {
      if (e instanceof InputTooLargeError) throw e;
      throw new HistoryArchiveError((e as Error).message);
    }
  }

  /** The headers of a checkpoint's ledgers, oldest first, checked to be exactly the checkpoint's range. */
  async ledgerHeaders(checkpoint: number): Promise<LedgerHeaderHistoryEntry[]> {
    const bytes = await this.checkpointFile('ledger', checkpoint);
    const where = `${this.description}: ${checkpointFilePath('ledger', checkpoint)}`;
    if (!bytes) throw new HistoryArchiveError(`${where} not found`);
    const out: LedgerHeaderHistoryEntry[] = [];
    for (const record of splitRecords(bytes, where, this.recordCap)) out.push(xdr.LedgerHeaderHistoryEntry.schema.decode(record));
    const first = firstLedgerOfCheckpoint(checkpoint);
    out.forEach((h, i) => {
      if (h.header.ledgerSeq !== first + i) throw new HistoryArchiveError(`${where}: record ${i} is ledger ${h.header.ledgerSeq}, expected ${first + i}`);
    });
    if (out.length !== checkpoint - first + 1) throw new HistoryArchiveError(`${where}: holds ${out.length} ledgers, expected ${checkpoint - first + 1}`);
    return out;
  }

  private async firstOf(keys: string[]): Promise<{ key: string; bytes: Uint8Array } | undefined> {
    for (const key of keys) {
      const bytes = await this.store.get(key);
      if (bytes) return { key, bytes };
    }
    return undefined;
  }

  private async firstStream(keys: string[]): Promise<AsyncIterable<Uint8Array> | undefined> {
    for (const key of keys) {
      if (this.store.stream) {
        const s = await this.store.stream(key);
        if (s) return s;
      } else {
        const bytes = await this.store.get(key);
        if (bytes) return once(bytes);
      }
    }
    return undefined;
  }
}

const withFlat = (path: string): string[] => [path, flatPath(path)];

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> { yield bytes; }
