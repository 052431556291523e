// Writes ledgers to a local folder as a SEP-54 datastore, laid out exactly as galexie lays out a
// bucket (one zstd file per ledger, 64000 files per partition folder), so that anything that reads
// galexie's output (our DatastoreSource, stellar-rpc, galexie tooling) reads ours. Synchronous on
// purpose: it runs inside a ledger close, and a ledger is only done once its file is.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { CONFIG_FILE_CAP, readFileCappedSync } from '../../io/inputCaps.ts';
import { dirname, join, resolve } from 'node:path';
import type { RawLedger } from '../ledgerSource.ts';
import { CONFIG_KEY, DEFAULT_LAYOUT, checkPassphrase, parseDatastoreConfig, serializeDatastoreConfig, type DatastoreConfig } from './datastoreConfig.ts';
import { objectKey } from './objectKeys.ts';
import { encodeBatch } from './batchCodec.ts';

export interface DatastoreWriterOptions {
  networkPassphrase: string;
  /** fsync each file before it is renamed into place (survives power loss; slower). Default false. */
  durable?: boolean;
}

export class DatastoreWriter {
  readonly root: string;
  readonly config: DatastoreConfig;
  private readonly durable: boolean;
  private readonly madeFolders = new Set<string>();
  private tempCounter = 0;

  /** Opens the datastore at `root`, creating it (and its `.config.json`) when it is new. */
  constructor(root: string, opts: DatastoreWriterOptions) {
    this.root = resolve(root);
    this.durable = opts.durable ?? false;
    const configPath = join(this.root, CONFIG_KEY);
    if (existsSync(configPath)) {
      const existing = parseDatastoreConfig(readFileCappedSync(configPath, CONFIG_FILE_CAP), this.root);
      checkPassphrase(existing, opts.networkPassphrase, this.root);
      if (existing.ledgersPerBatch !== DEFAULT_LAYOUT.ledgersPerBatch || existing.compression !== 'zstd') {
        throw new Error(`${this.root}: existing datastore has ${existing.ledgersPerBatch} ledgers per batch and compression ${existing.compression}; this writer only writes 1 ledger per zstd file`);
      }
      this.config = existing;
    } else {
      this.config = { networkPassphrase: opts.networkPassphrase, version: '1.0', compression: 'zstd', ...DEFAULT_LAYOUT };
      mkdirSync(this.root, { recursive: true });
      this.writeAtomically(configPath, new TextEncoder().encode(serializeDatastoreConfig(this.config)));
    }
  }

  /** The key `ledger` is (or will be) stored under, relative to the root. */
  keyOf(sequence: number): string {
    return objectKey(sequence, this.config);
  }

  /** Stores one ledger; a reader sees either no file or the whole file. Rewriting a ledger replaces it. */
  write(ledger: RawLedger): void {
    const path = join(this.root, this.keyOf(ledger.sequence));
    const folder = dirname(path);
    if (!this.madeFolders.has(folder)) {
      mkdirSync(folder, { recursive: true });
      this.madeFolders.add(folder);
    }
    this.writeAtomically(path, encodeBatch([ledger], true));
  }

  private writeAtomically(path: string, bytes: Uint8Array): void {
    // A dot name that parses as no ledger file, so listings and readers never take it for one.
    const temp = join(dirname(path), `.tmp-${process.pid}-${this.tempCounter++}`);
    const fd = openSync(temp, 'w');
    try {
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at);
      if (this.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  }
}
