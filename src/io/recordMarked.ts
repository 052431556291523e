// The XDR record-marking framing (RFC 5531 section 11) that stellar-core uses for its meta stream
// and for bucket files: each record is preceded by a 4-byte big-endian word whose high bit marks the
// last fragment and whose low 31 bits give the fragment's length.
import { InputTooLargeError, inputCap, joinChunks, type ByteCap } from './inputCaps.ts';

const LAST_FRAGMENT = 0x8000_0000;
/** What a record costs beyond its content: the 4-byte mark of each fragment. */
const MARK_BYTES = 4;

/** Frames one record as a single last fragment. */
export function frameRecord(record: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + record.length);
  new DataView(out.buffer).setUint32(0, (LAST_FRAGMENT | record.length) >>> 0);
  out.set(record, 4);
  return out;
}

/**
 * Splits a byte stream into records, joining fragments. Throws on a stream that ends inside a
 * record (truncated), on an empty fragment not marked last (zeros: corrupt), and on a record whose
 * bytes (its fragments and their marks) pass the cap, as soon as its marks say so: a length past the
 * cap is corrupt or too large. A fragment cut across chunks is gathered into one buffer of its
 * announced length, so a big record costs one copy, not one per chunk.
 */
export async function* readRecords(chunks: AsyncIterable<Uint8Array>, what = 'stream', cap: ByteCap = inputCap()): AsyncGenerator<Uint8Array> {
  const mark = new Uint8Array(MARK_BYTES);
  const markView = new DataView(mark.buffer);
  let markFilled = 0;
  /** The fragment being gathered across chunks, when it did not fit in one. */
  let partial: Uint8Array | undefined;
  let partialFilled = 0;
  let last = false;
  let fragments: Uint8Array[] = [];
  let recordBytes = 0;
  let records = 0;
  const ended = (fragment: Uint8Array): Uint8Array | undefined => {
    if (fragment.length > 0) fragments.push(fragment);
    if (!last) return undefined;
    const record = joinChunks(fragments);
    fragments = [];
    recordBytes = 0;
    records++;
    return record;
  };
  for await (const chunk of chunks) {
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let at = 0;
    while (at < chunk.length) {
      if (partial) {
        const n = Math.min(partial.length - partialFilled, chunk.length - at);
        partial.set(chunk.subarray(at, at + n), partialFilled);
        partialFilled += n;
        at += n;
        if (partialFilled < partial.length) break;
        const fragment = partial;
        partial = undefined;
        const record = ended(fragment);
        if (record) yield record;
        continue;
      }
      let word: number;
      if (markFilled === 0 && chunk.length - at >= MARK_BYTES) {
        word = view.getUint32(at);
        at += MARK_BYTES;
      } else {
        const n = Math.min(MARK_BYTES - markFilled, chunk.length - at);
        mark.set(chunk.subarray(at, at + n), markFilled);
        markFilled += n;
        at += n;
        if (markFilled < MARK_BYTES) break;
        markFilled = 0;
        word = markView.getUint32(0);
      }
      const len = word & 0x7fff_ffff;
      last = (word & LAST_FRAGMENT) !== 0;
      if (len === 0 && !last) throw emptyFragment(what, records);
      recordBytes += MARK_BYTES + len;
      if (recordBytes > cap.bytes) throw overCap(what, records, len, cap);
      if (len <= chunk.length - at) {
        const record = ended(chunk.subarray(at, at + len));
        at += len;
        if (record) yield record;
      } else {
        partial = new Uint8Array(len);
        partialFilled = chunk.length - at;
        partial.set(chunk.subarray(at), 0);
        at = chunk.length;
      }
    }
  }
  if (markFilled > 0 || partial || fragments.length > 0) {
    const stray = markFilled + partialFilled + fragments.reduce((n, f) => n + f.length, 0);
    throw new Error(`${what}: truncated after ${records} complete records (${stray} stray bytes)`);
  }
}

/** The records of a whole record-marked buffer (a file read at once); same checks as readRecords. */
export function splitRecords(bytes: Uint8Array, what = 'stream', cap: ByteCap = inputCap()): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: Uint8Array[] = [];
  let fragments: Uint8Array[] = [];
  let recordBytes = 0;
  let at = 0;
  while (at + 4 <= bytes.length) {
    const word = view.getUint32(at);
    const len = word & 0x7fff_ffff;
    if (len === 0 && !(word & LAST_FRAGMENT)) throw emptyFragment(what, records.length);
    recordBytes += MARK_BYTES + len;
    if (recordBytes > cap.bytes) throw overCap(what, records.length, len, cap);
    if (at + 4 + len > bytes.length) break;
    if (len > 0) fragments.push(bytes.subarray(at + 4, at + 4 + len));
    at += 4 + len;
    if (word & LAST_FRAGMENT) {
      records.push(joinChunks(fragments));
      fragments = [];
      recordBytes = 0;
    }
  }
  if (at < bytes.length || fragments.length > 0) {
    throw new Error(`${what}: truncated after ${records.length} complete records (${bytes.length - at} stray bytes)`);
  }
  return records;
}

/**
 * No writer makes an empty fragment that is not a record's last (stellar-core writes each record as
 * one fragment); zeros read as record marks make nothing else, so they are told at once.
 */
function emptyFragment(what: string, record: number): Error {
  return new Error(`${what}: record ${record}: an empty fragment not marked last: corrupt, or not record-marked`);
}

/** A record past the cap: one fragment announcing it (corrupt, or misaligned), or fragments adding up to it. */
function overCap(what: string, record: number, fragmentLength: number, cap: ByteCap): InputTooLargeError {
  return new InputTooLargeError(fragmentLength > cap.bytes
    ? `${what}: record ${record} announces ${fragmentLength} bytes (corrupt, not record-marked, or too large)`
    : `${what}: record ${record}`, cap, false);
}
