// Ledgers from stellar-core's meta stream (`--metadata-output-stream`, METADATA_OUTPUT_STREAM): one
// record-marked LedgerCloseMeta per closed ledger, written to a file, a named pipe or a descriptor.
// A zstd-compressed capture of such a stream (load-test bundles) is read the same way.
import { closeSync, constants, createReadStream, openSync, type ReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { LedgerSource, RawLedger } from '../ledgerSource.ts';
import { readRecords } from '../../io/recordMarked.ts';
import { ledgerSequenceOf } from '../closeMetaSequence.ts';
import { decompressZstdStream, startsWithZstdMagic } from '../../io/zstdFrames.ts';
import { sleep, untilAbort } from '../../io/abortable.ts';
import { joinChunks, type ByteCap } from '../../io/inputCaps.ts';

export interface MetaStreamOptions {
  /** A file, a named pipe (FIFO), or "-" for standard input. */
  path: string;
  /** A regular file that core is still writing: at its end, wait for it to grow instead of ending. */
  follow?: boolean;
  /** How often a followed file is checked for growth (ms). */
  pollIntervalMs?: number;
  /** The most bytes of one record, one ledger's meta, decompressed (--max-input-bytes). */
  cap?: ByteCap;
}

export class MetaStreamSource implements LedgerSource {
  readonly description: string;
  private readonly path: string;
  private readonly follow: boolean;
  private readonly pollIntervalMs: number;
  private readonly cap: ByteCap | undefined;

  constructor(opts: MetaStreamOptions) {
    this.path = opts.path;
    this.description = `meta stream ${opts.path === '-' ? 'stdin' : opts.path}`;
    this.follow = opts.follow ?? false;
    this.pollIntervalMs = opts.pollIntervalMs ?? 250;
    this.cap = opts.cap;
  }

  async *ledgers(from: number, opts: { signal: AbortSignal; to?: number }): AsyncGenerator<RawLedger> {
    yield* ledgersFromMetaStream(await this.open(opts.signal), from, { ...opts, what: this.description, cap: this.cap });
  }

  async latest(): Promise<number | undefined> { return undefined; }
  async earliest(): Promise<number | undefined> { return undefined; }

  private async open(signal: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
    if (this.path === '-') return process.stdin;
    const info = await stat(this.path);
    if (info.isFile() && this.follow) return followFile(this.path, this.pollIntervalMs, signal);
    // A named pipe ends when its writer closes it.
    const stream = createReadStream(this.path, { highWaterMark: 1 << 20, signal });
    if (info.isFIFO()) signal.addEventListener('abort', () => void releaseBlockedOpen(this.path, stream), { once: true });
    return stream;
  }
}

/**
 * Opening a named pipe blocks a threadpool thread (not abortable) until a writer opens it, and a
 * pending open keeps the process alive. On abort we open the writing end ourselves for a moment;
 * a non-blocking writer open only succeeds once the reader's open has begun, which on a busy
 * threadpool may be later than the abort: so try until the stream's open is over (or give up).
 */
async function releaseBlockedOpen(path: string, stream: ReadStream): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (stream.pending && !stream.closed && Date.now() < deadline) {
    try {
      // Synchronous on purpose: it cannot block (non-blocking), and the threadpool may be full.
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch { /* no reader yet (ENXIO): its open has not started */ }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The ledgers of a meta stream given as raw bytes (zstd-compressed or not, told by its first bytes):
 * those from `from` on, which must follow each other without a gap, up to `to`. Shared by every
 * source that reads core's stream. Aborting ends it quietly; a stream cut inside a record throws, and
 * so does a record (one ledger's meta, decompressed) past `cap` (default: --max-input-bytes' default).
 */
export async function* ledgersFromMetaStream(
  chunks: AsyncIterable<Uint8Array>,
  from: number,
  opts: { signal: AbortSignal; to?: number; what: string; cap?: ByteCap },
): AsyncGenerator<RawLedger> {
  const { signal, what } = opts;
  const to = opts.to ?? Infinity;
  let expected = from;
  let previous: number | undefined;
  let records = 0;
  try {
    for await (const record of readRecords(maybeDecompressed(untilAbort(chunks, signal), what), what, opts.cap)) {
      const sequence = ledgerSequenceOf(record, `${what}: record ${records}`);
      records++;
      const before = previous;
      previous = sequence;
      // From 0: wherever the stream starts (a node with no ledger yet and no archive to start after).
      if (from === 0 && before === undefined) expected = sequence;
      // What comes before `from` (before anything was handed out) is neither handed out nor checked.
      if (sequence < from && expected === from) continue;
      if (sequence !== expected) {
        throw new Error(before === undefined
          ? `${what}: starts at ledger ${sequence}, after the requested ledger ${from}`
          : `${what}: ledger ${sequence} follows ledger ${before}, expected ledger ${expected}`);
      }
      expected = sequence + 1;
      if (signal.aborted) return;
      // A plain Uint8Array view even when the input came as Buffers (file and pipe streams).
      yield { sequence, bytes: new Uint8Array(record.buffer, record.byteOffset, record.byteLength) };
      if (sequence >= to) return;
    }
  } catch (e) {
    // Cutting the input short on abort may leave a partial record behind: that is no corruption.
    if (signal.aborted) return;
    throw e;
  }
}

/** The stream's bytes, decompressed when it opens with the zstd magic. */
async function* maybeDecompressed(chunks: AsyncIterable<Uint8Array>, what: string): AsyncGenerator<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  // Gather the first 4 bytes (a pipe may hand them over in smaller pieces) to look for the magic.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  while (headBytes < 4) {
    const next = await it.next();
    if (next.done) break;
    head.push(next.value);
    headBytes += next.value.length;
  }
  const whole: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: async function* () {
      yield* head;
      for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
    },
  };
  const first = joinChunks(head);
  try {
    if (startsWithZstdMagic(first)) yield* decompressZstdStream(whole, what);
    else yield* whole;
  } finally {
    // stopped early (a refused or corrupt record): close the file or pipe now, not at garbage collection
    await it.return?.();
  }
}

/** A regular file's bytes as it grows; never ends by itself (only the signal ends it). */
async function* followFile(path: string, pollIntervalMs: number, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const file = await open(path, 'r');
  try {
    let position = 0;
    while (!signal.aborted) {
      // A fresh buffer per read: records handed out may be views into it.
      const buffer = new Uint8Array(1 << 20);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        yield buffer.subarray(0, bytesRead);
      } else {
        await sleep(pollIntervalMs, signal);
      }
    }
  } finally {
    await file.close();
  }
}
