// Where a ledger lives in a SEP-54 datastore. The rule (go-stellar-sdk support/datastore/schema.go):
//   [<%08X of 0xFFFFFFFF-partitionStart>--<partitionStart>-<partitionEnd>/]<%08X of 0xFFFFFFFF-fileStart>--<fileStart>[-<fileEnd>].xdr.<ext>
// The partition folder is there whenever batchesPerPartition > 1 (whatever ledgersPerBatch is);
// the file end only when a file holds more than one ledger; ends are capped at 0xFFFFFFFF. The hex
// prefix counts down so that a plain lexicographic listing puts the newest objects first.
// Galexie writes ext "zst"; "zstd" is older and still found; plain ".xdr" holds uncompressed batches.
// Copies of datastore files are often kept flat (no partition folder), as in our fixtures, so the
// reader also tries that.
import type { DatastoreConfig } from './datastoreConfig.ts';

const MAX_UINT32 = 0xffff_ffff;

export type Layout = Pick<DatastoreConfig, 'ledgersPerBatch' | 'batchesPerPartition'>;

/** One way of naming ledger files: with or without the partition folder, and which extension. */
export interface KeyVariant {
  partitioned: boolean;
  /** After ".xdr": "zst", "zstd", or "" for plain ".xdr". */
  extension: string;
}

export const GALEXIE_VARIANT: KeyVariant = { partitioned: true, extension: 'zst' };

export interface LedgerRange { start: number; end: number }

/** The ledgers of the file holding `ledger`. */
export function fileRange(ledger: number, ledgersPerBatch: number): LedgerRange {
  const start = Math.floor(ledger / ledgersPerBatch) * ledgersPerBatch;
  return { start, end: Math.min(start + ledgersPerBatch - 1, MAX_UINT32) };
}

/** The ledgers of the partition holding `ledger`. */
export function partitionRange(ledger: number, layout: Layout): LedgerRange {
  const size = layout.ledgersPerBatch * layout.batchesPerPartition;
  const start = Math.floor(ledger / size) * size;
  return { start, end: Math.min(start + size - 1, MAX_UINT32) };
}

/** The key of the file holding `ledger`. */
export function objectKey(ledger: number, layout: Layout, variant: KeyVariant = GALEXIE_VARIANT): string {
  checkLedger(ledger);
  let key = '';
  if (variant.partitioned && layout.batchesPerPartition > 1) {
    const p = partitionRange(ledger, layout);
    key = `${inverted(p.start)}--${p.start}-${p.end}/`;
  }
  const f = fileRange(ledger, layout.ledgersPerBatch);
  key += `${inverted(f.start)}--${f.start}`;
  if (f.end !== f.start) key += `-${f.end}`;
  return key + (variant.extension ? `.xdr.${variant.extension}` : '.xdr');
}

/**
 * The ways a file may be named, most likely first: the real partitioned key with the manifest's
 * extension, the other extensions, then the same names without the partition folder.
 */
export function keyVariants(config: Pick<DatastoreConfig, 'batchesPerPartition' | 'compression'>): KeyVariant[] {
  const extensions = config.compression === 'none' ? ['', 'zst', 'zstd'] : ['zst', 'zstd', ''];
  const layouts = config.batchesPerPartition > 1 ? [true, false] : [false];
  return layouts.flatMap((partitioned) => extensions.map((extension) => ({ partitioned, extension })));
}

/** Every key the file holding `ledger` may have, most likely first. */
export function candidateObjectKeys(ledger: number, config: Pick<DatastoreConfig, 'ledgersPerBatch' | 'batchesPerPartition' | 'compression'>): string[] {
  return keyVariants(config).map((v) => objectKey(ledger, config, v));
}

const FILE_NAME = /^([0-9A-F]{8})--(\d+)(?:-(\d+))?\.xdr(?:\.(zst|zstd))?$/;
const PARTITION_NAME = /^([0-9A-F]{8})--(\d+)-(\d+)$/;

/** The ledgers of a file from its base name, or undefined for anything else (temp files, …). */
export function parseFileName(name: string): LedgerRange | undefined {
  const m = FILE_NAME.exec(name);
  return m ? consistentRange(m[1], m[2], m[3] ?? m[2]) : undefined;
}

/** The ledgers of a partition folder from its name, or undefined for anything else. */
export function parsePartitionName(name: string): LedgerRange | undefined {
  const m = PARTITION_NAME.exec(name);
  return m ? consistentRange(m[1], m[2], m[3]) : undefined;
}

function consistentRange(hex: string, startText: string, endText: string): LedgerRange | undefined {
  const start = Number(startText);
  const end = Number(endText);
  if (end < start || end > MAX_UINT32 || inverted(start) !== hex) return undefined;
  return { start, end };
}

function inverted(n: number): string {
  return (MAX_UINT32 - n).toString(16).toUpperCase().padStart(8, '0');
}

function checkLedger(ledger: number): void {
  if (!Number.isInteger(ledger) || ledger < 0 || ledger > MAX_UINT32) throw new Error(`not a ledger sequence: ${ledger}`);
}
