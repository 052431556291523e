// A page of a paged method's answer (getLedgers, getTransactions, getEvents), built item by item
// within the request's answer budget: rows are read from storage a chunk at a time, each is rendered
// once, charged, and kept as its pieces; the page ends early when the next item would not fit, and
// the event loop gets a turn between items. The answer goes out as those pieces (JsonChunks), never
// joined into one string.
import { JsonChunks, partsByteLength, type JsonPart } from '../../rawJson.ts';
import type { MethodCall } from '../types.ts';

/** One item of a page: JSON text, or its pieces. */
export type PageItem = string | readonly JsonPart[];

export class Page {
  private readonly parts: JsonPart[] = [];
  private bytes = 0;
  private items = 0;
  private cut = false;
  private readonly call: MethodCall;
  private readonly limit: number;
  constructor(call: MethodCall, limit: number) {
    this.call = call;
    this.limit = limit;
  }

  get count(): number { return this.items; }

  /**
   * True when the page ended on its limit or on the answer budget, not because the data ran out:
   * its cursor is then its last item, as the reference ends a full page.
   */
  get full(): boolean { return this.items >= this.limit || this.cut; }

  /**
   * Fills the page: `read(n)` returns the next rows (at most n, each call after the previous one's),
   * and every row is rendered and added until the page is full, `read` runs dry (fewer rows than
   * asked), or `accept` refuses a row (one past the request's latest ledger). Returns the last row
   * added.
   *
   * `ahead`: rows of the chunk rendered while the current one is awaited, for renders that run on
   * other threads (ledgers and transactions as JSON): they render side by side. A page cut by the
   * budget wastes at most `ahead` renders.
   */
  async fill<R>(chunk: number, read: (n: number) => R[] | Promise<R[]>, render: (row: R) => PageItem | Promise<PageItem>,
    accept: (row: R) => boolean = () => true, ahead = 0): Promise<R | undefined> {
    let last: R | undefined;
    while (this.items < this.limit && this.hasRoom()) {
      const wanted = Math.min(chunk, this.limit - this.items);
      const rows = await read(wanted);
      const rendering: Array<PageItem | Promise<PageItem> | undefined> = [];
      const start = (i: number): void => {
        if (i >= rows.length || rendering[i] !== undefined || !accept(rows[i])) return;
        const item = render(rows[i]);
        // a render started ahead may never be awaited (the page ended first)
        if (item instanceof Promise) item.catch(() => {});
        rendering[i] = item;
      };
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i];
        // room is asked before rendering: a ledger as JSON takes long to render
        if (!accept(row) || !this.hasRoom()) return last;
        for (let j = i; j <= i + ahead; j++) start(j);
        const item = await rendering[i]!;
        rendering[i] = undefined;
        if (!this.add(item)) return last;
        last = row;
        await this.call.checkpoint();
      }
      if (rows.length < wanted) return last;
    }
    return last;
  }

  /**
   * Whether another item may still fit: false, and the page is cut, once the budget is spent; an
   * error when it was spent before this page got any item (by the other elements of a batch).
   */
  private hasRoom(): boolean {
    if (!this.call.budget.spent) return true;
    if (this.items === 0) throw this.call.budget.tooLarge();
    this.cut = true;
    return false;
  }

  /**
   * Adds one item if the budget has room; false (and the page is cut) when not. The first item of a
   * request that finds the budget already spent by other batch elements is an error instead.
   */
  add(item: PageItem): boolean {
    const pieces = typeof item === 'string' ? [item] : item;
    const bytes = partsByteLength(pieces);
    if (!this.call.budget.take(bytes)) {
      if (this.items === 0) throw this.call.budget.tooLarge(bytes);
      this.cut = true;
      return false;
    }
    if (this.items > 0) {
      this.parts.push(',');
      this.bytes++;
    }
    for (const p of pieces) this.parts.push(p);
    this.bytes += bytes;
    this.items++;
    return true;
  }

  /** The answer: `prefix`, the items as a JSON array, `suffix`. */
  answer(prefix: string, suffix: string): JsonChunks {
    return new JsonChunks(this.parts, this.bytes).wrap(prefix + '[', ']' + suffix);
  }
}
