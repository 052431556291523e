// Event storage for getEvents: writing a ledger's events, trimming them with their ledgers, and
// answering a query without reading events that cannot match.
//
// Layout (migration 2):
//   events(key = ledger * 2^21 + position, cursor fields, application order, ContractEvent XDR):
//     key order is event-id order, so a window of the reference's cursors is one key range, and
//     writing a ledger appends at the end of the table;
//   event_terms(segment, term, postings): per segment of 128 ledgers and index term (contract id,
//     topic N = value, type, topic count), the ledgers of the segment holding the term and the
//     positions of the events carrying it there.
// A segment's rows are written once, in the ingest transaction of its last ledger, in (segment,
// term) order: they append at the end of the table, so an ingest dirties few pages however many
// distinct terms a ledger has (inserting term-major rows per ledger touched one page per term).
// Until then the open segment's postings live in memory; on open they are rebuilt from the events
// table, which is the source of truth. Trimming deletes whole segments below the cutoff.
//
// A query's filters become a plan over index terms, evaluated ledger by ledger as a leapfrog join
// (src/store/eventIndex/queryPlan.ts, reading postings through segmentPostings). Only ledgers where
// the whole plan holds are visited, and only the events at the resulting positions are read and
// matched exactly (hash collisions, `**`). A filter that restricts nothing makes the whole query a
// plain key-range scan.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { decodePostings, encodePostings, eventTermsOf, GrowingPostings, type Postings } from '../../events/indexTerms.ts';
import { matchesAny } from '../../events/eventFilter.ts';
import { parseContractEvent } from '../../events/eventBytes.ts';
import { txOpOrder } from '../../events/eventIds.ts';
import type { EventQuery, StoredEvent } from '../types.ts';
import type { EventPosition, EventRow } from '../../events/types.ts';
import { toid } from '../../ids/toid.ts';
import { BatchInsert } from './batchInsert.ts';
import { runSteps } from '../../work/slicedWork.ts';
import { ALL, END, planQuery, planStream, SEGMENT_LEDGERS, segmentOf, type Node } from '../eventIndex/queryPlan.ts';

/** Events written between two steps of writeSteps. */
const STEP_EVENTS = 256;

/** Positions per ledger in the key: 2^21 (a ledger with more events is refused at ingest). */
export const LEDGER_KEY_SPAN = 2_097_152;

type Row = Record<string, unknown>;
interface EventRowRead { key: number; cursor_tx: number; cursor_op: number; event_index: number; application_order: number; event: Uint8Array }

/** The in-memory postings of the segment still being written. */
class OpenSegment {
  readonly segment: number;
  readonly terms = new Map<number, GrowingPostings>();
  constructor(segment: number) { this.segment = segment; }
}

/** What the current ingest transaction changed in memory, to keep on commit or undo on rollback. */
interface Staged {
  undo: Array<[GrowingPostings, number]>; // postings of the committed open segment, and their ledger count before
  created: number[];                     // terms the transaction added to the committed open segment
  current: OpenSegment | undefined;      // a segment the transaction started
  flushed: Set<number>;                  // segments whose rows the transaction wrote
}

export class EventStore {
  private readonly st: Record<string, StatementSync>;
  private readonly insertEvents: BatchInsert;
  private readonly insertTerms: BatchInsert;
  private readonly termScratch: number[] = [];
  /** The open segment as of the last commit. */
  private open: OpenSegment | undefined;
  private staged: Staged | undefined;
  private trimmedBelow = -1;

  /** `db`: the writer's connection; `reader`: the connection queries go through (may be `db`). */
  constructor(db: DatabaseSync, reader: DatabaseSync) {
    const p = (sql: string) => db.prepare(sql);
    const r = (sql: string) => reader.prepare(sql);
    const cols = 'key, cursor_tx, cursor_op, event_index, application_order, event';
    this.insertEvents = new BatchInsert(db, `INSERT INTO events (${cols})`, 6);
    this.insertTerms = new BatchInsert(db, 'INSERT INTO event_terms (segment, term, postings)', 3);
    this.st = {
      segmentFlushed: p('SELECT 1 AS x FROM event_terms WHERE segment = ? LIMIT 1'),
      eventsFrom: p('SELECT key, event FROM events WHERE key >= ? AND key < ? ORDER BY key'),
      deleteSegmentsBelow: p('DELETE FROM event_terms WHERE segment < ?'),
      deleteEventsBelow: p('DELETE FROM events WHERE key < ?'),
      deleteEventsFrom: p('DELETE FROM events WHERE key >= ?'),
      deleteSegmentsFrom: p('DELETE FROM event_terms WHERE segment >= ?'),
      countBefore: r(`SELECT count(*) AS n FROM events WHERE key >= ? AND key < ?
                      AND (cursor_tx * 4096 + cursor_op < ? OR (cursor_tx * 4096 + cursor_op = ? AND event_index < ?))`),
      event: r(`SELECT ${cols} FROM events WHERE key = ?`),
      rangeAsc: r(`SELECT ${cols} FROM events WHERE key >= ? AND key < ? ORDER BY key ASC LIMIT ?`),
      rangeDesc: r(`SELECT ${cols} FROM events WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT ?`),
      rangeTxAsc: r(`SELECT ${cols} FROM events WHERE key >= ? AND key < ? AND application_order = ? ORDER BY key ASC LIMIT ?`),
      rangeTxDesc: r(`SELECT ${cols} FROM events WHERE key >= ? AND key < ? AND application_order = ? ORDER BY key DESC LIMIT ?`),
      postings: r('SELECT postings FROM event_terms WHERE segment = ? AND term = ?'),
      tx: r('SELECT hash, successful FROM transactions WHERE id = ?'),
      closeTime: r('SELECT close_time FROM ledgers WHERE sequence = ?'),
    };
  }

  /**
   * Rebuilds the open segment's postings from the events table; `latest` is the last stored ledger.
   * Called once the store knows its range (and after a backfill).
   */
  load(latest: number | undefined): void {
    this.staged = undefined;
    if (latest === undefined) { this.open = undefined; return; }
    const segment = segmentOf(latest);
    if (this.st.segmentFlushed.get(segment)) { this.open = new OpenSegment(segment + 1); return; }
    const open = new OpenSegment(segment);
    const first = segment * SEGMENT_LEDGERS;
    for (const r of this.st.eventsFrom.all(first * LEDGER_KEY_SPAN, (latest + 1) * LEDGER_KEY_SPAN) as Row[]) {
      const key = Number(r.key);
      const ledger = Math.floor(key / LEDGER_KEY_SPAN);
      this.index(open, ledger, key - ledger * LEDGER_KEY_SPAN, r.event as Uint8Array, undefined);
    }
    this.open = open;
  }

  /** Adds one event's terms to a segment's postings, noting in `staged` how to undo it. */
  private index(seg: OpenSegment, ledger: number, position: number, event: Uint8Array, staged: Staged | undefined): void {
    for (const t of eventTermsOf(event, this.termScratch)) {
      const p = seg.terms.get(t);
      if (p === undefined) {
        const fresh = new GrowingPostings();
        fresh.addLedger(ledger, position);
        seg.terms.set(t, fresh);
        staged?.created.push(t);
      } else if (p.lastLedger !== ledger) {
        staged?.undo.push([p, p.count]);
        p.addLedger(ledger, position);
      } else if (p.lastPosition !== position) {
        p.addPosition(position);
      }
    }
  }

  /** Writes one ledger's events (in id order). Runs inside the ingest transaction; see committed(). */
  write(ledger: number, events: readonly EventRow[]): void { runSteps(this.writeSteps(ledger, events)); }

  /** write() as steps of up to STEP_EVENTS events (see ingestManyInSlices). */
  *writeSteps(ledger: number, events: readonly EventRow[]): Generator<void, void> {
    if (events.length > LEDGER_KEY_SPAN) throw new Error(`ledger ${ledger} has ${events.length} events, more than ${LEDGER_KEY_SPAN}`);
    const staged = this.staged ??= { undo: [], created: [], current: undefined, flushed: new Set() };
    const segment = segmentOf(ledger);
    let target = staged.current ?? this.open;
    if (!target || target.segment !== segment) {
      // An older segment still open (a ledger of a new segment without its predecessor's last): write it out.
      if (target && target.segment < segment && !staged.flushed.has(target.segment)) {
        this.flush(target);
        staged.flushed.add(target.segment);
      }
      target = staged.current = new OpenSegment(segment);
    }
    // changes to the committed open segment are undone on rollback; a new one is simply dropped
    const undo = target === this.open ? staged : undefined;
    const base = ledger * LEDGER_KEY_SPAN;
    const insert = this.insertEvents;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      insert.add(base + i, e.tx, e.op, e.index, e.applicationOrder, e.event);
      this.index(target, ledger, i, e.event, undo);
      if ((i + 1) % STEP_EVENTS === 0) yield;
    }
    insert.flush();
    if ((ledger + 1) % SEGMENT_LEDGERS === 0) {
      // the segment's last ledger: write the segment
      this.flush(target);
      staged.flushed.add(segment);
    }
  }

  /** Inserts one segment's rows, in term order (they append at the end of event_terms). */
  private flush(seg: OpenSegment): void {
    const base = seg.segment * SEGMENT_LEDGERS;
    const insert = this.insertTerms;
    for (const term of Float64Array.from(seg.terms.keys()).sort()) insert.add(seg.segment, term, encodePostings(seg.terms.get(term)!, base));
    insert.flush();
  }

  /** The ingest transaction committed: what write() did in memory stands. */
  committed(): void {
    const staged = this.staged;
    this.staged = undefined;
    if (!staged) return;
    let open = staged.current ?? this.open;
    if (open && staged.flushed.has(open.segment)) open = new OpenSegment(open.segment + 1);
    this.open = open;
  }

  /** The ingest transaction rolled back: undo what write() did in memory. */
  rolledBack(): void {
    this.insertEvents.clear();
    this.insertTerms.clear();
    const staged = this.staged;
    this.staged = undefined;
    if (!staged || !this.open) return;
    for (let k = staged.undo.length - 1; k >= 0; k--) {
      const [p, count] = staged.undo[k];
      p.truncate(count);
    }
    for (const t of staged.created) this.open.terms.delete(t);
  }

  /** Removes the events of every ledger below `cutoff`, and the index segments wholly below it. */
  trim(cutoff: number): void {
    this.st.deleteEventsBelow.run(cutoff * LEDGER_KEY_SPAN);
    const below = segmentOf(cutoff);
    if (below > this.trimmedBelow) {
      this.st.deleteSegmentsBelow.run(below);
      this.trimmedBelow = below;
    }
  }

  /**
   * Removes the events of every ledger after `ledger`, and the index rows of every segment holding
   * one (a segment holding ledgers up to `ledger` as well is rebuilt in memory, as the open one, by
   * load(ledger) once the transaction commits). Runs inside a write transaction.
   */
  truncateAfter(ledger: number): void {
    this.st.deleteEventsFrom.run((ledger + 1) * LEDGER_KEY_SPAN);
    this.st.deleteSegmentsFrom.run(segmentOf(ledger + 1));
  }

  /** The key of the first stored event at or after a position (positions are per ledger). */
  private keyAt(p: EventPosition): number {
    const ledger = p.ledger >>> 0;
    const base = ledger * LEDGER_KEY_SPAN;
    if (p.tx === 0 && p.op === 0 && p.event === 0) return base;
    const order = txOpOrder(p.tx, p.op);
    const r = this.st.countBefore.get(base, base + LEDGER_KEY_SPAN, order, order, p.event >>> 0) as Row;
    return base + Number(r.n);
  }

  events(q: EventQuery): StoredEvent[] {
    const startKey = this.keyAt(q.start);
    const endKey = this.keyAt(q.end);
    if (startKey >= endKey || q.limit <= 0) return [];
    const plan = planQuery(q.filters);
    const rows = plan === ALL ? this.scanRange(q, startKey, endKey) : this.scanIndexed(q, plan, startKey, endKey);
    return this.attach(rows);
  }

  /** Every event in the range qualifies (up to the transaction restriction): one ordered range read. */
  private scanRange(q: EventQuery, startKey: number, endKey: number): EventRowRead[] {
    const out: EventRowRead[] = [];
    // Filters are still matched exactly; with an unrestricted filter every event passes.
    const batch = Math.min(q.limit, 1000);
    let lo = startKey;
    let hi = endKey;
    for (;;) {
      const rows = (q.applicationOrder === undefined
        ? (q.descending ? this.st.rangeDesc : this.st.rangeAsc).all(lo, hi, batch)
        : (q.descending ? this.st.rangeTxDesc : this.st.rangeTxAsc).all(lo, hi, q.applicationOrder, batch)) as unknown as EventRowRead[];
      for (const r of rows) {
        if (matchesAny(parseContractEvent(r.event), q.filters)) {
          out.push(r);
          if (out.length >= q.limit) return out;
        }
      }
      if (rows.length < batch) return out;
      const last = rows[rows.length - 1].key;
      if (q.descending) hi = last; else lo = last + 1;
    }
  }

  private scanIndexed(q: EventQuery, plan: Node, startKey: number, endKey: number): EventRowRead[] {
    const lo = Math.floor(startKey / LEDGER_KEY_SPAN);
    const hi = Math.floor((endKey - 1) / LEDGER_KEY_SPAN);
    const root = planStream(plan, this, lo, hi, q.descending);
    const out: EventRowRead[] = [];
    const step = q.descending ? -1 : 1;
    for (let ledger = root.seek(q.descending ? hi : lo); ledger !== END; ledger = root.seek(ledger + step)) {
      const positions = root.positions();
      const base = ledger * LEDGER_KEY_SPAN;
      const n = positions.length;
      for (let j = 0; j < n; j++) {
        const key = base + positions[q.descending ? n - 1 - j : j];
        if (key < startKey || key >= endKey) continue;
        const r = this.st.event.get(key) as unknown as EventRowRead | undefined;
        if (!r) continue;
        if (q.applicationOrder !== undefined && r.application_order !== q.applicationOrder) continue;
        if (!matchesAny(parseContractEvent(r.event), q.filters)) continue;
        out.push(r);
        if (out.length >= q.limit) return out;
      }
    }
    return out;
  }

  /** A term's postings in one segment (from memory for the open segment); undefined when absent. */
  segmentPostings(segment: number, term: number): Postings | undefined {
    if (this.open && segment === this.open.segment) return this.open.terms.get(term);
    if (this.open && segment > this.open.segment) return undefined;
    const r = this.st.postings.get(segment, term) as Row | undefined;
    return r ? decodePostings(r.postings as Uint8Array, segment * SEGMENT_LEDGERS) : undefined;
  }

  /** Adds the emitting transaction's hash and success and the ledger's close time. */
  private attach(rows: EventRowRead[]): StoredEvent[] {
    const txs = new Map<number, { hash: Uint8Array; successful: boolean }>();
    const closeTimes = new Map<number, number>();
    return rows.map((r) => {
      const ledger = Math.floor(r.key / LEDGER_KEY_SPAN);
      const txKey = ledger * 1048576 + r.application_order;
      let tx = txs.get(txKey);
      if (!tx) {
        const t = this.st.tx.get(toid(ledger, r.application_order, 0)) as Row | undefined;
        tx = t ? { hash: t.hash as Uint8Array, successful: Number(t.successful) === 1 } : { hash: new Uint8Array(32), successful: false };
        txs.set(txKey, tx);
      }
      let closeTime = closeTimes.get(ledger);
      if (closeTime === undefined) {
        const l = this.st.closeTime.get(ledger) as Row | undefined;
        closeTime = l ? Number(l.close_time) : 0;
        closeTimes.set(ledger, closeTime);
      }
      return {
        ledger, tx: r.cursor_tx, op: r.cursor_op, index: r.event_index, event: r.event,
        txHash: tx.hash, successful: tx.successful, closeTime,
      };
    });
  }
}
