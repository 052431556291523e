// JSON-RPC answers over HTTP in zstd or gzip (Content-Encoding), for clients that ask for it in
// Accept-Encoding (acceptEncoding.ts). The HTTP server hands every answer here first; what is not
// compressed goes out as before, untouched:
//  - answers under COMPRESS_FROM_BYTES (4 KiB): getHealth, getNetwork, a quiet ledger's
//    getLatestLedger (1.5 KB) and their like stay on the server's fast path, paying one comparison.
//    Under 4 KiB, answers (mostly base64 XDR) shrink by about a third, less than one TCP packet
//    (1,460 bytes) saved, while each compressed answer costs a coder and a trip to the threadpool;
//    from 4 KiB on a packet or more is saved, and pages of pubnet ledgers shrink 4.6 to 17 times
//    (BENCHMARKS.md, "Answer encoding");
//  - requests whose Accept-Encoding accepts neither coding (none, identity, q=0);
//  - answers arriving while MAX_CODERS answers are being compressed: they go out uncompressed, as
//    before, rather than queue for the threadpool or add to the coders' memory.
// Answers of 4 KiB and more carry `Vary: Accept-Encoding` whichever way they go.
//
// All compression runs on libuv's threadpool (zlib's asynchronous calls; never the *Sync ones): an
// answer up to 64 KiB in one call, then sent whole with its Content-Length; a larger one streamed
// through a coder into the response (chunked), its pieces fed as the coder takes them, so the
// answer is never joined nor its compressed form held whole, and a slow client holds back the coder
// and the feeding. The answer's uncompressed pieces stay held until they are all fed, so a streamed
// answer is counted in the unread-answer bytes (ConnectionGuard, --max-queued-response-bytes) at its
// uncompressed size plus its coder's memory, until delivered or its connection closes: never less
// than what is held. The answer budget (--max-response-body-bytes) keeps counting uncompressed bytes:
// it bounds what is built, before any coding.
import { pipeline } from 'node:stream';
import { constants, createGzip, createZstdCompress, gzip, zstdCompress, type ZlibOptions, type ZstdOptions } from 'node:zlib';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { JsonChunks, JsonPart } from '../rpc/rawJson.ts';
import { negotiateCoding, type AnswerCoding } from './acceptEncoding.ts';
import type { ConnectionGuard } from './connectionGuard.ts';

/** Answers from this size on (UTF-8 bytes; characters for an answer given as text) are compressed. */
export const COMPRESS_FROM_BYTES = 4 * 1024;
/** Answers up to this size are compressed in one call and sent whole (the server streams larger ones too). */
const WHOLE_UP_TO_BYTES = 64 * 1024;
/**
 * Answers being compressed at once (each holds a coder: up to ~4.6 MiB for a large zstd answer, a few
 * hundred KiB for gzip). Four threads serve the threadpool by default; more coders would only wait.
 */
const MAX_CODERS = 16;
/**
 * gzip level 3: the last of zlib's fast (greedy) levels; level 6 (zlib's default) makes pubnet ledger
 * pages about 10-20% smaller for 1.5-3 times the CPU. zstd at its default level 3 makes them smaller
 * than any gzip level (1.6-1.8x smaller than gzip 3) at about gzip 3's speed.
 */
const GZIP_LEVEL = 3;
const ZSTD_LEVEL = 3;
/** Output pieces of a streamed answer: fewer trips to the threadpool and fewer chunks than zlib's 16 KiB. */
const STREAM_CHUNK_BYTES = 64 * 1024;
/** Text pieces are fed in slices of this many characters, so the coder's copy of a piece stays small. */
const FEED_SLICE_CHARS = 64 * 1024;

/** A gzip window as large as the answer and no larger: a bigger one cannot help, and costs memory. */
const windowBitsFor = (bytes: number): number => Math.min(15, Math.max(9, Math.ceil(Math.log2(bytes))));

function gzipOptions(bytes: number, chunkSize?: number): ZlibOptions {
  const windowBits = windowBitsFor(bytes);
  return { level: GZIP_LEVEL, windowBits, memLevel: Math.min(8, Math.max(1, windowBits - 7)), chunkSize };
}

/** The exact size is pledged: zstd then sizes its window to the answer (and writes the size in the frame). */
function zstdOptions(bytes: number, chunkSize?: number): ZstdOptions {
  return { pledgedSrcSize: bytes, chunkSize, params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } };
}

/**
 * Memory a streaming coder holds for an answer of `bytes`, output on its way to the socket included.
 * gzip: zlib's own formula (window and hash chains). zstd at level 3: its window (sized to the answer,
 * at most 2 MiB), about twice over for its buffers, and its match tables (at most 768 KiB).
 */
export function coderBytes(coding: AnswerCoding, bytes: number, chunkSize = STREAM_CHUNK_BYTES): number {
  const output = 2 * chunkSize;
  if (coding === 'gzip') {
    const { windowBits, memLevel } = gzipOptions(bytes) as { windowBits: number; memLevel: number };
    return (1 << (windowBits + 2)) + (1 << (memLevel + 9)) + output;
  }
  const window = 2 ** Math.min(21, Math.max(10, Math.ceil(Math.log2(bytes))));
  return 2 * window + 768 * 1024 + output;
}

/** `Accept-Encoding` added to the answer's Vary. */
function addVary(headers: OutgoingHttpHeaders): void {
  const vary = headers.vary;
  headers.vary = vary === undefined ? 'Accept-Encoding' : `${String(vary)}, Accept-Encoding`;
}

/** One answer's bytes, joined (it is small). */
function joined(answer: string | JsonChunks): Buffer {
  if (typeof answer === 'string') return Buffer.from(answer);
  return Buffer.concat(answer.parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)), answer.bytes);
}

/** A piece in slices the coder copies a little at a time (a cut never splits a surrogate pair). */
function* slices(part: JsonPart): Generator<JsonPart> {
  if (typeof part !== 'string' || part.length <= FEED_SLICE_CHARS) {
    yield part;
    return;
  }
  for (let at = 0; at < part.length;) {
    let end = Math.min(part.length, at + FEED_SLICE_CHARS);
    const last = part.charCodeAt(end - 1);
    if (end < part.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield part.slice(at, end);
    at = end;
  }
}

export interface AnswerCompressionOptions {
  /** False: every answer goes out uncompressed (--http-compression=false). */
  enabled: boolean;
  /** The unread-answer accounting a streamed answer is counted in. */
  connections: ConnectionGuard;
  logger: Logger;
}

export class AnswerCompression {
  private readonly options: AnswerCompressionOptions;
  /** Answers being compressed now. */
  inUse = 0;
  constructor(options: AnswerCompressionOptions) { this.options = options; }

  /**
   * Sends `answer` (status 200, with `headers`) compressed, when it is large enough, the request
   * accepts zstd or gzip and a coder is free; false when the caller is to send it as usual,
   * uncompressed (with `headers`, which then name Accept-Encoding in Vary when the size could have
   * been compressed).
   */
  send(req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders, answer: string | JsonChunks): boolean {
    const size = typeof answer === 'string' ? answer.length : answer.bytes;
    if (size < COMPRESS_FROM_BYTES || !this.options.enabled) return false;
    addVary(headers);
    const coding = negotiateCoding(req.headers['accept-encoding']);
    if (coding === undefined || this.inUse >= MAX_CODERS) return false;
    this.inUse++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.inUse--;
    };
    if (size <= WHOLE_UP_TO_BYTES) this.sendWhole(res, headers, joined(answer), coding, release);
    else this.stream(res, headers, answer, coding, release);
    return true;
  }

  /** A small answer compressed in one threadpool call, then sent with its Content-Length. */
  private sendWhole(res: ServerResponse, headers: OutgoingHttpHeaders, input: Buffer, coding: AnswerCoding, release: () => void): void {
    const done = (err: Error | null, out: Buffer): void => {
      release();
      if (res.destroyed) return;
      if (err !== null) {
        this.options.logger.error({ err, coding }, 'compressing an answer failed; sent uncompressed');
        res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': input.length });
        res.end(input);
        return;
      }
      res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-encoding': coding, 'content-length': out.length });
      res.end(out);
    };
    if (coding === 'gzip') gzip(input, gzipOptions(input.length), done);
    else zstdCompress(input, zstdOptions(input.length), done);
  }

  /** A large answer fed piece by piece through a coder into the response, as the client takes it. */
  private stream(res: ServerResponse, headers: OutgoingHttpHeaders, answer: string | JsonChunks, coding: AnswerCoding, release: () => void): void {
    const bytes = typeof answer === 'string' ? Buffer.byteLength(answer) : answer.bytes;
    res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-encoding': coding });
    this.options.connections.track(res, bytes + coderBytes(coding, bytes));
    const coder = coding === 'gzip' ? createGzip(gzipOptions(bytes, STREAM_CHUNK_BYTES)) : createZstdCompress(zstdOptions(bytes, STREAM_CHUNK_BYTES));
    pipeline(coder, res, (err) => {
      release();
      // a client that went away is no failure; a coder that failed leaves a truncated answer
      if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') this.options.logger.error({ err, coding }, 'compressing an answer failed');
    });
    const pieces = (function* () {
      for (const part of typeof answer === 'string' ? [answer] : answer.parts) yield* slices(part);
    })();
    const feed = (): void => {
      for (;;) {
        if (coder.destroyed) return;
        const next = pieces.next();
        if (next.done) break;
        if (!coder.write(next.value)) {
          coder.once('drain', feed);
          return;
        }
      }
      coder.end();
    };
    feed();
  }
}
