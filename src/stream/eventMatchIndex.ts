// Live events subscriptions indexed by what their filters require, so a ledger's events are
// matched in time proportional to events × subscriptions that could match, not × all of them.
// Each filter is filed under one key every event it matches must have: one of its contract ids;
// else, when every topic pattern fixes its first segment, that first segment; else one of its
// types; else (no restriction the index can use) the "matches everything" list. An event then
// looks up its contract id, its first topic and its type, and only those candidates are checked
// exactly (matchesAny: the getEvents semantics, the same function the store applies). Subscribers
// with no filter at all match every event: they are returned with no check.
import { matchesAny } from '../events/eventFilter.ts';
import { type ParsedEvent } from '../events/eventBytes.ts';
import type { EventFilterSpec } from '../events/types.ts';
import { toHex } from '../xdr/codec.ts';
import { KeyedSets } from './keyedSets.ts';

interface Entry<T> {
  filters: readonly EventFilterSpec[];
  /** Where it is filed: [bucket, key] pairs (no bucket: everything). */
  places: Array<[KeyedSets<T> | undefined, string]>;
}

export class EventMatchIndex<T> {
  private readonly byContract = new KeyedSets<T>();
  private readonly byTopic0 = new KeyedSets<T>();
  private readonly byType = new KeyedSets<T>();
  private readonly everything = new Set<T>();
  /** Those with no filter at all: every event is theirs, with no check (the most common fan-out). */
  private readonly unfiltered = new Set<T>();
  private readonly entries = new Map<T, Entry<T>>();

  get size(): number { return this.entries.size; }

  /** Files `subscriber` with its filters (none: every event). Adding it again replaces its filters. */
  add(subscriber: T, filters: readonly EventFilterSpec[]): void {
    this.remove(subscriber);
    const entry: Entry<T> = { filters, places: [] };
    if (filters.length === 0) {
      this.unfiltered.add(subscriber);
      this.entries.set(subscriber, entry);
      return;
    }
    const file = (bucket: KeyedSets<T> | undefined, key: string): void => {
      if (bucket === undefined) this.everything.add(subscriber);
      else bucket.add(key, subscriber);
      entry.places.push([bucket, key]);
    };
    for (const f of filters) {
      if (f.contractIds.length > 0) {
        for (const c of f.contractIds) file(this.byContract, toHex(c));
      } else if (f.topics.length > 0 && f.topics.every((p) => p.segments.length > 0 && p.segments[0] !== null)) {
        for (const p of f.topics) file(this.byTopic0, toHex(p.segments[0]!));
      } else if (f.types.length > 0) {
        for (const t of f.types) file(this.byType, String(t));
      } else {
        file(undefined, '');
      }
    }
    this.entries.set(subscriber, entry);
  }

  remove(subscriber: T): void {
    const entry = this.entries.get(subscriber);
    if (entry === undefined) return;
    this.entries.delete(subscriber);
    this.unfiltered.delete(subscriber);
    for (const [bucket, key] of entry.places) {
      if (bucket === undefined) this.everything.delete(subscriber);
      else bucket.delete(key, subscriber);
    }
  }

  /** The subscribers whose filters match `e`, each once. */
  match(e: ParsedEvent): T[] {
    const out: T[] = [...this.unfiltered];
    const seen = new Set<T>();
    const check = (set: Iterable<T>): void => {
      for (const s of set) {
        if (seen.has(s)) continue;
        seen.add(s);
        if (matchesAny(e, this.entries.get(s)!.filters)) out.push(s);
      }
    };
    check(this.everything);
    if (e.contractId && this.byContract.size > 0) check(this.byContract.get(toHex(e.contractId)));
    if (e.topics.length > 0 && this.byTopic0.size > 0) check(this.byTopic0.get(toHex(e.topics[0])));
    if (this.byType.size > 0) check(this.byType.get(String(e.type)));
    return out;
  }
}
