// Publishes the standalone network's history archive to a local folder, so another node can
// bootstrap its ledger state from it (see stateBootstrap.ts). At each checkpoint it writes:
//   bucket/aa/bb/cc/bucket-<sha256>.xdr.gz   the whole current state as ONE bucket (level 0 curr),
//                                            and the evicted entries as one hot archive bucket;
//   ledger/xx/yy/zz/ledger-<hex>.xdr.gz      the checkpoint's ledger headers (all must be stored);
//   history/xx/yy/zz/history-<hex>.json      the checkpoint's state (HAS);
//   .well-known/stellar-history.json         the same state, LAST, so a reader never finds a root
//                                            state whose files are not there yet.
// Transaction, result and SCP files are not written: nothing of ours reads them, and the store
// does not keep transaction sets in the form core archives them.
//
// A single bucket instead of core's 11-level bucket list keeps publishing stateless; its price is
// a full copy of the state per checkpoint, fine for a development network's small state. The
// buckets and their hashes are core's (publishedBuckets.ts), and a checkpoint is published only
// when its bucket lists hash to the checkpoint header's bucketListHash, which the standalone
// network put there when it closed the ledger (src/standalone/checkpointCommitment.ts): readers
// check the archive as they check any other (checkpointVerification.ts).
// Every file is written to a temporary name, synced and renamed, so a crash leaves no partial file
// under a real name.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { xdr } from '../xdr/xdr.ts';
import { frameRecord } from '../io/recordMarked.ts';
import { toHex } from '../xdr/codec.ts';
import type { StoreReader } from '../store/types.ts';
import { stateHashes } from './bucketListHash.ts';
import { bucketHash, publishedBucketLists, stateBucketRecords } from './publishedBuckets.ts';
import {
  ROOT_STATE_PATH, ZERO_HASH, assertCheckpoint, bucketPath, checkpointFilePath, checkpointStatePath, firstLedgerOfCheckpoint, isCheckpointLedger,
  serializeHistoryArchiveState, type HistoryArchiveState,
} from './historyArchiveState.ts';

export interface PublisherOptions {
  /** The archive's root folder; created when missing. */
  folder: string;
  networkPassphrase: string;
  /** The HAS "server" field. */
  server?: string;
}

export interface PublishedCheckpoint {
  checkpoint: number;
  bucketHash: string;
  entries: number;
}

/** What publishing reads from the store. */
export type PublishSource = Pick<StoreReader, 'allEntries' | 'entriesOfTypes' | 'ledger'>;

/** Uncompressed bytes per gzip member: bounds memory whatever the state's size. */
const GZIP_MEMBER_BYTES = 4 * 1024 * 1024;

export class HistoryArchivePublisher {
  readonly folder: string;
  private readonly networkPassphrase: string;
  private readonly server: string;

  constructor(options: PublisherOptions) {
    this.folder = options.folder;
    this.networkPassphrase = options.networkPassphrase;
    this.server = options.server ?? 'lumen-rpc';
  }

  /** Call after each ledger is stored: publishes when it closes a checkpoint, else returns at once. */
  afterLedger(store: PublishSource, ledger: number): PublishedCheckpoint | undefined {
    return isCheckpointLedger(ledger) ? this.publish(store, ledger) : undefined;
  }

  /**
   * Publishes the store's current state as checkpoint `checkpoint` (which must be the store's state
   * ledger). Refused, before the state files are written, when the checkpoint could not pass a
   * reader's checks (checkpointVerification.ts): a ledger of the checkpoint is not stored (its
   * ledger file needs every header), or the published bucket lists do not hash to the checkpoint
   * header's bucketListHash (a checkpoint ledger the standalone network did not close itself, such
   * as a genesis or a fork's first ledger).
   */
  publish(store: PublishSource, checkpoint: number): PublishedCheckpoint {
    assertCheckpoint(checkpoint);
    const row = store.ledger(checkpoint);
    if (!row) throw new Error(`cannot publish checkpoint ${checkpoint}: the ledger is not stored`);
    const headers = this.checkpointHeaders(store, checkpoint);
    const { live, hot, entries } = this.writeStateBuckets(store, row.protocolVersion);
    const has: HistoryArchiveState = {
      server: this.server,
      currentLedger: checkpoint,
      networkPassphrase: this.networkPassphrase,
      ...publishedBucketLists(live, hot, row.protocolVersion),
    };
    const committed = toHex(xdr.LedgerHeaderHistoryEntry.schema.decode(row.header).header.bucketListHash);
    const published = stateHashes(has).bucketListHash;
    if (published !== committed) {
      throw new Error(`cannot publish checkpoint ${checkpoint}: its bucket lists hash to ${published}, but the ledger's header has bucketListHash ${committed}`);
    }
    this.writeAtomically(checkpointFilePath('ledger', checkpoint), gzipSync(Buffer.concat(headers)));
    const json = new TextEncoder().encode(serializeHistoryArchiveState(has));
    this.writeAtomically(checkpointStatePath(checkpoint), json);
    this.writeAtomically(ROOT_STATE_PATH, json);
    return { checkpoint, bucketHash: live, entries };
  }

  /** The live bucket and, from protocol 23, the hot archive bucket (publishedBuckets.ts), written. */
  private writeStateBuckets(store: PublishSource, protocolVersion: number): { live: string; hot: string; entries: number } {
    const records = stateBucketRecords(store, protocolVersion);
    const live = this.writeBucket(records.live);
    const hot = this.writeBucket(records.hot());
    return { live, hot, entries: records.liveEntries() };
  }

  /**
   * Streams records into a temporary gzip file (a sequence of gzip members, which every gunzip
   * reads as one stream) while hashing the uncompressed content, then renames it to its hash.
   */
  private writeBucket(records: Iterable<Uint8Array>): string {
    const bucketRoot = join(this.folder, 'bucket');
    mkdirSync(bucketRoot, { recursive: true });
    const tmp = join(bucketRoot, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    const fd = openSync(tmp, 'w');
    try {
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      const flush = () => {
        if (pendingBytes === 0) return;
        writeAll(fd, gzipSync(Buffer.concat(pending)));
        pending = [];
        pendingBytes = 0;
      };
      const hash = bucketHash(records, (framed) => {
        pending.push(framed);
        pendingBytes += framed.length;
        if (pendingBytes >= GZIP_MEMBER_BYTES) flush();
      });
      flush();
      fsyncSync(fd);
      closeSync(fd);
      // Core names an empty bucket by the zero hash and stores no file for it.
      if (hash === ZERO_HASH) { rmSync(tmp, { force: true }); return ZERO_HASH; }
      const target = join(this.folder, bucketPath(hash));
      if (existsSync(target)) {
        rmSync(tmp, { force: true });   // the state did not change since a previous checkpoint
      } else {
        mkdirSync(dirname(target), { recursive: true });
        renameSync(tmp, target);
      }
      return hash;
    } catch (e) {
      try { closeSync(fd); } catch { /* already closed */ }
      rmSync(tmp, { force: true });
      throw e;
    }
  }

  /** The checkpoint's LedgerHeaderHistoryEntry records, framed; refused when one of its ledgers is not stored. */
  private checkpointHeaders(store: PublishSource, checkpoint: number): Uint8Array[] {
    const records: Uint8Array[] = [];
    for (let seq = firstLedgerOfCheckpoint(checkpoint); seq <= checkpoint; seq++) {
      const row = store.ledger(seq);
      if (!row) {
        throw new Error(`cannot publish checkpoint ${checkpoint}: ledger ${seq} is not stored, and the checkpoint's ledger file needs `
          + `the headers of ledgers ${firstLedgerOfCheckpoint(checkpoint)}..${checkpoint} (a history retention window of at least 64 keeps them)`);
      }
      records.push(frameRecord(row.header));
    }
    return records;
  }

  private writeAtomically(path: string, bytes: Uint8Array): void {
    const target = join(this.folder, path);
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${process.pid}`;
    const fd = openSync(tmp, 'w');
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}
