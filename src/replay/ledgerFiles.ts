// Reads the LedgerCloseMeta files a replay is given. A file is told by its bytes, never its name:
// gzip and zstd layers are taken off first, then what remains is one raw LedgerCloseMeta (what the
// public data lake and `stellar-xdr` dumps hold), a stellar-core meta stream (record-marked), or a
// SEP-54 LedgerCloseMetaBatch (a galexie datastore file).
import { xdr } from '../xdr/xdr.ts';
import type { RawLedger } from '../sources/ledgerSource.ts';
import { decodeBatchSync } from '../sources/datastore/batchCodec.ts';
import { decompressZstdSync, startsWithZstdMagic } from '../io/zstdFrames.ts';
import { splitRecords } from '../io/recordMarked.ts';
import { InputTooLargeError, gunzipCappedSync, inputCap, readFileCappedSync, type ByteCap } from '../io/inputCaps.ts';
import { ledgerSequenceOf } from '../sources/closeMetaSequence.ts';

/** A problem with the replay's input: reported as a message, never a stack trace. */
export class ReplayInputError extends Error {}

const startsWithGzipMagic = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/**
 * The ledgers one file holds, in the file's order. Throws ReplayInputError naming the file, also for
 * a file larger than the cap as read or once decompressed (--max-input-bytes): /dev/zero or a zstd
 * bomb ends there, having held at most the cap.
 */
export function readLedgerFile(path: string, cap: ByteCap = inputCap()): RawLedger[] {
  let bytes: Uint8Array;
  try {
    bytes = readFileCappedSync(path, cap);
  } catch (e) {
    if (e instanceof InputTooLargeError) throw new ReplayInputError(e.message);
    throw new ReplayInputError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return ledgersIn(uncompressed(bytes, path, cap), path, cap);
  } catch (e) {
    throw e instanceof ReplayInputError ? e : new ReplayInputError((e as Error).message);
  }
}

function uncompressed(bytes: Uint8Array, path: string, cap: ByteCap): Uint8Array {
  if (startsWithGzipMagic(bytes)) return gunzipCappedSync(bytes, cap, path);
  if (startsWithZstdMagic(bytes)) return decompressZstdSync(bytes, path, cap);
  return bytes;
}

function ledgersIn(bytes: Uint8Array, path: string, cap: ByteCap): RawLedger[] {
  if (bytes.length < 4) throw new ReplayInputError(`${path}: ${bytes.length} bytes: not LedgerCloseMeta data`);
  const first = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  // A raw LedgerCloseMeta opens with its version (0-2); a batch with its start ledger; a meta
  // stream with a record mark (high bit set). A batch of a standalone network's ledger 1 or 2 opens
  // like a raw V1 or V2 meta, but a raw meta read as a batch fails the batch's own checks at once
  // (its "end sequence" is its ext discriminant, 0 or 1, and with 1 its header hash would have to
  // start with the count 1).
  if (first === 0) return [singleMeta(bytes, path)];
  if (first <= 2) {
    try {
      return decodeBatchSync(bytes, path, 'header');
    } catch {
      return [singleMeta(bytes, path)];
    }
  }
  if (first & 0x8000_0000) {
    return splitRecords(bytes, path, cap).map((record, i) => singleMeta(record, `${path}: record ${i}`));
  }
  try {
    // only headers here: the replay decodes every ledger whole (decodeLedger), which tells corruption
    return decodeBatchSync(bytes, path, 'header');
  } catch (e) {
    throw new ReplayInputError(`${path}: not a LedgerCloseMeta, a LedgerCloseMetaBatch or a meta stream (${(e as Error).message})`);
  }
}

/**
 * One LedgerCloseMeta; only its header is read here. The whole structure is checked when the replay
 * decodes it (decodeLedger), which tells a truncated file.
 */
function singleMeta(bytes: Uint8Array, what: string): RawLedger {
  return { sequence: ledgerSequenceOf(bytes, what), bytes };
}

/** The decoded LedgerCloseMeta of a ledger read from `file`. */
export function decodeLedger(raw: RawLedger, file: string): xdr.LedgerCloseMetaWire {
  try {
    return xdr.LedgerCloseMeta.schema.decode(raw.bytes);
  } catch (e) {
    throw new ReplayInputError(`${file}: truncated or corrupt LedgerCloseMeta for ledger ${raw.sequence} (${(e as Error).message})`);
  }
}
