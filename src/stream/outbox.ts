// What one connection has yet to take, in the order it must get it: answers (WebSocket), replayed
// items and live items wait here, as references to bytes shared by every subscriber (waiting costs
// an entry, not a copy), and go to the connection's socket as its client takes what the socket
// holds (the DeliveryScheduler hands them over). It also keeps what the hub judges a connection by:
// the bytes it holds, when its oldest waiting entry came, since when it has taken nothing while
// something waited, and how fast it takes.
import type { StreamItem, Subscription } from './kinds/kind.ts';
import type { StreamSink } from './streamSink.ts';
import { Fifo } from './fifo.ts';

/** What framing adds to an item (the WebSocket head naming the subscription, or the SSE id and kind lines). */
const FRAMING_BYTES = 96;

export type Entry =
  | { sub: Subscription; item: StreamItem; final: boolean; bytes: number; at: number }
  | { answer: string; bytes: number; at: number };

/** A notification entry for `item`, queued at `at` (performance.now()). */
export const itemEntry = (sub: Subscription, item: StreamItem, final: boolean, at: number): Entry =>
  ({ sub, item, final, bytes: item.bytes.length + FRAMING_BYTES, at });

/** An answer entry (JSON-RPC over WebSocket). */
export const answerEntry = (answer: string, at: number): Entry => ({ answer, bytes: answer.length, at });

/** What handOver did: the outbox is empty; the socket holds its window; or a quantum was handed and more waits. */
export type HandOver = 'empty' | 'full' | 'more';

export class Outbox {
  readonly sink: StreamSink;
  private readonly entries = new Fifo<Entry>();
  /** Bytes of the entries waiting here. */
  pending = 0;
  /** Replays waiting for room on this connection. */
  private roomWaiters: Array<() => void> = [];
  /** Since when something has waited while the socket held its window and took nothing (undefined: not stalled). */
  stalledSince: number | undefined;
  /** Bytes handed to the socket since the last measure of the take rate, and what the socket held then. */
  private handedSinceMeasure = 0;
  private heldAtMeasure = 0;
  private measuredAt: number;
  /** Bytes a second the client took, smoothed over the last measures. */
  takeRate = 0;
  /** In the scheduler's ready queue. */
  scheduled = false;
  /** Closed by the hub: nothing more goes out; kept while its socket still holds bytes. */
  closing = false;
  private readonly onPending: (delta: number) => void;

  /** `onPending`: told every change of `pending` (the hub's total). */
  constructor(sink: StreamSink, onPending: (delta: number) => void, now = performance.now()) {
    this.sink = sink;
    this.onPending = onPending;
    this.measuredAt = now;
  }

  /** Entries waiting. */
  get length(): number { return this.entries.length; }
  /** What the connection holds that its client has not taken: waiting entries and the socket's bytes. */
  get held(): number { return this.pending + this.sink.bufferedBytes; }
  /** When the oldest waiting entry was queued. */
  get oldestAt(): number | undefined { return this.entries.peek()?.at; }
  /** Something waits for this connection: entries, or a replay wanting room. */
  get waiting(): boolean { return this.length > 0 || this.roomWaiters.length > 0; }

  push(entry: Entry): void {
    this.entries.push(entry);
    this.pending += entry.bytes;
    this.onPending(entry.bytes);
  }

  /**
   * Hands waiting entries to the socket while it holds less than `window` bytes, at most `quantum`
   * bytes in this turn (one entry at least, however big). `deliver` sends one entry.
   */
  handOver(window: number, quantum: number, deliver: (entry: Entry) => void): HandOver {
    let handed = 0;
    while (this.length > 0) {
      if (this.sink.bufferedBytes >= window) return 'full';
      if (handed >= quantum) return 'more';
      const entry = this.shift();
      handed += entry.bytes;
      this.handedSinceMeasure += entry.bytes;
      this.stalledSince = undefined;
      deliver(entry);
    }
    return 'empty';
  }

  /** Whether a replay may render its next page now: nothing waits and the socket holds less than `window`. */
  hasRoom(window: number): boolean { return this.length === 0 && this.sink.bufferedBytes < window; }

  /** Resolves once hasRoom (the scheduler calls grantRoom), or once the connection is closed. */
  room(window: number): Promise<void> {
    if (this.closing || this.hasRoom(window)) return Promise.resolve();
    return new Promise((resolve) => { this.roomWaiters.push(resolve); });
  }

  /** Lets the waiting replays go on (room, or the connection closed: they look at their own stop). */
  grantRoom(): void {
    if (this.roomWaiters.length === 0) return;
    this.stalledSince = undefined;
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }

  /** Notes that the socket holds its window while something waits (the start of a stall, if none is running). */
  full(now: number): void {
    if (this.stalledSince === undefined && this.waiting) this.stalledSince = now;
  }

  /** Drops every waiting entry (a closed connection) and wakes the waiting replays. */
  discard(): void {
    this.onPending(-this.pending);
    this.pending = 0;
    this.entries.clear();
    this.grantRoom();
  }

  /** Updates takeRate from what was handed and what the socket still holds; returns what the socket holds. */
  measure(now: number): number {
    const held = this.sink.bufferedBytes;
    const seconds = (now - this.measuredAt) / 1000;
    if (seconds > 0) {
      const taken = Math.max(0, this.handedSinceMeasure + this.heldAtMeasure - held);
      this.takeRate = this.takeRate / 2 + taken / seconds / 2;
    }
    this.handedSinceMeasure = 0;
    this.heldAtMeasure = held;
    this.measuredAt = now;
    return held;
  }

  private shift(): Entry {
    const entry = this.entries.shift()!;
    this.pending -= entry.bytes;
    this.onPending(-entry.bytes);
    return entry;
  }
}
