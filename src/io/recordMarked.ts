// The XDR record-marking framing (RFC 5531 section 11) that stellar-core uses for its meta stream
// and for bucket files: each record is preceded by a 4-byte big-endian word whose high bit marks the
// last fragment and whose low 31 bits give the fragment's length.

const LAST_FRAGMENT = 0x8000_0000;
/** No record we read is anywhere near this; a larger length means a corrupt or misaligned stream. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** Frames one record as a single last fragment. */
export function frameRecord(record: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + record.length);
  new DataView(out.buffer).setUint32(0, (LAST_FRAGMENT | record.length) >>> 0);
  out.set(record, 4);
  return out;
}

/**
 * Splits a byte stream into records, joining fragments. Throws on a stream that ends inside a
 * record (truncated) or announces an impossible length (corrupt).
 */
export async function* readRecords(chunks: AsyncIterable<Uint8Array>, what = 'stream'): AsyncGenerator<Uint8Array> {
  let buf: Uint8Array = new Uint8Array(0);
  let fragments: Uint8Array[] = [];
  let offset = 0;
  let records = 0;
  const take = (n: number) => { const out = buf.subarray(offset, offset + n); offset += n; return out; };
  for await (const chunk of chunks) {
    buf = offset < buf.length ? concat([buf.subarray(offset), chunk]) : chunk;
    offset = 0;
    for (;;) {
      if (buf.length - offset < 4) break;
      const word = new DataView(buf.buffer, buf.byteOffset + offset, 4).getUint32(0);
      const len = word & 0x7fff_ffff;
      if (len > MAX_RECORD_BYTES) throw new Error(`${what}: record ${records} announces ${len} bytes: corrupt or not record-marked`);
      if (buf.length - offset < 4 + len) break;
      offset += 4;
      fragments.push(take(len));
      if (word & LAST_FRAGMENT) {
        records++;
        yield fragments.length === 1 ? fragments[0] : concat(fragments);
        fragments = [];
      }
    }
  }
  if (offset < buf.length || fragments.length > 0) {
    throw new Error(`${what}: truncated after ${records} complete records (${buf.length - offset} stray bytes)`);
  }
}

/** The records of a whole record-marked buffer (a file read at once); same checks as readRecords. */
export function splitRecords(bytes: Uint8Array, what = 'stream'): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: Uint8Array[] = [];
  let fragments: Uint8Array[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const word = view.getUint32(at);
    const len = word & 0x7fff_ffff;
    if (len > MAX_RECORD_BYTES) throw new Error(`${what}: record ${records.length} announces ${len} bytes: corrupt or not record-marked`);
    if (at + 4 + len > bytes.length) break;
    fragments.push(bytes.subarray(at + 4, at + 4 + len));
    at += 4 + len;
    if (word & LAST_FRAGMENT) {
      records.push(fragments.length === 1 ? fragments[0] : concat(fragments));
      fragments = [];
    }
  }
  if (at < bytes.length || fragments.length > 0) {
    throw new Error(`${what}: truncated after ${records.length} complete records (${bytes.length - at} stray bytes)`);
  }
  return records;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
