// zstd input for the ledger sources. Node's zstd decoders (zstdDecompressSync, createZstdDecompress)
// stop after the first frame and silently drop any frame after it, while a zstd file may legally be
// several frames back to back (parallel or appending compressors write them). So frames are found
// here by walking their headers and block headers (RFC 8878 section 3.1), and each one is handed
// to Node on its own.
import { zstdDecompress, zstdDecompressSync, createZstdDecompress } from 'node:zlib';
import { Readable } from 'node:stream';
import { INFLATE_CHUNK_BYTES, InputTooLargeError, inflateError, inflateOptions, joinChunks, type ByteCap } from './inputCaps.ts';

/** The magic number that opens every zstd frame (little-endian: bytes 28 B5 2F FD). */
const MAGIC = 0xfd2fb528;
/** Skippable frames carry data no decoder interprets (magic 0x184D2A50..5F). */
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE = 0x184d2a50;

export function startsWithZstdMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
}

/**
 * Follows frame boundaries over bytes given in pieces. `feed` answers how many leading bytes of the
 * piece belong to the frame in progress; when that is less than the whole piece, that frame ended
 * there and the caller starts a new frame with the rest.
 */
export class ZstdFrameScanner {
  /** Header bytes gathered so far while `need` more are wanted to interpret them. */
  private header: number[] = [];
  private need = 4;
  private state: 'magic' | 'frameHeader' | 'skippableSize' | 'blockHeader' | 'skip' = 'magic';
  /** Bytes to pass over unparsed (block content, skippable data, checksum). */
  private skip = 0;
  private checksum = false;
  private lastBlock = false;
  private readonly what: string;

  constructor(what: string) { this.what = what; }

  /** True between frames: nothing of a frame is pending. */
  get atBoundary(): boolean { return this.state === 'magic' && this.header.length === 0; }

  /** Bytes of `piece` that belong to the current frame (all of it unless the frame ends inside). */
  feed(piece: Uint8Array): number {
    let at = 0;
    while (at < piece.length) {
      if (this.state === 'skip') {
        const n = Math.min(this.skip, piece.length - at);
        at += n; this.skip -= n;
        if (this.skip === 0 && this.afterSkip()) return at;
        continue;
      }
      this.header.push(piece[at++]);
      if (this.header.length < this.need) continue;
      if (this.interpretHeader()) return at;
    }
    return at;
  }

  /** Called with `need` header bytes gathered; true when the frame ended with them. */
  private interpretHeader(): boolean {
    const h = this.header;
    switch (this.state) {
      case 'magic': {
        const magic = (h[0] | (h[1] << 8) | (h[2] << 16) | (h[3] << 24)) >>> 0;
        if (magic === MAGIC) {
          this.state = 'frameHeader';
          this.need = 5;
        } else if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE) {
          this.state = 'skippableSize';
          this.need = 8;
        } else {
          throw new Error(`${this.what}: not zstd data at a frame boundary (bytes ${hex(h)})`);
        }
        return false;
      }
      case 'frameHeader': {
        if (this.need === 5) {
          // The descriptor tells the size of the rest of the header.
          const d = h[4];
          if (d & 0x08) throw new Error(`${this.what}: corrupt zstd frame header (reserved bit set)`);
          this.checksum = (d & 0x04) !== 0;
          const { sizeAt, sizeBytes } = headerLayout(d);
          this.need = sizeAt + sizeBytes;
          if (this.need > 5) return false;
        }
        this.startBlocks();
        return false;
      }
      case 'skippableSize': {
        this.skip = (h[4] | (h[5] << 8) | (h[6] << 16) | (h[7] << 24)) >>> 0;
        this.header = [];
        this.state = 'skip';
        this.lastBlock = true;
        this.checksum = false;
        return this.skip === 0 && this.afterSkip();
      }
      case 'blockHeader': {
        const word = h[0] | (h[1] << 8) | (h[2] << 16);
        this.lastBlock = (word & 1) === 1;
        const type = (word >> 1) & 3;
        const size = word >>> 3;
        if (type === 3) throw new Error(`${this.what}: corrupt zstd block (reserved block type)`);
        this.skip = type === 1 ? 1 : size; // an RLE block stores its one byte
        this.header = [];
        this.state = 'skip';
        return this.skip === 0 && this.afterSkip();
      }
      default:
        return false;
    }
  }

  private startBlocks(): void {
    this.header = [];
    this.state = 'blockHeader';
    this.need = 3;
  }

  /** A skipped stretch is over: next block, the checksum, or the end of the frame. */
  private afterSkip(): boolean {
    if (!this.lastBlock) { this.startBlocks(); return false; }
    if (this.checksum) { this.checksum = false; this.skip = 4; return false; }
    this.header = [];
    this.state = 'magic';
    this.need = 4;
    this.lastBlock = false;
    return true;
  }
}

/**
 * Decompresses a whole zstd file, every frame of it, on the libuv threadpool, each frame into one
 * buffer of the size its header declares. The output is refused as soon as it passes the cap (a zstd
 * bomb costs at most the cap). Errors name `what`.
 */
export async function decompressZstd(bytes: Uint8Array, what: string, cap: ByteCap): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const { at, frame } of framesOf(bytes, what)) {
    const out = await new Promise<Buffer>((resolve, reject) => {
      zstdDecompress(frame, frameOptions(frame, cap, total), (e, r) => (e ? reject(frameError(e, cap, what, at)) : resolve(r)));
    });
    total += out.length;
    if (total > cap.bytes) throw new InputTooLargeError(what, cap, true);
    parts.push(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
  }
  return joinChunks(parts);
}

/** decompressZstd for commands that work synchronously (replay). */
export function decompressZstdSync(bytes: Uint8Array, what: string, cap: ByteCap): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const { at, frame } of framesOf(bytes, what)) {
    let out: Buffer;
    try {
      out = zstdDecompressSync(frame, frameOptions(frame, cap, total));
    } catch (e) {
      throw frameError(e, cap, what, at);
    }
    total += out.length;
    if (total > cap.bytes) throw new InputTooLargeError(what, cap, true);
    parts.push(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
  }
  return joinChunks(parts);
}

/** The data frames of a whole zstd file with where each starts (skippable frames left out). */
function framesOf(bytes: Uint8Array, what: string): Array<{ at: number; frame: Uint8Array }> {
  const scanner = new ZstdFrameScanner(what);
  const frames: Array<{ at: number; frame: Uint8Array }> = [];
  let at = 0;
  while (at < bytes.length) {
    const end = at + scanner.feed(bytes.subarray(at));
    if (!scanner.atBoundary) throw new Error(`${what}: truncated zstd data (the frame at byte ${at} is incomplete)`);
    const frame = bytes.subarray(at, end);
    if (!isSkippable(frame)) frames.push({ at, frame });
    at = end;
  }
  return frames;
}

/** One frame's decompression options: the cap's rest, and room for the content size its header declares. */
function frameOptions(frame: Uint8Array, cap: ByteCap, done: number): ReturnType<typeof inflateOptions> {
  return inflateOptions({ ...cap, bytes: cap.bytes - done }, declaredContentSize(frame));
}

/**
 * The content size a data frame's header declares (RFC 8878 section 3.1.1.1.4), if it does: zstd's
 * one-shot compressors (ours, galexie's) write it. The frame was checked by ZstdFrameScanner.
 */
function declaredContentSize(frame: Uint8Array): number | undefined {
  const { sizeAt, sizeBytes } = headerLayout(frame[4]);
  if (sizeBytes === 0) return undefined;
  const view = new DataView(frame.buffer, frame.byteOffset + sizeAt, sizeBytes);
  switch (sizeBytes) {
    case 1: return view.getUint8(0);
    case 2: return view.getUint16(0, true) + 256;
    case 4: return view.getUint32(0, true);
    default: return Number(view.getBigUint64(0, true));
  }
}

/**
 * Where a frame header's content size field lies and its length, from the header's descriptor byte
 * (after the magic): a window byte unless single-segment, then the dictionary id, then the size.
 */
function headerLayout(descriptor: number): { sizeAt: number; sizeBytes: number } {
  const singleSegment = (descriptor >> 5) & 1;
  return {
    sizeAt: 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3],
    sizeBytes: [singleSegment, 2, 4, 8][descriptor >> 6],
  };
}

function frameError(e: unknown, cap: ByteCap, what: string, at: number): Error {
  const error = inflateError(e, cap, what, 'zstd');
  return error instanceof InputTooLargeError ? error : new Error(`${what}: corrupt zstd data in the frame at byte ${at} (${(e as Error).message})`);
}

/** Decompresses zstd data arriving in pieces, frame after frame, without holding it whole. */
export async function* decompressZstdStream(input: AsyncIterable<Uint8Array>, what: string): AsyncGenerator<Uint8Array> {
  const source = input[Symbol.asyncIterator]();
  const scanner = new ZstdFrameScanner(what);
  let carry: Uint8Array | undefined;
  let skippable = false;
  let inputEnded = false;
  const truncated = () => new Error(`${what}: truncated zstd data (the stream ends inside a frame)`);
  // One frame's bytes: the carried rest of the last piece, then pieces until the scanner says the
  // frame ended; what follows it is carried to the next frame.
  async function* frame(): AsyncGenerator<Uint8Array> {
    let first = true;
    for (;;) {
      let piece = carry;
      carry = undefined;
      if (!piece) {
        const next = await source.next();
        if (next.done) {
          inputEnded = true;
          if (!scanner.atBoundary) throw truncated();
          return;
        }
        piece = next.value;
      }
      if (piece.length === 0) continue;
      if (first) { skippable = isSkippable(piece); first = false; }
      const used = scanner.feed(piece);
      if (used < piece.length) carry = piece.subarray(used);
      if (!skippable) yield piece.subarray(0, used);
      if (scanner.atBoundary) return;
    }
  }
  try {
    for (;;) {
      if (!carry) {
        const next = await source.next();
        if (next.done) return;
        carry = next.value;
      }
      if (carry.length === 0) { carry = undefined; continue; }
      if (isSkippable(carry)) {
        for await (const _ of frame()) { /* a skippable frame yields nothing */ }
        continue;
      }
      const bytes = Readable.from(frame(), { objectMode: false });
      const decoder = createZstdDecompress({ chunkSize: INFLATE_CHUNK_BYTES });
      bytes.on('error', (e) => decoder.destroy(e));
      bytes.pipe(decoder);
      try {
        for await (const out of decoder) yield new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      } catch (e) {
        // The decoder may notice the missing end before the scanner's own error gets through.
        if (inputEnded && !scanner.atBoundary) throw truncated();
        const message = (e as Error).message;
        throw new Error(message.startsWith(what) ? message : `${what}: corrupt zstd data (${message})`);
      } finally {
        bytes.destroy();
        decoder.destroy();
      }
    }
  } finally {
    // Stopped early (or failed): let the input close its file or stream.
    void Promise.resolve(source.return?.()).catch(() => {});
  }
}

function isSkippable(frame: Uint8Array): boolean {
  if (frame.length < 4) return false;
  const magic = (frame[0] | (frame[1] << 8) | (frame[2] << 16) | (frame[3] << 24)) >>> 0;
  return ((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE;
}

function hex(bytes: number[]): string {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ');
}
