// Read access to a stellar-core history archive (a folder, or a bucket over HTTP, through an
// ObjectStore): its state files, its per-checkpoint files and its buckets, each verified before use.
// Every file is looked up at its stellar-core path first, then flat (file name only), the layout of
// copies such as the test fixtures.
import { createHash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { xdr } from '../xdr/xdr.ts';
import { openObjectStore, type HttpOptions, type ObjectStore } from '../io/objectStore.ts';
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

export class HistoryArchive {
  readonly description: string;
  private readonly store: ObjectStore;

  constructor(store: ObjectStore) {
    this.store = store;
    this.description = store.description;
  }

  /** An archive at a folder path, file://, http(s)://, gs:// or s3:// location. */
  static open(location: string, http?: HttpOptions): HistoryArchive {
    return new HistoryArchive(openObjectStore(location, http));
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
    const content = pipeline(Readable.from(compressed), createGunzip(), () => { /* errors surface through the iteration */ });
    try {
      for await (const chunk of content as AsyncIterable<Buffer>) {
        digest.update(chunk);
        yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      }
    } catch (e) {
      if (e instanceof HistoryArchiveError) throw e;
      throw new HistoryArchiveError(`${this.description}: ${what}: cannot read: ${(e as Error).message}`);
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
      const buf = gunzipSync(found.bytes);
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      throw new HistoryArchiveError(`${this.description}/${found.key}: cannot gunzip: ${(e as Error).message}`);
    }
  }

  /** The headers of a checkpoint's ledgers, oldest first, checked to be exactly the checkpoint's range. */
  async ledgerHeaders(checkpoint: number): Promise<LedgerHeaderHistoryEntry[]> {
    const bytes = await this.checkpointFile('ledger', checkpoint);
    const where = `${this.description}: ${checkpointFilePath('ledger', checkpoint)}`;
    if (!bytes) throw new HistoryArchiveError(`${where} not found`);
    const out: LedgerHeaderHistoryEntry[] = [];
    for (const record of splitRecords(bytes, where)) out.push(xdr.LedgerHeaderHistoryEntry.schema.decode(record));
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
