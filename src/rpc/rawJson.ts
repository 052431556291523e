// JSON that is already rendered (a cached answer, or XDR rendered as JSON off the event loop), and
// the ways answers carry it: spliced into the answer's text, or kept as the pieces of a large answer
// that the transport writes one by one.

/** Text put into an answer verbatim. It must be valid JSON. */
export class RawJson {
  readonly json: string;
  /**
   * The last answer made around it, for the next request with the same id (clients commonly send
   * the same one): a cached result (getLatestLedger's, once per ledger) is then answered with the
   * very same string, which the engine flattens and measures once instead of per request.
   */
  private lastIdText: string | undefined;
  private lastAnswer = '';
  constructor(json: string) { this.json = json; }

  /** `{"jsonrpc":"2.0","id":<idText>,"result":<json>}` */
  answer(idText: string): string {
    if (idText !== this.lastIdText) {
      this.lastAnswer = `{"jsonrpc":"2.0","id":${idText},"result":${this.json}}`;
      this.lastIdText = idText;
    }
    return this.lastAnswer;
  }
}

/** JSON already encoded as UTF-8 (XDR rendered by the addon), spliced into an answer as it is. */
export class EncodedJson {
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) { this.bytes = bytes; }
}

/** A piece of an answer: text, or UTF-8 bytes. */
export type JsonPart = string | Uint8Array;

/**
 * JSON.stringify for answers holding EncodedJson pieces at any depth (plain objects, arrays and
 * JSON values otherwise), as text pieces with the encoded ones between them. Members that are
 * undefined are left out, as JSON.stringify does.
 */
export function jsonParts(value: unknown): JsonPart[] {
  const parts: JsonPart[] = [];
  let text = '';
  const walk = (v: unknown): void => {
    if (v instanceof EncodedJson) {
      if (text !== '') parts.push(text);
      text = '';
      parts.push(v.bytes);
    } else if (Array.isArray(v)) {
      text += '[';
      v.forEach((item, i) => {
        if (i > 0) text += ',';
        if (item === undefined) text += 'null';
        else walk(item);
      });
      text += ']';
    } else if (typeof v === 'object' && v !== null) {
      let first = true;
      text += '{';
      for (const [k, member] of Object.entries(v)) {
        if (member === undefined) continue;
        text += (first ? '' : ',') + JSON.stringify(k) + ':';
        first = false;
        walk(member);
      }
      text += '}';
    } else {
      text += JSON.stringify(v);
    }
  };
  walk(value);
  if (text !== '') parts.push(text);
  return parts;
}

/** UTF-8 length of answer pieces. */
export function partsByteLength(parts: readonly JsonPart[]): number {
  let n = 0;
  for (const p of parts) n += typeof p === 'string' ? Buffer.byteLength(p) : p.byteLength;
  return n;
}

/**
 * A large answer kept as the pieces it was built from (a page's items), with its UTF-8 length: the
 * transport writes it piece by piece, giving the event loop a turn in between, instead of joining
 * and encoding tens of megabytes at once.
 */
export class JsonChunks {
  readonly parts: readonly JsonPart[];
  readonly bytes: number;
  constructor(parts: readonly JsonPart[], bytes = partsByteLength(parts)) {
    this.parts = parts;
    this.bytes = bytes;
  }

  /** Pieces around these (short, so measured here). */
  wrap(prefix: string, suffix: string): JsonChunks {
    return new JsonChunks([prefix, ...this.parts, suffix], this.bytes + Buffer.byteLength(prefix) + Buffer.byteLength(suffix));
  }

  /** The whole text (tests, and callers that want a value). */
  text(): string {
    return Buffer.concat(this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString('utf8');
  }

  /** Pieces one after another. */
  static join(pieces: ReadonlyArray<string | JsonChunks>): JsonChunks {
    const parts: JsonPart[] = [];
    let bytes = 0;
    for (const p of pieces) {
      if (typeof p === 'string') {
        parts.push(p);
        bytes += Buffer.byteLength(p);
      } else {
        for (const q of p.parts) parts.push(q);
        bytes += p.bytes;
      }
    }
    return new JsonChunks(parts, bytes);
  }
}

/** A handler's result as one JSON text, whatever form it came in (tests and benchmarks call handlers directly). */
export function resultText(result: unknown): string {
  if (result instanceof JsonChunks) return result.text();
  if (result instanceof RawJson) return result.json;
  return JSON.stringify(result);
}
