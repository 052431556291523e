// Pacing of what goes to a connection: stored items go out a page at a time, with a turn of the event
// loop between pages (so live deliveries and other clients' requests interleave), and no item (stored
// or live) while the connection already holds over half its buffer limit (a client reading slowly
// slows its own stream instead of being dropped for it, and never pins more than the limit plus one
// item in its socket).
import type { StreamSink } from './streamSink.ts';

/** How often a replay waiting for its client to take what was sent looks again. */
const DRAIN_POLL_MS = 10;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves at once when `sink` holds at most half of `maxBufferedBytes` (0: no limit), else once it
 * does (or `stopped()`): the next item goes out only then, however big it is.
 */
export async function whenTaken(sink: StreamSink, maxBufferedBytes: number, stopped: () => boolean): Promise<void> {
  while (!stopped() && maxBufferedBytes > 0 && sink.bufferedBytes > maxBufferedBytes / 2) await sleep(DRAIN_POLL_MS);
}

/**
 * Resolves when the next page may be sent: after a turn, once `sink` holds at most half of
 * `maxBufferedBytes` (0: no limit), or as soon as `stopped()` says the replay is over.
 */
export async function beforeNextPage(sink: StreamSink, maxBufferedBytes: number, stopped: () => boolean): Promise<void> {
  await turn();
  await whenTaken(sink, maxBufferedBytes, stopped);
}
