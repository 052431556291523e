// Parsing a JSON-RPC request body as the reference's decoder would read it:
//  - Go's encoding/json refuses a document nested deeper than 10,000 arrays/objects (its scanner's
//    maxNestingDepth), so such a body is "not JSON" here too, before anything walks it;
//  - jrpc2 keeps a request id as the raw JSON text it was sent as and echoes it unchanged. JSON.parse
//    turns 1e999 into Infinity and rounds integers past 2^53, so for the ids whose number text would
//    not survive that, the exact text is recovered with JSON.parse's source-text access.

/** The deepest nesting the reference's decoder accepts. */
export const MAX_JSON_DEPTH = 10_000;

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

/** A message whose id JSON.parse would not echo as sent. */
const lossyMessage = (m: unknown): boolean =>
  typeof m === 'object' && m !== null && lossyId((m as { id?: unknown }).id);

const SPACE = 0x20, TAB = 0x09, LF = 0x0a, CR = 0x0d, COLON = 0x3a, MINUS = 0x2d, ZERO = 0x30, NINE = 0x39, DOT = 0x2e;
const isJsonSpace = (c: number): boolean => c === SPACE || c === TAB || c === LF || c === CR;

/**
 * Whether an `"id"` member (at any depth) is a number written with a fraction or an exponent
 * ("id": 1.0, "id": 1e3): it prints back differently too. What the pattern /"id"\s*:\s*-?\d+[.eE]/
 * finds in text that parsed as JSON (whose only whitespace is these four characters), without a
 * regular expression: on the request path a scan for `"id"` costs a fraction of a match.
 */
export function hasDecoratedNumericId(text: string): boolean {
  for (let at = text.indexOf('"id"'); at >= 0; at = text.indexOf('"id"', at + 4)) {
    let i = at + 4;
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== COLON) continue;
    i++;
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === MINUS) i++;
    const digits = i;
    while (i < text.length && text.charCodeAt(i) >= ZERO && text.charCodeAt(i) <= NINE) i++;
    if (i === digits) continue;
    const c = text.charCodeAt(i);
    if (c === DOT || c === 0x65 /* e */ || c === 0x45 /* E */) return true;
  }
  return false;
}

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
  let needsExactIds = hasDecoratedNumericId(text);
  if (!needsExactIds) {
    if (!Array.isArray(value)) needsExactIds = lossyMessage(value);
    else for (let i = 0; i < value.length && !needsExactIds; i++) needsExactIds = lossyMessage(value[i]);
  }
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
