// The two packed forms the entry history stores (see entryHistory.ts):
//  - images: the versions one ledger's writes replaced, for the keys of one image bucket, sorted by
//    key hash: [count u32][count f64 key hashes][count u32 record offsets][records], a record being
//    [key length u32][key][entry length u32, or ABSENT][entry][last modified u32];
//  - writers: per key hash of one key bucket, which ledgers of a segment wrote it:
//    [count u32][count f64 key hashes][count 128-bit bitmaps, bit i = the segment's ledger i].
// Both are read by binary search on the hashes, without decoding the rest. Little-endian.

/** A version a write replaced: `entry` null when the key did not exist. */
export interface Image { key: Uint8Array; entry: Uint8Array | null; lastModified: number }

const ABSENT = 0xffffffff;
/** Bitmap words per key in a writers blob: one bit per ledger of a segment (128 ledgers). */
export const BITMAP_WORDS = 4;

const viewOf = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Index of the first hash >= `hash` among the `count` f64s at `at` (count when none). */
function lowerBound(view: DataView, at: number, count: number, hash: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (view.getFloat64(at + mid * 8, true) < hash) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function packImages(images: ReadonlyArray<{ hash: number; image: Image }>): Uint8Array {
  const sorted = [...images].sort((a, b) => a.hash - b.hash);
  const count = sorted.length;
  let size = 4 + count * 12;
  for (const { image } of sorted) size += 12 + image.key.length + (image.entry?.length ?? 0);
  const out = new Uint8Array(size);
  const view = viewOf(out);
  view.setUint32(0, count, true);
  let at = 4 + count * 12;
  sorted.forEach(({ hash, image }, i) => {
    view.setFloat64(4 + i * 8, hash, true);
    view.setUint32(4 + count * 8 + i * 4, at, true);
    view.setUint32(at, image.key.length, true);
    out.set(image.key, at + 4);
    at += 4 + image.key.length;
    view.setUint32(at, image.entry ? image.entry.length : ABSENT, true);
    at += 4;
    if (image.entry) { out.set(image.entry, at); at += image.entry.length; }
    view.setUint32(at, image.lastModified, true);
    at += 4;
  });
  return out;
}

function readImage(blob: Uint8Array, view: DataView, at: number): Image {
  const keyLength = view.getUint32(at, true);
  const key = blob.subarray(at + 4, at + 4 + keyLength);
  at += 4 + keyLength;
  const entryLength = view.getUint32(at, true);
  at += 4;
  const entry = entryLength === ABSENT ? null : blob.subarray(at, at + entryLength);
  if (entry) at += entryLength;
  return { key, entry, lastModified: view.getUint32(at, true) };
}

/** The image of `key` (hashing to `hash`) in an images blob; undefined when that ledger did not write it. */
export function findImage(blob: Uint8Array, hash: number, key: Uint8Array): Image | undefined {
  const view = viewOf(blob);
  const count = view.getUint32(0, true);
  // keys of other hashes are skipped by the search, keys with the same hash by comparing the key
  for (let i = lowerBound(view, 4, count, hash); i < count && view.getFloat64(4 + i * 8, true) === hash; i++) {
    const image = readImage(blob, view, view.getUint32(4 + count * 8 + i * 4, true));
    if (Buffer.compare(image.key, key) === 0) return image;
  }
  return undefined;
}

/** Every image in an images blob, with its key hash. */
export function allImages(blob: Uint8Array): Array<{ hash: number; image: Image }> {
  const view = viewOf(blob);
  const count = view.getUint32(0, true);
  return Array.from({ length: count }, (_, i) => ({
    hash: view.getFloat64(4 + i * 8, true),
    image: readImage(blob, view, view.getUint32(4 + count * 8 + i * 4, true)),
  }));
}

export function packWriters(writers: ReadonlyArray<[hash: number, bitmap: Uint32Array]>): Uint8Array {
  const sorted = [...writers].sort((a, b) => a[0] - b[0]);
  const count = sorted.length;
  const out = new Uint8Array(4 + count * (8 + BITMAP_WORDS * 4));
  const view = viewOf(out);
  view.setUint32(0, count, true);
  const bitmaps = 4 + count * 8;
  sorted.forEach(([hash, bitmap], i) => {
    view.setFloat64(4 + i * 8, hash, true);
    for (let w = 0; w < BITMAP_WORDS; w++) view.setUint32(bitmaps + (i * BITMAP_WORDS + w) * 4, bitmap[w], true);
  });
  return out;
}

/** The bitmap of `hash` in a writers blob (copied), or undefined. */
export function findWriters(blob: Uint8Array, hash: number): Uint32Array | undefined {
  const view = viewOf(blob);
  const count = view.getUint32(0, true);
  const i = lowerBound(view, 4, count, hash);
  if (i >= count || view.getFloat64(4 + i * 8, true) !== hash) return undefined;
  const at = 4 + count * 8 + i * BITMAP_WORDS * 4;
  return Uint32Array.from({ length: BITMAP_WORDS }, (_, w) => view.getUint32(at + w * 4, true));
}

/** The ledgers of a bitmap's segment after `after`, in order. */
export function* ledgersAfter(bitmap: Uint32Array, segmentStart: number, after: number): Generator<number> {
  for (let bit = Math.max(0, after + 1 - segmentStart); bit < BITMAP_WORDS * 32; bit++) {
    if (bitmap[bit >>> 5] & (1 << (bit & 31))) yield segmentStart + bit;
  }
}
