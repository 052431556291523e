// Parsing a JSON-RPC request body as the reference's decoder would read it:
//  - Go's encoding/json refuses a document nested deeper than 10,000 arrays/objects (its scanner's
//    maxNestingDepth), so such a body is "not JSON" here too, before anything walks it;
//  - jrpc2 keeps a request id as the raw JSON text it was sent as and echoes it unchanged. JSON.parse
//    turns 1e999 into Infinity and rounds integers past 2^53, so for the ids whose number text would
//    not survive that, the exact text is recovered with JSON.parse's source-text access.

import { MAX_JSON_DEPTH } from '../rpc/limits.ts';

/** The deepest nesting the reference's decoder accepts (kept in rpc/limits.ts, where getVersionInfo reads it). */
export { MAX_JSON_DEPTH };

export interface ParsedBody {
  value: unknown;
  /** Exact id texts of the messages whose numeric id JSON.parse would not echo as sent. */
  idTexts?: WeakMap<object, string>;
}

const OPEN_BRACE = 0x7b, OPEN_BRACKET = 0x5b, CLOSE_BRACE = 0x7d, CLOSE_BRACKET = 0x5d, QUOTE = 0x22, BACKSLASH = 0x5c;

/** The deepest array/object nesting of JSON text (strings skipped); a linear scan. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/** A numeric id whose JavaScript number does not print back as the text it may have been sent as. */
const lossyId = (id: unknown): boolean =>
  typeof id === 'number' && (!Number.isSafeInteger(id) || Object.is(id, -0));

/** An id written with a fraction or an exponent ("id": 1.0, "id": 1e3) prints back differently too. */
const DECORATED_NUMERIC_ID = /"id"\s*:\s*-?\d+[.eE]/;

/** The parsed body, or undefined when it is not JSON the reference would decode. */
export function parseRequestBody(text: string): ParsedBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // A depth over the limit needs at least that many opening brackets: short bodies skip the scan.
  if (text.length > MAX_JSON_DEPTH && jsonDepth(text) > MAX_JSON_DEPTH) return undefined;
  const messages = Array.isArray(value) ? value : [value];
  const needsExactIds = DECORATED_NUMERIC_ID.test(text)
    || messages.some((m) => typeof m === 'object' && m !== null && lossyId((m as { id?: unknown }).id));
  if (!needsExactIds) return { value };
  return withExactIds(text);
}

/** Parses again, recording the source text of every numeric `id` member against its object. */
function withExactIds(text: string): ParsedBody {
  const idTexts = new WeakMap<object, string>();
  const value: unknown = JSON.parse(text, function (this: object, key: string, v: unknown, context?: { source?: string }) {
    if (key === 'id' && typeof v === 'number' && context?.source !== undefined) idTexts.set(this, context.source);
    return v;
  } as (key: string, v: unknown) => unknown);
  return { value, idTexts };
}
