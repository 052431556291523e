// A page of a paged method's answer (getLedgers, getTransactions, getEvents), built item by item
// within the request's answer budget: each item is rendered once, charged, and kept as its pieces;
// the page ends early when the next item would not fit. The answer goes out as those pieces
// (JsonChunks), never joined into one string.
import { JsonChunks, partsByteLength, type JsonPart } from '../../rawJson.ts';
import type { MethodCall } from '../types.ts';

export class Page {
  private readonly parts: JsonPart[] = [];
  private bytes = 0;
  private items = 0;
  private readonly call: MethodCall;
  /** True once an item was refused: the page ended on the budget, not on its limit or the data. */
  cut = false;
  constructor(call: MethodCall) { this.call = call; }

  get count(): number { return this.items; }

  /**
   * Whether another item may still fit, asked before rendering it (rendering a ledger as JSON takes
   * long): false, and the page is cut, once the budget is spent; an error when it was spent before
   * this page got any item (by the other elements of a batch).
   */
  hasRoom(): boolean {
    if (!this.call.budget.spent) return true;
    if (this.items === 0) throw this.call.budget.tooLarge();
    this.cut = true;
    return false;
  }

  /**
   * Adds one item (JSON text, or its pieces) if the budget has room; false (and the page is cut)
   * when not. The first item of a request that finds the budget already spent by other batch
   * elements is an error instead.
   */
  add(item: string | readonly JsonPart[]): boolean {
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
