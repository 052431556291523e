// The byte budget of one HTTP request's answer. Paged methods (getLedgers, getTransactions,
// getEvents) charge it item by item and end their page early, with a cursor that continues right
// after the last item sent, when the next item would not fit; other methods charge their whole
// result. The elements of a batch share one budget. An answer's size is therefore bounded by the
// budget plus one item: the first item of an answer always goes in, so a single ledger larger than
// the budget can still be read, one per page. Once an item has been refused the answer is full:
// later items are refused without being rendered (a batch's remaining elements fail fast instead of
// each rendering a ledger to find it does not fit).
import { RpcError } from './errors.ts';

/** JSON-RPC code of an answer that does not fit (EIP-1474's "limit exceeded"; the reference has none). */
export const RESPONSE_TOO_LARGE_CODE = -32005;

export class AnswerBudget {
  readonly limit: number;
  used = 0;
  /** Set by the first refusal. */
  private full = false;
  constructor(limit: number) { this.limit = limit > 0 ? limit : Infinity; }

  /**
   * Takes `bytes` for one item if they fit. An item that does not fit is still taken when nothing
   * has been charged to this answer yet, so that every answer can make progress.
   */
  take(bytes: number): boolean {
    if (this.full) return false;
    if (this.used + bytes > this.limit && this.used > 0) {
      this.full = true;
      return false;
    }
    this.used += bytes;
    return true;
  }

  /** True once nothing more is taken: an item was refused, or the limit is reached. */
  get spent(): boolean { return this.full || this.used >= this.limit; }

  /** The error for a batch element (or a whole result) that no longer fits. */
  tooLarge(bytes?: number): RpcError {
    const what = bytes === undefined ? 'the answer to this request is full' : `a result of ${bytes} bytes does not fit`;
    return new RpcError(RESPONSE_TOO_LARGE_CODE, 'response size limit exceeded',
      `${what}: ${this.used} of its ${this.limit}-byte budget used (max-response-body-bytes, shared by the `
      + 'elements of a batch); send this call alone, or ask for fewer items');
  }
}
