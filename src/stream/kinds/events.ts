// `events`: contract and system events in the getEvents shape, filtered exactly as getEvents
// filters them (its params schema, limits, errors and matching); item id = the event id. Replay
// reads the store's event index as getEvents does; live ledgers go through EventMatchIndex.
import type { StoredEvent } from '../../store/types.ts';
import type { EventFilterSpec, EventPosition } from '../../events/types.ts';
import { formatEventId, maxPositionOf, MAX_UINT32 } from '../../events/eventIds.ts';
import { parseContractEvent } from '../../events/eventBytes.ts';
import { getEventsParamsSchema, parseEventCursor, readEventsRequest } from '../../rpc/methods/shared/eventsRequest.ts';
import { EventRenderer, LEDGER_SCAN_LIMIT, ledgerStart, positionOf } from '../../rpc/methods/shared/eventPage.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import type { XdrFormat } from '../../rpc/methods/shared/xdrFormat.ts';
import { EventMatchIndex } from '../eventMatchIndex.ts';
import type { ResumePoint } from '../streamSink.ts';
import {
  byFormat, paramsValidator, readStart, requireStored, startProperties, validate,
  type Kind, type LedgerMatch, type ReplayLimit, type ReplayPage, type StreamItem, type Subscription,
} from './kind.ts';

interface EventsSubscription extends Subscription {
  filters: EventFilterSpec[];
  /** The first position replay has not read. */
  next: EventPosition;
}

const check = paramsValidator({ ...startProperties, filters: getEventsParamsSchema.properties.filters });

/** Events of one ledger read at a time (a pubnet ledger holds a few thousand). */
const LEDGER_READ_LIMIT = 1_000_000;

/** The position right after `p` (an id's event index never reaches 2^32-1 but a page-end cursor's does). */
const after = (p: EventPosition): EventPosition => (p.event >= MAX_UINT32 ? ledgerStart(p.ledger + 1) : { ...p, event: p.event + 1 });

export class EventsKind implements Kind<EventsSubscription> {
  readonly name = 'events' as const;
  readonly pageSize = 200;
  readonly single = false;
  private readonly ctx: MethodContext;
  private readonly index = new EventMatchIndex<EventsSubscription>();
  private readonly subs = new Set<EventsSubscription>();

  constructor(ctx: MethodContext) { this.ctx = ctx; }

  open(params: Record<string, unknown>, base: Subscription, latest: number): EventsSubscription {
    validate(check, params);
    const start = readStart(params);
    // getEvents' own decoding and validation of the filters (and xdrFormat), with its messages
    const asGetEvents: Record<string, unknown> = { startLedger: 1 };
    if (params.filters !== undefined) asGetEvents.filters = params.filters;
    if (params.xdrFormat !== undefined) asGetEvents.xdrFormat = params.xdrFormat;
    const req = readEventsRequest(asGetEvents, this.ctx.config.maxEventsLimit);
    const sub: EventsSubscription = { ...base, format: req.format, filters: req.filters, next: ledgerStart(latest + 1), through: latest };
    if (start.from === 'ledger') {
      requireStored(this.ctx, start.ledger);
      sub.next = ledgerStart(start.ledger);
    } else if (start.from === 'cursor') {
      const seen = parseEventCursor(start.cursor);
      requireStored(this.ctx, seen.ledger);
      sub.next = after(seen);
    }
    sub.through = sub.next.ledger - 1;
    return sub;
  }

  async replay(sub: EventsSubscription, through: number, limit: ReplayLimit): Promise<ReplayPage> {
    if (sub.next.ledger > through) return { items: [], done: true };
    // one page scans at most getEvents' window, so a rare filter over a long range is read in
    // bounded steps (a turn of the event loop between them) rather than in one long scan
    const end = Math.min(through + 1, sub.next.ledger + LEDGER_SCAN_LIMIT);
    const found = this.ctx.store.events({ start: sub.next, end: ledgerStart(end), descending: false, limit: limit.items, filters: sub.filters });
    const renderer = new EventRenderer(sub.format);
    const items: StreamItem[] = [];
    let bytes = 0;
    for (const e of found) {
      if (items.length > 0 && bytes >= limit.bytes) break;
      const item = { id: formatEventId(positionOf(e)), bytes: Buffer.from(renderer.render(e)) };
      items.push(item);
      bytes += item.bytes.length;
      sub.next = after(positionOf(e));
    }
    if (items.length === found.length && found.length < limit.items) sub.next = ledgerStart(end);
    return { items, done: sub.next.ledger > through };
  }

  resumeAfter(ledger: number): ResumePoint { return { cursor: formatEventId(maxPositionOf(ledger)) }; }

  add(sub: EventsSubscription): void {
    this.subs.add(sub);
    this.index.add(sub, sub.filters);
  }

  remove(sub: EventsSubscription): void {
    this.subs.delete(sub);
    this.index.remove(sub);
  }

  live(): Iterable<EventsSubscription> { return this.subs; }
  get liveCount(): number { return this.subs.size; }

  async *ledger(sequence: number): AsyncIterable<LedgerMatch<EventsSubscription>> {
    if (this.subs.size === 0) return;
    const events = this.ctx.store.events({
      start: ledgerStart(sequence), end: ledgerStart(sequence + 1), descending: false, limit: LEDGER_READ_LIMIT, filters: [],
    });
    const renderers = new Map<XdrFormat, EventRenderer>();
    // event by event: each is matched (against the subscriptions still live: a connection dropped
    // on the way leaves the index) and rendered only when the one before was handed out
    for (const e of events) {
      const subs = this.index.match(parseContractEvent(e.event));
      if (subs.length === 0) continue;
      const id = formatEventId(positionOf(e));
      for (const [format, group] of byFormat(subs)) {
        let renderer = renderers.get(format);
        if (renderer === undefined) { renderer = new EventRenderer(format); renderers.set(format, renderer); }
        yield { item: { id, bytes: Buffer.from(renderer.render(e as StoredEvent)) }, subs: group };
      }
    }
  }
}
