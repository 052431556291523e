// Caps on what the node takes in from outside: a datastore file, a history archive's file, a fork
// remote's answer, a file given to `replay`, one record of a meta stream or a bucket. Each piece is
// counted while it arrives (as read, and again once decompressed) and refused the moment it passes
// its cap, so a 1 GB answer, a zstd bomb or /dev/zero costs at most the cap in memory and ends in one
// error naming the input, the cap and the flag that raises it. The defaults are far above honest
// input: a busy pubnet LedgerCloseMeta is 1-3 MB, the biggest synthetic ledger the tests make 18 MB.
import { open } from 'node:fs/promises';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { gunzip, gunzipSync } from 'node:zlib';

/** Default of --max-input-bytes: one file, object, answer or record, as read and decompressed. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024;
/** Default of --max-bucket-bytes: one history archive bucket, decompressed (streamed, never held whole). */
export const DEFAULT_MAX_BUCKET_BYTES = 64 * 1024 ** 3;
/** Decompressors hand back output in pieces this big: Node's 16 KiB default costs a callback per piece. */
export const INFLATE_CHUNK_BYTES = 1024 * 1024;

/** A cap and the flag that sets it (named in the error). */
export interface ByteCap {
  bytes: number;
  /** Without dashes: 'max-input-bytes'; absent for a fixed cap. */
  flag?: string;
}

/** Answers of small services (stellar-core's /tx, a faucet): kilobytes when honest. */
export const SERVICE_ANSWER_CAP: ByteCap = { bytes: 1024 * 1024 };

/** Configuration files (TOML, stellar-core's): far above any real one, and no flag (it would be read from one). */
export const CONFIG_FILE_CAP: ByteCap = { bytes: 16 * 1024 * 1024 };

export const inputCap = (bytes = DEFAULT_MAX_INPUT_BYTES): ByteCap => ({ bytes, flag: 'max-input-bytes' });

export class InputTooLargeError extends Error {
  readonly cap: ByteCap;
  constructor(what: string, cap: ByteCap, decompressed: boolean) {
    const raise = cap.flag ? ` (--${cap.flag} raises it)` : '';
    super(`${what}: refused: ${decompressed ? 'decompressed, it is' : 'it is'} larger than the ${formatBytes(cap.bytes)} input cap${raise}`);
    this.name = 'InputTooLargeError';
    this.cap = cap;
  }
}

function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (n >= size) return `${Number.isInteger(n / size) ? n / size : (n / size).toFixed(1)} ${unit}`;
  }
  return `${n} bytes`;
}

/** The chunks, passed on while they add up to at most the cap; past it, an InputTooLargeError. */
export async function* capped(chunks: AsyncIterable<Uint8Array>, cap: ByteCap, what: string, decompressed = false): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > cap.bytes) throw new InputTooLargeError(what, cap, decompressed);
    yield chunk;
  }
}

/** A configuration file's text (UTF-8), at most CONFIG_FILE_CAP: /dev/zero given as one ends in an error. */
export function readConfigFile(path: string): string {
  return textOf(readFileCappedSync(path, CONFIG_FILE_CAP));
}

/** Bytes read as UTF-8 text, without copying them first. */
export const textOf = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

/**
 * A file's bytes, at most the cap: a regular file larger than it is refused before it is read, and
 * anything else (a device, a pipe, a file still growing) is read until it ends or passes the cap.
 */
export async function readFileCapped(path: string, cap: ByteCap, what = path): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const info = await file.stat();
    const fill = new Filling(info.isFile() ? info.size : undefined, cap, what);
    for (;;) {
      const into = fill.room();
      const { bytesRead } = await file.read(into, 0, into.length, null);
      if (fill.took(bytesRead, into.length)) return fill.bytes();
    }
  } finally {
    await file.close();
  }
}

/** readFileCapped for commands that read their files synchronously (replay, configuration files). */
export function readFileCappedSync(path: string, cap: ByteCap, what = path): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const info = fstatSync(fd);
    const fill = new Filling(info.isFile() ? info.size : undefined, cap, what);
    for (;;) {
      const into = fill.room();
      if (fill.took(readSync(fd, into, 0, into.length, null), into.length)) return fill.bytes();
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Where a file is read to. A regular file: one buffer of its stated size plus one byte (the byte that
 * tells a file grown past it). Anything else: pieces of 4 MiB, joined at the end, so input refused at
 * the cap has cost the cap and one piece, never a copy of what was read.
 */
class Filling {
  private readonly pieces: Uint8Array[] = [];
  private piece: Uint8Array;
  private filled = 0;
  private total = 0;
  private readonly size: number | undefined;
  private readonly cap: ByteCap;
  private readonly what: string;

  constructor(size: number | undefined, cap: ByteCap, what: string) {
    if (size !== undefined && size > cap.bytes) throw new InputTooLargeError(what, cap, false);
    this.size = size;
    this.cap = cap;
    this.what = what;
    this.piece = new Uint8Array(Math.min(cap.bytes + 1, size ? size + 1 : PIECE_BYTES));
  }

  /** Where the next read goes. */
  room(): Uint8Array {
    if (this.filled === this.piece.length) {
      this.pieces.push(this.piece);
      this.piece = new Uint8Array(Math.min(PIECE_BYTES, this.cap.bytes + 1 - this.total));
      this.filled = 0;
    }
    return this.piece.subarray(this.filled);
  }

  /**
   * Counts a read of `asked` bytes; true at the end of the file. A regular file reads short only at
   * its end: a short read that brings its stated size in is the last, with no read of 0 bytes to come.
   */
  took(bytesRead: number, asked: number): boolean {
    this.filled += bytesRead;
    this.total += bytesRead;
    if (this.total > this.cap.bytes) throw new InputTooLargeError(this.what, this.cap, false);
    return bytesRead === 0 || (this.total === this.size && bytesRead < asked);
  }

  bytes(): Uint8Array { return joinChunks([...this.pieces, this.piece.subarray(0, this.filled)]); }
}

const PIECE_BYTES = 4 * 1024 * 1024;

/**
 * An HTTP answer's body (as fetch decoded it: a Content-Encoding is undone while it is counted),
 * refused as soon as it passes the cap; a Content-Length over it is refused before reading.
 */
export async function readBodyCapped(res: Response, cap: ByteCap, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  if (!encoded && declared > cap.bytes) {
    await res.body?.cancel();
    throw new InputTooLargeError(what, cap, false);
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return joinChunks(parts);
      total += value.length;
      if (total > cap.bytes) throw new InputTooLargeError(what, cap, encoded);
      parts.push(value);
    }
  } finally {
    // stops the transfer when the body was refused (a no-op once it ended)
    void reader.cancel().catch(() => {});
  }
}

/** gzip data decompressed on the libuv threadpool, refused once the output passes the cap. */
export function gunzipCapped(bytes: Uint8Array, cap: ByteCap, what: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    gunzip(bytes, inflateOptions(cap), (e, out) => {
      if (e) reject(inflateError(e, cap, what, 'gzip'));
      else resolve(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
    });
  });
}

/** gunzipCapped for commands that work synchronously (replay). */
export function gunzipCappedSync(bytes: Uint8Array, cap: ByteCap, what: string): Uint8Array {
  try {
    const out = gunzipSync(bytes, inflateOptions(cap));
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (e) {
    throw inflateError(e, cap, what, 'gzip');
  }
}

/**
 * Options for Node's one-shot decompressors: output bounded by the cap (they fail past it). `declared`:
 * the output's size as the input declares it (a zstd frame header). Node gathers output in chunks of
 * chunkSize, allocated whole before any output, so one chunk a byte larger than the declared size is
 * the output itself, with no chunks to join; only up to PRESIZED_MAX_BYTES, since a header can lie.
 */
export function inflateOptions(cap: ByteCap, declared?: number): { chunkSize: number; maxOutputLength: number } {
  const presized = declared !== undefined && declared <= PRESIZED_MAX_BYTES;
  const chunkSize = presized ? Math.max(MIN_CHUNK_BYTES, Math.min(declared, cap.bytes) + 1) : INFLATE_CHUNK_BYTES;
  return { chunkSize, maxOutputLength: Math.max(1, cap.bytes) };
}

/** The largest output allocated at the size its input declares (a ledger's meta is 1-3 MB on pubnet). */
const PRESIZED_MAX_BYTES = 64 * 1024 * 1024;
/** Node's smallest chunkSize (zlib.constants.Z_MIN_CHUNK). */
const MIN_CHUNK_BYTES = 64;

/** A one-shot decompressor's failure: the cap (Node's ERR_BUFFER_TOO_LARGE), or corrupt data. */
export function inflateError(e: unknown, cap: ByteCap, what: string, format: 'gzip' | 'zstd'): Error {
  if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return new InputTooLargeError(what, cap, true);
  return new Error(`${what}: corrupt ${format} data (${(e as Error).message})`);
}

/** The chunks as one array (the chunk itself when there is one). */
export function joinChunks(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) { out.set(p, n); n += p.length; }
  return out;
}
