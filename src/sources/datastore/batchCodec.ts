// A datastore file: an XDR LedgerCloseMetaBatch, usually zstd-compressed:
//   struct LedgerCloseMetaBatch { uint32 startSequence; uint32 endSequence; LedgerCloseMeta ledgerCloseMetas<>; }
// Each LedgerCloseMeta is handed on as the exact bytes the file holds (sliced, never re-encoded).
import { zstdCompressSync } from 'node:zlib';
import { xdr } from '../../xdr/xdr.ts';
import { Reader } from '@stellar/js-xdr';
import type { RawLedger } from '../ledgerSource.ts';
import { ledgerSequenceOf } from '../closeMetaSequence.ts';
import { decompressZstd, startsWithZstdMagic } from '../../io/zstdFrames.ts';
import { inputCap, type ByteCap } from '../../io/inputCaps.ts';
import { batchWalker } from './batchWalker.ts';

/** startSequence, endSequence, and the array's length. */
const PREFIX_BYTES = 12;

export interface DecodeOptions {
  /**
   * How much of each LedgerCloseMeta to check. 'header' reads only the header (its ledger
   * sequence): a compressed file is already protected by zstd's framing, and a full decode of a
   * busy ledger costs ~100 ms. 'full' checks the whole structure, which is what tells a truncated
   * uncompressed file. Default: 'header' for zstd files, 'full' for plain ones. Batches of several
   * ledgers are always walked fully, since that is how their boundaries are found.
   */
  verify?: 'header' | 'full';
  /** The most bytes the file may decompress to (--max-input-bytes). */
  cap?: ByteCap;
}

/**
 * The ledgers of one datastore file, compressed or not (told by the zstd magic, not the name).
 * Throws, naming `name`, on truncated or corrupt data, on sequences other than the file claims, and
 * on a file that decompresses past the cap (InputTooLargeError). Nothing big runs on the event loop:
 * the decompression runs on the libuv threadpool, and a walk through whole LedgerCloseMetas (a plain
 * file, a batch of several ledgers; 2 s for an 18 MB one) on a worker thread (batchWalker.ts).
 */
export async function decodeBatch(file: Uint8Array, name: string, opts: DecodeOptions = {}): Promise<RawLedger[]> {
  const compressed = startsWithZstdMagic(file);
  const bytes = compressed ? await decompressZstd(file, name, opts.cap ?? inputCap()) : file;
  const verify = opts.verify ?? (compressed ? 'header' : 'full');
  // one ledger's header, or a file small enough to walk in a few milliseconds: here
  const quick = (verify === 'header' && bytes.length >= PREFIX_BYTES && new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0) === 1)
    || bytes.length <= WALK_HERE_BYTES;
  // decompressed bytes are ours to move to the walker's thread; the caller's file is copied there
  return quick ? decodeBatchSync(bytes, name, verify) : batchWalker.walk(bytes, name, verify, compressed);
}

/** A batch this small is walked in place (about 7 ms). */
const WALK_HERE_BYTES = 64 * 1024;

/**
 * decodeBatch on bytes already decompressed, synchronously: for commands (replay) and for the
 * batch walker's thread.
 */
export function decodeBatchSync(bytes: Uint8Array, name: string, verify: 'header' | 'full'): RawLedger[] {
  if (bytes.length < PREFIX_BYTES) {
    throw new Error(`${name}: truncated LedgerCloseMetaBatch (${bytes.length} bytes, not even its ${PREFIX_BYTES}-byte prefix)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = view.getUint32(0);
  const end = view.getUint32(4);
  const count = view.getUint32(8);
  if (end < start) throw new Error(`${name}: corrupt LedgerCloseMetaBatch (endSequence ${end} < startSequence ${start})`);
  if (count !== end - start + 1) {
    throw new Error(`${name}: LedgerCloseMetaBatch ${start}-${end} holds ${count} ledgers, expected ${end - start + 1}`);
  }

  if (count === 1 && verify === 'header') {
    const lcm = bytes.subarray(PREFIX_BYTES);
    checkSequence(ledgerSequenceOf(lcm, `${name}: ledger ${start}`), start, name);
    return [{ sequence: start, bytes: lcm }];
  }

  const ledgers: RawLedger[] = [];
  const body = bytes.subarray(PREFIX_BYTES);
  const reader = new Reader(body);
  for (let i = 0; i < count; i++) {
    const from = reader.offset;
    try {
      xdr.LedgerCloseMeta.schema._read(reader, 'ledgerCloseMeta');
    } catch (e) {
      throw new Error(`${name}: truncated or corrupt LedgerCloseMeta for ledger ${start + i} (${(e as Error).message})`);
    }
    const lcm = body.subarray(from, reader.offset);
    checkSequence(ledgerSequenceOf(lcm, `${name}: ledger ${start + i}`), start + i, name);
    ledgers.push({ sequence: start + i, bytes: lcm });
  }
  if (reader.remaining !== 0) {
    throw new Error(`${name}: ${reader.remaining} stray bytes after the ${count} ledgers of LedgerCloseMetaBatch ${start}-${end}`);
  }
  return ledgers;
}

/** A datastore file holding `ledgers` (consecutive, at least one), zstd-compressed or plain. */
export function encodeBatch(ledgers: RawLedger[], compress: boolean): Uint8Array {
  if (ledgers.length === 0) throw new Error('encodeBatch: no ledgers');
  const start = ledgers[0].sequence;
  let size = PREFIX_BYTES;
  ledgers.forEach((l, i) => {
    if (l.sequence !== start + i) throw new Error(`encodeBatch: ledger ${l.sequence} follows ${start + i - 1}, expected ${start + i}`);
    size += l.bytes.length;
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, start);
  view.setUint32(4, start + ledgers.length - 1);
  view.setUint32(8, ledgers.length);
  let at = PREFIX_BYTES;
  for (const l of ledgers) { out.set(l.bytes, at); at += l.bytes.length; }
  if (!compress) return out;
  const z = zstdCompressSync(out);
  return new Uint8Array(z.buffer, z.byteOffset, z.byteLength);
}

function checkSequence(found: number, expected: number, name: string): void {
  if (found !== expected) throw new Error(`${name}: holds ledger ${found} where the batch says ${expected}`);
}
