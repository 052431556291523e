// The transport-agnostic core of streaming: subscriptions of every connection (WebSocket or SSE),
// fed from the LedgerFeed. Per committed ledger it reads from the store, once, what its live
// subscriptions need (so a notification never announces what the methods could not read yet, and
// carries exactly what they would return), matches through each kind's index and encodes each item
// once per xdrFormat, item by item, in slices of the event loop (Slices): a ledger of thousands
// of events for thousands of subscribers never holds the loop. Ledgers are handled in order, on a
// queue of its own: the feed's listener only enqueues.
//
// A subscription with a start first replays stored items, then goes live. The switch happens only
// once the replay has read through the newest ledger announced, at that moment and synchronously;
// from then on the live path delivers ledgers after its `through`, so no ledger is delivered twice
// and none is skipped.
//
// Everything a connection gets (answers, replayed and live items) goes through its Outbox, in
// order, and from there to its socket as its client takes what the socket holds
// (DeliveryScheduler). An item waiting there is a reference to bytes shared by every subscriber;
// the transport frames it per socket (the subscription id) without copying it. A replay renders its
// next page only when its connection has room, and no more than that room (one item at least): a
// client that reads slowly slows its own replay, one that does not read holds one page at most. So
// one item bigger than the buffer limit (a 17 MB ledger) goes out, and a client that keeps up gets
// any range of any ledgers, and any answer.
//
// A client that cannot keep up is closed once (4001), told for each subscription where to resume
// (the id of the last item handed to it, after which every earlier item reaches a client that
// reads to the close), by the rules of StreamBudget: behind its buffer and lagging, stuck, over its
// own ceiling, or among the slowest when all connections together are over theirs.
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
import { CloseCode, STREAM_KINDS, type DroppedSubscription, type ResumePoint, type StreamKindName, type StreamSink } from './streamSink.ts';
import { invalid, type Kind, type StreamItem, type Subscription } from './kinds/kind.ts';
import { LedgersKind } from './kinds/ledgers.ts';
import { EventsKind } from './kinds/events.ts';
import { TransactionsKind } from './kinds/transactions.ts';
import { TransactionKind } from './kinds/transaction.ts';
import { answerEntry, itemEntry, Outbox, type Entry } from './outbox.ts';
import { DeliveryScheduler } from './deliveryScheduler.ts';
import { StreamBudget, type Verdict } from './streamBudget.ts';
import { Slices } from './slices.ts';
import { SLICE_MS } from '../work/slicedWork.ts';

/** How long a live item may wait for its connection before that connection counts as lagging. */
const DEFAULT_MAX_LAG_MS = 30_000;

/** Bytes a socket may hold that its client has not taken (less when half the buffer limit is less): the rest waits in the outbox, shared. */
const SOCKET_WINDOW = 256 * 1024;

/** Bytes handed to one connection per turn of the scheduler. */
const QUANTUM = 64 * 1024;

/** How often every connection is measured and judged by the lag rules. */
const SWEEP_MS = 250;

/**
 * After the slowest connections were closed for the total ceiling, the next look waits this long:
 * the bytes their sockets hold are freed only as their clients read or their connections end, and
 * a look at every connection for each item queued meanwhile would cost more than it saves.
 */
const SHED_PAUSE_MS = 50;

/** Subscribers an item is queued for between two looks at the time slice. */
const FAN_OUT_STEP = 1024;

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
  /** What one connection may hold (--max-stream-connection-bytes; 0 or absent: no limit). */
  maxStreamConnectionBytes?: number;
  /** What all connections together may hold (--max-stream-total-bytes; 0 or absent: no limit). */
  maxStreamTotalBytes?: number;
  /** The kinds served (default: all of them); tests may pass their own. */
  kinds?: readonly Kind[];
}

export class SubscriptionHub {
  private readonly kinds = new Map<StreamKindName, Kind>();
  private readonly bySink = new Map<StreamSink, Map<string, Subscription>>();
  /** Every connection's outbox, open or closing (until its transport says it is gone). */
  private readonly outboxes = new Map<StreamSink, Outbox>();
  private readonly counts = new Map<StreamKindName, number>();
  private readonly logger: Logger | undefined;
  private readonly metrics: Metrics | undefined;
  private readonly maxSubscriptions: number;
  private readonly window: number;
  private readonly budget: StreamBudget;
  private readonly slices = new Slices(SLICE_MS);
  private readonly scheduler: DeliveryScheduler;
  private readonly sweeper: NodeJS.Timeout;
  private readonly stopListening: () => void;
  private readonly stopListeningReverts: () => void;
  /** Counts the store's reverts: work begun before one is dropped rather than delivered after it. */
  private reverts = 0;
  /** Newest ledger the feed announced (or stored at start). */
  private announced: number;
  /** Ledgers announced while some subscription was live, not handled yet. */
  private readonly queue: number[] = [];
  private pumping = false;
  /** Connections closed by the hub whose transports have yet to be told (see closeSink). */
  private readonly closings: Array<() => void> = [];
  private closingRunning = false;
  /** When the total ceiling may be looked at again (see SHED_PAUSE_MS). */
  private nextShed = 0;
  private closed = false;
  private counter = 0;
  /** Makes ids unique per node run (and unguessable across runs). */
  private readonly runTag = randomBytes(3).toString('hex');

  constructor(options: SubscriptionHubOptions) {
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.maxSubscriptions = options.maxSubscriptionsPerConnection;
    const maxBuffered = options.maxStreamBufferBytes;
    this.window = maxBuffered > 0 ? Math.max(1, Math.min(SOCKET_WINDOW, Math.floor(maxBuffered / 2))) : SOCKET_WINDOW;
    this.budget = new StreamBudget({
      maxBuffered, maxLagMs: options.maxStreamLagMs ?? DEFAULT_MAX_LAG_MS,
      maxConnectionBytes: options.maxStreamConnectionBytes ?? 0, maxTotalBytes: options.maxStreamTotalBytes ?? 0,
    });
    this.scheduler = new DeliveryScheduler({
      window: this.window, quantum: QUANTUM, slices: this.slices, deliver: (entry, box) => this.deliver(entry, box),
    });
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
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

  /** What all streaming connections hold that their clients have not taken, in bytes (as last measured). */
  get heldBytes(): number { return this.budget.total; }

  /** What one connection holds that its client has not taken (its waiting entries and its socket's bytes). */
  heldBy(sink: StreamSink): number { return this.outboxes.get(sink)?.held ?? 0; }

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
    if (this.outboxes.get(sink)?.closing) throw new RpcError(TOO_MANY_SUBSCRIPTIONS, 'the connection is closing');
    const base: Subscription = {
      id: `s${this.runTag}${(++this.counter).toString(16)}`, kind: kind.name, sink, format: 'base64',
      through: this.announced, live: false, ended: false, start: this.startOf(kind, p),
    };
    const sub = kind.open(p, base, this.announced);
    if (subs === undefined) {
      subs = new Map();
      this.bySink.set(sink, subs);
    }
    subs.set(sub.id, sub);
    this.counts.set(kind.name, (this.counts.get(kind.name) ?? 0) + 1);
    void this.run(kind, sub, this.outboxOf(sink), answered);
    return sub.id;
  }

  /** Ends one of `sink`'s subscriptions; false when it has none by that id. */
  unsubscribe(sink: StreamSink, id: string): boolean {
    const sub = this.bySink.get(sink)?.get(id);
    if (sub === undefined) return false;
    this.end(sub, false);
    return true;
  }

  /**
   * Sends a JSON-RPC answer on a streaming connection: after what the connection was given before
   * it, as its client takes it, whatever its size (within the HTTP answer budget).
   */
  answer(sink: StreamSink, text: string): void {
    const box = this.outboxOf(sink);
    if (box.closing) return;
    this.push(box, answerEntry(text, performance.now()));
  }

  /**
   * Closes a connection for a reason of its transport's (a ping left unanswered), telling each of its
   * subscriptions where to resume, as a connection too slow is told.
   */
  disconnect(sink: StreamSink, code: number, reason: string): void {
    if (this.outboxes.get(sink)?.closing) return;
    this.closeSink(sink, code, reason, this.resumePoints(sink));
  }

  /** Forgets a connection that closed (every transport calls it on close; calling it twice is harmless). */
  dropSink(sink: StreamSink): void {
    this.endAll(sink);
    const box = this.outboxes.get(sink);
    if (box === undefined) return;
    this.retire(box);
    this.outboxes.delete(sink);
    this.budget.remove(box);
  }

  /** Stops: every connection with a subscription is closed with 1001 (the transports close the others). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopListening();
    this.stopListeningReverts();
    clearInterval(this.sweeper);
    this.scheduler.stop();
    this.queue.length = 0;
    for (const close of this.closings.splice(0)) close();
    for (const sink of [...this.bySink.keys()]) this.closeSink(sink, CloseCode.goingAway, 'node shutting down');
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
          this.closeSink(sub.sink, CloseCode.reverted, `the ledgers were reverted to ${ledger} during replay; subscribe again`);
        }
      }
    }
  }

  /** Handles queued ledgers in order, one at a time, each item by item in slices of the event loop. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const sequence = this.queue.shift()!;
        const reverts = this.reverts;
        for (const kind of this.kinds.values()) {
          if (kind.liveCount === 0) continue;
          try {
            for await (const { item, subs } of kind.ledger(sequence)) {
              // a revert meanwhile: what was read may be a dropped ledger's; the queue says what is next
              if (reverts !== this.reverts) break;
              const now = performance.now();
              let n = 0;
              for (const sub of subs) {
                if (sub.live && !sub.ended && sub.through < sequence) this.enqueue(sub, item, kind.single, now);
                // an item for tens of thousands of subscribers is handed out in slices too
                if (++n % FAN_OUT_STEP === 0) await this.slices.checkpoint();
              }
              await this.slices.checkpoint();
            }
          } catch (err) {
            if (reverts !== this.reverts) break; // read across a revert: the ledger is gone
            // no silent gap: the subscriptions that missed (some of) this ledger lose their connection
            this.logger?.error({ err, ledger: sequence, kind: kind.name }, 'streaming: reading a ledger for subscriptions failed');
            for (const sub of [...kind.live()]) if (sub.through < sequence) this.fail(sub, err);
            continue;
          }
          if (reverts !== this.reverts) break;
          for (const sub of kind.live()) if (sub.through < sequence) sub.through = sequence;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Replays stored items from the subscription's start, a page at a time as its connection has room, then makes it live. */
  private async run(kind: Kind, sub: Subscription, box: Outbox, answered?: Promise<void>): Promise<void> {
    const stopped = (): boolean => sub.ended || this.closed;
    try {
      await new Promise((resolve) => setImmediate(resolve)); // the subscribe answer goes out first
      if (answered !== undefined) await answered;
      for (;;) {
        const target = this.announced;
        for (;;) {
          await this.scheduler.waitRoom(box);
          if (stopped()) return;
          // no bigger than the room the socket has: a page never holds more than the connection may
          const room = Math.max(1, this.window - sub.sink.bufferedBytes);
          const page = await kind.replay(sub, target, { items: kind.pageSize, bytes: room });
          if (stopped()) return;
          const now = performance.now();
          for (const item of page.items) this.push(box, itemEntry(sub, item, kind.single, now));
          if (page.done) break;
          await this.slices.checkpoint();
        }
        if (stopped()) return;
        if (target > sub.through) sub.through = target;
        // synchronously with the check: the next ledger announced finds it live
        if (this.announced === sub.through) {
          sub.live = true;
          kind.add(sub);
          return;
        }
        await this.slices.checkpoint();
      }
    } catch (err) {
      if (!stopped()) {
        this.logger?.error({ err, kind: kind.name }, 'streaming: replay failed');
        this.fail(sub, err);
      }
    }
  }

  /** A live item for `sub`, unless its connection is found too slow (closed instead). */
  private enqueue(sub: Subscription, item: StreamItem, final: boolean, now: number): void {
    const box = this.outboxOf(sub.sink);
    const behind = this.budget.behind(box, now);
    if (behind !== undefined) {
      this.drop(behind);
      return;
    }
    this.push(box, itemEntry(sub, item, final, now));
  }

  /** Queues an entry and gives its connection a turn, unless a ceiling closes it (or others). */
  private push(box: Outbox, entry: Entry): void {
    box.push(entry);
    const over = this.budget.overConnection(box);
    if (over !== undefined) {
      this.drop(over);
      return;
    }
    if (this.budget.overTotal()) this.shed();
    if (!box.closing) this.scheduler.wake(box);
  }

  /** Sends one entry to its connection (the scheduler's turn for it). */
  private deliver(entry: Entry, box: Outbox): void {
    const sink = box.sink;
    if (!('sub' in entry)) {
      this.budget.handed(sink.answer?.(entry.answer) ?? 0);
      return;
    }
    const { sub, item, final } = entry;
    if (sub.ended) return;
    this.budget.handed(sink.send({ subscription: sub.id, kind: sub.kind, id: item.id, item: item.bytes, final }));
    sub.lastId = item.id;
    this.metrics?.streamNotificationSent(sub.kind);
    if (final) this.end(sub, true);
  }

  /** Where a subscription resumes if its connection is dropped now. */
  private resumeOf(sub: Subscription): ResumePoint {
    return sub.lastId !== undefined ? { cursor: sub.lastId } : sub.start;
  }

  /** A subscription's own start, as subscribe params (where it resumes while it was handed nothing). */
  private startOf(kind: Kind, params: Record<string, unknown>): ResumePoint {
    if (typeof params.cursor === 'string') return { cursor: params.cursor };
    if (typeof params.startLedger === 'number') return { startLedger: params.startLedger };
    return this.announced > 0 ? kind.resumeAfter(this.announced) : {};
  }

  /** The periodic look at every connection: the lag rules, and the total ceiling. */
  private sweep(): void {
    for (const verdict of this.budget.sweep(performance.now())) this.drop(verdict);
    if (this.budget.overTotal()) this.shed();
  }

  /** Over the total ceiling: closed connections still holding bytes end, then the slowest go. */
  private shed(): void {
    const now = performance.now();
    if (now < this.nextShed) return;
    this.nextShed = now + SHED_PAUSE_MS;
    const { ending, verdicts } = this.budget.shed();
    for (const box of ending) box.sink.terminate();
    for (const verdict of verdicts) this.drop(verdict);
  }

  /** Closes a connection found too slow (4001), telling each subscription where to resume. */
  private drop(verdict: Verdict): void {
    const sink = verdict.box.sink;
    if (verdict.box.closing) return;
    this.metrics?.streamSubscriberDropped(verdict.reason);
    this.closeSink(sink, CloseCode.tooSlow, verdict.message, this.resumePoints(sink));
  }

  /** Where each of a connection's subscriptions resumes if it is closed now. */
  private resumePoints(sink: StreamSink): DroppedSubscription[] {
    return [...(this.bySink.get(sink)?.values() ?? [])].map((sub) => ({ subscription: sub.id, kind: sub.kind, resume: this.resumeOf(sub) }));
  }

  /**
   * Closes a connection: what waits for it is dropped and its subscriptions end at once; its
   * transport is told (the resume points written, the close sent) in slices of the event loop, as
   * a ceiling may close hundreds of connections at a time. Its socket's bytes stay counted until
   * it is gone.
   */
  private closeSink(sink: StreamSink, code: number, reason: string, dropped?: DroppedSubscription[]): void {
    const box = this.outboxes.get(sink);
    if (box !== undefined) {
      if (box.closing) return;
      this.retire(box);
    }
    this.endAll(sink);
    if (this.closed) {
      sink.close(code, reason, dropped);
      return;
    }
    this.closings.push(() => sink.close(code, reason, dropped));
    if (!this.closingRunning) void this.runClosings();
  }

  /** Nothing more goes to a connection: what waits for it is dropped, its waiting replays wake to their end. */
  private retire(box: Outbox): void {
    box.closing = true;
    box.discard();
    this.scheduler.forget(box);
  }

  private async runClosings(): Promise<void> {
    this.closingRunning = true;
    try {
      while (this.closings.length > 0) {
        this.closings.shift()!();
        await this.slices.checkpoint();
      }
    } finally {
      this.closingRunning = false;
    }
  }

  /** A subscription that cannot go on without a gap: its connection is closed (it resumes from its last id). */
  private fail(sub: Subscription, err: unknown): void {
    this.metrics?.streamSubscriberDropped('error');
    this.logger?.warn({ err, subscription: sub.id }, 'streaming: closing a connection whose subscription failed');
    this.closeSink(sub.sink, 1011, 'internal error; resume from your last id');
  }

  private outboxOf(sink: StreamSink): Outbox {
    let box = this.outboxes.get(sink);
    if (box === undefined) {
      box = new Outbox(sink, this.budget.onPending);
      this.outboxes.set(sink, box);
      this.budget.add(box);
    }
    return box;
  }

  private endAll(sink: StreamSink): void {
    const subs = this.bySink.get(sink);
    if (subs === undefined) return;
    for (const sub of [...subs.values()]) this.end(sub, false);
    this.bySink.delete(sink);
  }

  private end(sub: Subscription, final: boolean): void {
    if (sub.ended) return;
    sub.ended = true;
    if (sub.live) this.kinds.get(sub.kind)?.remove(sub);
    this.counts.set(sub.kind, (this.counts.get(sub.kind) ?? 1) - 1);
    this.bySink.get(sub.sink)?.delete(sub.id);
    sub.sink.subscriptionEnded?.(sub.id, final);
  }
}

function defaultKinds(ctx: MethodContext): Kind[] {
  return [new LedgersKind(ctx), new EventsKind(ctx), new TransactionsKind(ctx), new TransactionKind(ctx)] as unknown as Kind[];
}
