// Publishes the standalone network's history archive to a local folder, so another node can
// bootstrap its ledger state from it (see stateBootstrap.ts). At each checkpoint it writes:
//   bucket/aa/bb/cc/bucket-<sha256>.xdr.gz   the whole current state as ONE bucket (level 0 curr),
//                                            and the evicted entries as one hot archive bucket;
//   ledger/xx/yy/zz/ledger-<hex>.xdr.gz      the checkpoint's ledger headers, when all are stored;
//   history/xx/yy/zz/history-<hex>.json      the checkpoint's state (HAS);
//   .well-known/stellar-history.json         the same state, LAST, so a reader never finds a root
//                                            state whose files are not there yet.
// Transaction, result and SCP files are not written: nothing of ours reads them, and the store
// does not keep transaction sets in the form core archives them.
//
// A single bucket instead of core's 11-level bucket list keeps publishing stateless; its price is
// a full copy of the state per checkpoint, fine for a development network's small state.
// Every file is written to a temporary name, synced and renamed, so a crash leaves no partial file
// under a real name.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { xdr } from '@stellar/stellar-sdk';
import { frameRecord } from '../io/recordMarked.ts';
import { decodeLedgerKey, sha256, toHex } from '../xdr/codec.ts';
import { EntryType, isPersistentKey, ledgerKeyType } from '../xdr/ledgerKeys.ts';
import type { StoreReader } from '../store/types.ts';
import {
  HAS_VERSION_BEFORE_HOT_ARCHIVE, HAS_VERSION_WITH_HOT_ARCHIVE, ROOT_STATE_PATH, ZERO_HASH, assertCheckpoint, bucketPath,
  checkpointFilePath, checkpointStatePath, emptyBucketLevels, firstLedgerOfCheckpoint, isCheckpointLedger,
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
  /** Whether the ledger-header file was written (it needs every ledger of the checkpoint stored). */
  ledgerFile: boolean;
}

/** What publishing reads from the store. */
export type PublishSource = Pick<StoreReader, 'allEntries' | 'entriesOfTypes' | 'ledger'>;

/** Protocols that write a METAENTRY first in every bucket (11), and that name the bucket list in it (23). */
const FIRST_PROTOCOL_WITH_METAENTRY = 11;
const FIRST_PROTOCOL_WITH_HOT_ARCHIVE = 23;
const LIVE_BUCKET_LIST = 0;
const HOT_ARCHIVE_BUCKET_LIST = 1;
const LIVEENTRY = new Uint8Array([0, 0, 0, 0]);
const HOT_ARCHIVE_ARCHIVED = new Uint8Array([0, 0, 0, 0]);
const { CONTRACT_DATA, CONTRACT_CODE, TTL } = EntryType;
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

  /** Publishes the store's current state as checkpoint `checkpoint` (which must be the store's state ledger). */
  publish(store: PublishSource, checkpoint: number): PublishedCheckpoint {
    assertCheckpoint(checkpoint);
    const row = store.ledger(checkpoint);
    if (!row) throw new Error(`cannot publish checkpoint ${checkpoint}: the ledger is not stored`);

    const { live: hash, hot, entries } = this.writeStateBuckets(store, row.protocolVersion);
    const ledgerFile = this.writeLedgerHeaders(store, checkpoint);

    const has: HistoryArchiveState = {
      version: row.protocolVersion >= FIRST_PROTOCOL_WITH_HOT_ARCHIVE ? HAS_VERSION_WITH_HOT_ARCHIVE : HAS_VERSION_BEFORE_HOT_ARCHIVE,
      server: this.server,
      currentLedger: checkpoint,
      networkPassphrase: this.networkPassphrase,
      currentBuckets: emptyBucketLevels(),
    };
    has.currentBuckets[0].curr = hash;
    if (has.version === HAS_VERSION_WITH_HOT_ARCHIVE) {
      has.hotArchiveBuckets = emptyBucketLevels();
      has.hotArchiveBuckets[0].curr = hot;
    }
    const json = new TextEncoder().encode(serializeHistoryArchiveState(has));
    this.writeAtomically(checkpointStatePath(checkpoint), json);
    this.writeAtomically(ROOT_STATE_PATH, json);
    return { checkpoint, bucketHash: hash, entries, ledgerFile };
  }

  /**
   * The live bucket (every entry except the archived ones) and, from protocol 23, the hot archive
   * bucket: the persistent contract entries stored without a TTL, which were evicted.
   */
  private writeStateBuckets(store: PublishSource, protocolVersion: number): { live: string; hot: string; entries: number } {
    const withHotArchive = protocolVersion >= FIRST_PROTOCOL_WITH_HOT_ARCHIVE;
    const metaEntry = (bucketListType: number): Uint8Array[] => (protocolVersion >= FIRST_PROTOCOL_WITH_METAENTRY ? [xdr.BucketEntry.schema.encode({
      type: -1,
      metaEntry: { ledgerVersion: protocolVersion, ext: withHotArchive ? { v: 1, bucketListType } : { v: 0 } },
    })] : []);
    // TTL keys sort after every contract key, so which entries have one is known only after a first pass
    const ttlHashes = new Set<string>();
    if (withHotArchive) {
      for (const e of store.entriesOfTypes(TTL, TTL)) ttlHashes.add(toHex(e.key.subarray(4, 36)));
    }
    const isArchived = (key: Uint8Array): boolean => {
      const type = ledgerKeyType(key);
      if (!withHotArchive || (type !== CONTRACT_CODE && type !== CONTRACT_DATA)) return false;
      return isPersistentKey(decodeLedgerKey(key)) && !ttlHashes.has(toHex(sha256(key)));
    };
    // archived entries are set aside while the live bucket is written (they are few: evicted ones)
    const archived: Uint8Array[] = [];
    let entries = 0;
    const live = this.writeBucket(function* () {
      yield* metaEntry(LIVE_BUCKET_LIST);
      for (const e of store.allEntries()) {
        if (isArchived(e.key)) { archived.push(e.entry); continue; }
        // A LIVEENTRY is its discriminant followed by the LedgerEntry XDR, which the store holds as is.
        yield Buffer.concat([LIVEENTRY, e.entry]);
        entries++;
      }
    }());
    const hot = archived.length === 0 ? ZERO_HASH : this.writeBucket([
      ...metaEntry(HOT_ARCHIVE_BUCKET_LIST),
      ...archived.map((entry) => Buffer.concat([HOT_ARCHIVE_ARCHIVED, entry])),
    ]);
    return { live, hot, entries };
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
    let contentBytes = 0;
    try {
      const digest = createHash('sha256');
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      const flush = () => {
        if (pendingBytes === 0) return;
        writeAll(fd, gzipSync(Buffer.concat(pending)));
        pending = [];
        pendingBytes = 0;
      };
      for (const record of records) {
        const framed = frameRecord(record);
        digest.update(framed);
        pending.push(framed);
        pendingBytes += framed.length;
        contentBytes += framed.length;
        if (pendingBytes >= GZIP_MEMBER_BYTES) flush();
      }
      flush();
      fsyncSync(fd);
      closeSync(fd);
      // Core names an empty bucket by the zero hash and stores no file for it.
      if (contentBytes === 0) { rmSync(tmp, { force: true }); return ZERO_HASH; }
      const hash = digest.digest('hex');
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

  /** The checkpoint's LedgerHeaderHistoryEntry records; skipped (false) when one of its ledgers is not stored. */
  private writeLedgerHeaders(store: PublishSource, checkpoint: number): boolean {
    const records: Uint8Array[] = [];
    for (let seq = firstLedgerOfCheckpoint(checkpoint); seq <= checkpoint; seq++) {
      const row = store.ledger(seq);
      if (!row) return false;
      records.push(frameRecord(row.header));
    }
    this.writeAtomically(checkpointFilePath('ledger', checkpoint), gzipSync(Buffer.concat(records)));
    return true;
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
