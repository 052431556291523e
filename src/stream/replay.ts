// Pacing of history replay: stored items go out a page at a time, with a turn of the event loop
// between pages (so live deliveries and other clients' requests interleave), and not while the
// connection already holds over half its buffer limit (a client reading slowly slows its own replay
// instead of being dropped for it, and never pins more than the limit in memory).
import type { StreamSink } from './streamSink.ts';

/** How often a replay waiting for its client to take what was sent looks again. */
const DRAIN_POLL_MS = 10;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves when the next page may be sent: after a turn, once `sink` holds at most half of
 * `maxBufferedBytes` (0: no limit), or as soon as `stopped()` says the replay is over.
 */
export async function beforeNextPage(sink: StreamSink, maxBufferedBytes: number, stopped: () => boolean): Promise<void> {
  await turn();
  while (!stopped() && maxBufferedBytes > 0 && sink.bufferedBytes > maxBufferedBytes / 2) await sleep(DRAIN_POLL_MS);
}

/**
 * Resolves when an item of about `bytes` may be sent within a page: at once when it fits in what is
 * left of `maxBufferedBytes` (or nothing is held: an item over the limit then goes alone), else once
 * enough was taken, or `stopped()`. A page's items otherwise go out back to back: a compressed
 * connection (permessage-deflate) holds each whole until the coder gets to it, so a page of large
 * items (pubnet ledgers of a megabyte and more) would pass the limit before anything is taken.
 */
export async function roomFor(sink: StreamSink, bytes: number, maxBufferedBytes: number, stopped: () => boolean): Promise<void> {
  while (!stopped() && maxBufferedBytes > 0 && sink.bufferedBytes > 0 && sink.bufferedBytes + bytes > maxBufferedBytes) await sleep(DRAIN_POLL_MS);
}
