// The transport-agnostic core of streaming: subscriptions of every connection (WebSocket or SSE),
// fed from the LedgerFeed. Per committed ledger it reads from the store, once, what its live
// subscriptions need (so a notification never announces what the methods could not read yet, and
// carries exactly what they would return), matches through each kind's index, renders each item
// once per xdrFormat, and hands the text to the connections' sinks. Ledgers are handled in order, on
// a queue of its own: the feed's listener only enqueues.
//
// A subscription with a start first replays stored items (pages, paced: replay.ts), then goes live.
// The switch happens only once the replay has read through the newest ledger announced, at that
// moment and synchronously; from then on the live path delivers ledgers after its `through`, so no
// ledger is delivered twice and none is skipped.
//
// Items go to a connection as it takes them: a replay waits before each item while the connection
// holds over half its buffer limit, and live items wait in the connection's outbox (references to
// the rendered texts, shared by every subscriber) while it does. So one item bigger than the limit
// (a 17 MB ledger) still goes out, and a ledger of 6,000 transactions and 18,000 events reaches a
// client that keeps up, however many bytes it is. A connection is too slow, and closed (4001; it
// resumes from its last id), when new items come while it holds more than the limit and its oldest
// undelivered item has waited over the lag limit (30 s): it is falling behind. (Not a count of ledgers: a
// follower catching up commits many at once, and a client that reads at once must not pay for it.)
//
// A developer revert (the feed's `reverted`) takes the stored ledgers back: live subscriptions go on
// from the reverted-to ledger, so they receive the re-closed sequences (with their new contents)
// again; items of the dropped ledgers are not retracted. A subscription still replaying when the
// store goes back cannot know where it stands: its connection is closed (4002) and it resubscribes.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { LedgerFeed, CommittedLedger } from '../ingest/ledgerFeed.ts';
import { RpcError } from '../rpc/errors.ts';
import type { Metrics } from '../rpc/metrics.ts';
import type { MethodContext } from '../rpc/methods/types.ts';
import { CloseCode, STREAM_KINDS, type StreamKindName, type StreamSink } from './streamSink.ts';
import { invalid, type Kind, type StreamItem, type Subscription } from './kinds/kind.ts';
import { LedgersKind } from './kinds/ledgers.ts';
import { EventsKind } from './kinds/events.ts';
import { TransactionsKind } from './kinds/transactions.ts';
import { TransactionKind } from './kinds/transaction.ts';
import { beforeNextPage, whenTaken } from './replay.ts';

/** How long a live item may wait for its connection before that connection counts as lagging. */
const DEFAULT_MAX_LAG_MS = 30_000;

/** JSON-RPC code of "too many subscriptions" (a server error, as the spec of issue 15 fixes it). */
export const TOO_MANY_SUBSCRIPTIONS = -32000;

export interface SubscriptionHubOptions {
  feed: LedgerFeed;
  /** The methods' context: the store, the heavy-work slots and JSON workers, the config. */
  ctx: MethodContext;
  logger?: Logger;
  metrics?: Metrics;
  maxSubscriptionsPerConnection: number;
  /** A connection's unsent bytes beyond which it is closed with 4001 (0: no limit), once it lags too. */
  maxStreamBufferBytes: number;
  /** How long a live item may wait for its connection before that connection counts as lagging (--max-stream-lag; default 30 s). */
  maxStreamLagMs?: number;
  /** The kinds served (default: all of them); tests may pass their own. */
  kinds?: readonly Kind[];
}

export class SubscriptionHub {
  private readonly kinds = new Map<StreamKindName, Kind>();
  private readonly bySink = new Map<StreamSink, Map<string, Subscription>>();
  private readonly outboxes = new Map<StreamSink, Outbox>();
  private readonly counts = new Map<StreamKindName, number>();
  private readonly logger: Logger | undefined;
  private readonly metrics: Metrics | undefined;
  private readonly maxSubscriptions: number;
  private readonly maxBuffered: number;
  private readonly maxLagMs: number;
  private readonly stopListening: () => void;
  private readonly stopListeningReverts: () => void;
  /** Counts the store's reverts: work begun before one is dropped rather than delivered after it. */
  private reverts = 0;
  /** Newest ledger the feed announced (or stored at start). */
  private announced: number;
  /** Ledgers announced while some subscription was live, not handled yet. */
  private readonly queue: number[] = [];
  private pumping = false;
  private closed = false;
  private counter = 0;
  /** Makes ids unique per node run (and unguessable across runs). */
  private readonly runTag = randomBytes(3).toString('hex');

  constructor(options: SubscriptionHubOptions) {
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.maxSubscriptions = options.maxSubscriptionsPerConnection;
    this.maxBuffered = options.maxStreamBufferBytes;
    this.maxLagMs = options.maxStreamLagMs ?? DEFAULT_MAX_LAG_MS;
    for (const kind of options.kinds ?? defaultKinds(options.ctx)) this.kinds.set(kind.name, kind);
    this.announced = Math.max(options.feed.latest, options.ctx.store.ledgerRange()?.latest.sequence ?? 0);
    this.stopListening = options.feed.listen((ledgers) => this.committed(ledgers));
    this.stopListeningReverts = options.feed.listenReverts((ledger) => this.reverted(ledger));
  }

  /** Subscriptions open now, by kind (metrics). */
  subscriptionCounts(): Record<StreamKindName, number> {
    const out = {} as Record<StreamKindName, number>;
    for (const k of STREAM_KINDS) out[k] = this.counts.get(k) ?? 0;
    return out;
  }

  /**
   * Opens a subscription for `sink`: its id, or an RpcError (-32602 bad params or unknown kind,
   * -32000 too many subscriptions). Its first notification comes after a turn of the event loop
   * and after `answered` resolves (the transport passes when the answer carrying the id was sent: a
   * batch's answer may wait for its slowest call), so the client knows the id before its items.
   */
  subscribe(sink: StreamSink, params: unknown, answered?: Promise<void>): string {
    if (this.closed) throw new RpcError(TOO_MANY_SUBSCRIPTIONS, 'the node is shutting down');
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw invalid('subscribe params must be an object: {"kind": "ledgers" | "events" | "transactions" | "transaction", ...}');
    }
    const p = params as Record<string, unknown>;
    const name = p.kind;
    const kind = typeof name === 'string' ? this.kinds.get(name as StreamKindName) : undefined;
    if (kind === undefined) {
      throw invalid(name === undefined
        ? `subscribe params need a kind: ${STREAM_KINDS.join(', ')}`
        : `unknown subscription kind ${JSON.stringify(name)}: ${STREAM_KINDS.join(', ')}`);
    }
    let subs = this.bySink.get(sink);
    if (subs !== undefined && this.maxSubscriptions > 0 && subs.size >= this.maxSubscriptions) {
      throw new RpcError(TOO_MANY_SUBSCRIPTIONS, `too many subscriptions (limit ${this.maxSubscriptions})`);
    }
    const base: Subscription = {
      id: `s${this.runTag}${(++this.counter).toString(16)}`, kind: kind.name, sink, format: 'base64',
      through: this.announced, live: false, ended: false,
    };
    const sub = kind.open(p, base, this.announced);
    if (subs === undefined) {
      subs = new Map();
      this.bySink.set(sink, subs);
    }
    subs.set(sub.id, sub);
    this.counts.set(kind.name, (this.counts.get(kind.name) ?? 0) + 1);
    void this.run(kind, sub, answered);
    return sub.id;
  }

  /** Ends one of `sink`'s subscriptions; false when it has none by that id. */
  unsubscribe(sink: StreamSink, id: string): boolean {
    const sub = this.bySink.get(sink)?.get(id);
    if (sub === undefined) return false;
    this.end(sub);
    return true;
  }

  /** Forgets a connection that closed (every transport calls it on close; calling it twice is harmless). */
  dropSink(sink: StreamSink): void {
    const subs = this.bySink.get(sink);
    if (subs === undefined) return;
    for (const sub of [...subs.values()]) this.end(sub);
    this.bySink.delete(sink);
    this.outboxes.delete(sink);
  }

  /** Stops: every connection with a subscription is closed with 1001 (the transports close the others). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopListening();
    this.stopListeningReverts();
    this.queue.length = 0;
    for (const sink of [...this.bySink.keys()]) {
      sink.close(CloseCode.goingAway, 'node shutting down');
      this.dropSink(sink);
    }
  }

  private committed(ledgers: readonly CommittedLedger[]): void {
    if (this.closed) return;
    const anyLive = [...this.kinds.values()].some((k) => k.liveCount > 0);
    for (const l of ledgers) {
      this.announced = l.ledger.sequence;
      // with no live subscription a ledger needs no work: one going live later is past it already
      if (anyLive) this.queue.push(l.ledger.sequence);
    }
    if (!this.pumping && this.queue.length > 0) void this.pump();
  }

  /**
   * The store went back to the end of `ledger`: ledgers after it are no longer announced, live
   * subscriptions deliver from the next one on (the re-closed sequences), replaying ones end.
   */
  private reverted(ledger: number): void {
    if (this.closed) return;
    this.reverts++;
    this.announced = Math.min(this.announced, ledger);
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i] > ledger) this.queue.splice(i, 1);
    for (const subs of [...this.bySink.values()]) {
      for (const sub of [...subs.values()]) {
        if (sub.ended) continue;
        if (sub.live) {
          if (sub.through > ledger) sub.through = ledger;
        } else {
          this.metrics?.streamSubscriberDropped('error');
          sub.sink.close(CloseCode.reverted, `the ledgers were reverted to ${ledger} during replay; subscribe again`);
          this.dropSink(sub.sink);
        }
      }
    }
  }

  /** Handles queued ledgers in order, one at a time. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const sequence = this.queue.shift()!;
        const reverts = this.reverts;
        for (const kind of this.kinds.values()) {
          if (kind.liveCount === 0) continue;
          let deliveries: Array<{ sub: Subscription; item: StreamItem }>;
          try {
            deliveries = await kind.ledger(sequence);
          } catch (err) {
            if (reverts !== this.reverts) break; // read across a revert: the ledger is gone
            // no silent gap: the subscriptions that missed this ledger lose their connection
            this.logger?.error({ err, ledger: sequence, kind: kind.name }, 'streaming: reading a ledger for subscriptions failed');
            for (const sub of [...kind.live()]) if (sub.through < sequence) this.fail(sub, err);
            continue;
          }
          // a revert while reading: what was read may be a dropped ledger's; the queue says what is next
          if (reverts !== this.reverts) break;
          const touched = new Set<StreamSink>();
          for (const { sub, item } of deliveries) {
            if (sub.live && !sub.ended && sub.through < sequence && this.enqueue(sub, item, kind.single)) touched.add(sub.sink);
          }
          for (const sink of touched) this.flush(sink);
          for (const sub of kind.live()) if (sub.through < sequence) sub.through = sequence;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Replays stored items from the subscription's start, then makes it live. */
  private async run(kind: Kind, sub: Subscription, answered?: Promise<void>): Promise<void> {
    const stopped = (): boolean => sub.ended || this.closed;
    try {
      await new Promise((resolve) => setImmediate(resolve)); // the subscribe answer goes out first
      if (answered !== undefined) await answered;
      for (;;) {
        const target = this.announced;
        for (;;) {
          if (stopped()) return;
          const page = await kind.replay(sub, target, kind.pageSize);
          for (const item of page.items) {
            // item by item (not a page at once): a compressed connection holds each item whole until
            // its coder gets to it, and ledgers of megabytes would pass the limit before any is taken
            await whenTaken(sub.sink, this.maxBuffered, stopped);
            if (stopped()) return;
            this.send(sub, item, kind.single);
          }
          if (page.done) break;
          await beforeNextPage(sub.sink, this.maxBuffered, stopped);
        }
        if (stopped()) return;
        if (target > sub.through) sub.through = target;
        // synchronously with the check: the next ledger announced finds it live
        if (this.announced === sub.through) {
          sub.live = true;
          kind.add(sub);
          return;
        }
        await beforeNextPage(sub.sink, this.maxBuffered, stopped);
      }
    } catch (err) {
      if (!stopped()) {
        this.logger?.error({ err, kind: kind.name }, 'streaming: replay failed');
        this.fail(sub, err);
      }
    }
  }

  private send(sub: Subscription, item: StreamItem, final: boolean): void {
    if (sub.ended) return;
    const sink = sub.sink;
    const text = sink.frame({ subscription: sub.id, kind: sub.kind, id: item.id, item: item.text, final });
    sink.deliver(text, Buffer.byteLength(text));
    this.metrics?.streamNotificationSent(sub.kind);
    if (final) {
      this.end(sub);
      sink.subscriptionEnded?.(sub.id);
    }
  }

  /**
   * Puts a live item in its connection's outbox; false when the connection
   * was found too slow instead (see the top of this file) and closed.
   */
  private enqueue(sub: Subscription, item: StreamItem, final: boolean): boolean {
    const sink = sub.sink;
    let box = this.outboxes.get(sink);
    if (box === undefined) {
      box = { items: [], bytes: 0, flushing: false };
      this.outboxes.set(sink, box);
    }
    const now = performance.now();
    const oldest = box.items[0]?.queuedAt;
    if (this.maxBuffered > 0 && oldest !== undefined && now - oldest > this.maxLagMs && box.bytes + sink.bufferedBytes > this.maxBuffered) {
      this.metrics?.streamSubscriberDropped('slow');
      sink.close(CloseCode.tooSlow, `too slow: over ${this.maxBuffered} bytes unsent; resume from your last id`);
      this.dropSink(sink);
      return false;
    }
    box.items.push({ sub, item, final, queuedAt: now });
    box.bytes += item.text.length;
    return true;
  }

  /** Hands the outbox's items to the connection, as fast as it takes them (at once while it keeps up). */
  private flush(sink: StreamSink): void {
    const box = this.outboxes.get(sink);
    if (box === undefined || box.flushing) return;
    box.flushing = true;
    const gone = (): boolean => this.closed || this.outboxes.get(sink) !== box;
    void (async () => {
      try {
        while (box.items.length > 0 && !gone()) {
          await whenTaken(sink, this.maxBuffered, gone);
          if (gone()) return;
          const next = box.items.shift()!;
          box.bytes -= next.item.text.length;
          this.send(next.sub, next.item, next.final);
        }
      } finally {
        box.flushing = false;
      }
    })();
  }

  /** A subscription that cannot go on without a gap: its connection is closed (it resumes from its last id). */
  private fail(sub: Subscription, err: unknown): void {
    this.metrics?.streamSubscriberDropped('error');
    this.logger?.warn({ err, subscription: sub.id }, 'streaming: closing a connection whose subscription failed');
    sub.sink.close(1011, 'internal error; resume from your last id');
    this.dropSink(sub.sink);
  }

  private end(sub: Subscription): void {
    if (sub.ended) return;
    sub.ended = true;
    if (sub.live) this.kinds.get(sub.kind)?.remove(sub);
    this.counts.set(sub.kind, (this.counts.get(sub.kind) ?? 1) - 1);
    this.bySink.get(sub.sink)?.delete(sub.id);
  }
}

/** Live items of one connection not handed to it yet, oldest first, and their text's length. */
interface Outbox {
  items: Array<{ sub: Subscription; item: StreamItem; final: boolean; queuedAt: number }>;
  bytes: number;
  /** A flush is handing them over (waiting, maybe, for the connection to take what it has). */
  flushing: boolean;
}

function defaultKinds(ctx: MethodContext): Kind[] {
  return [new LedgersKind(ctx), new EventsKind(ctx), new TransactionsKind(ctx), new TransactionKind(ctx)] as unknown as Kind[];
}
