// The reference's exact filter matching (go-stellar-sdk protocols/rpc GetEventsRequest.Matches).
import type { EventFilterSpec } from './types.ts';
import type { ParsedEvent } from './eventBytes.ts';
import { bytesEqual } from '../xdr/codec.ts';

/**
 * Whether an event passes one filter: its type is listed (or none is), its contract is listed (or
 * none is), and one topic pattern matches (or there is none). A pattern matches when the event has
 * exactly as many topics as segments, or at least as many when it ends with `**`, and every segment
 * is `*` or equal (ScVal equality = equal canonical XDR).
 */
export function matchesFilter(e: ParsedEvent, f: EventFilterSpec): boolean {
  if (f.types.length > 0 && !f.types.includes(e.type)) return false;
  if (f.contractIds.length > 0) {
    if (!e.contractId) return false;
    if (!f.contractIds.some((c) => bytesEqual(c, e.contractId!))) return false;
  }
  if (f.topics.length === 0) return true;
  return f.topics.some((p) => {
    const n = p.segments.length;
    if (p.flexible ? e.topics.length < n : e.topics.length !== n) return false;
    for (let i = 0; i < n; i++) {
      const s = p.segments[i];
      if (s !== null && !bytesEqual(s, e.topics[i])) return false;
    }
    return true;
  });
}

/** No filter at all matches everything; otherwise any filter may match. */
export const matchesAny = (e: ParsedEvent, filters: readonly EventFilterSpec[]): boolean =>
  filters.length === 0 || filters.some((f) => matchesFilter(e, f));
