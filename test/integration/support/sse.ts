// A Server-Sent Events client for the streaming tests: real HTTP (fetch with a streamed body), the
// event-stream format parsed as the HTML standard does (fields id/event/data, `:` comment lines,
// events ended by a blank line).

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseOpen {
  status: number;
  headers: Headers;
  /** The body of a non-200 answer. */
  body?: string;
  stream?: SseStream;
}

export class SseStream {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly abort: AbortController;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly ready: SseEvent[] = [];
  /** Comment lines seen (heartbeats). */
  comments = 0;
  /** The server ended the response. */
  ended = false;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, abort: AbortController) {
    this.reader = reader;
    this.abort = abort;
  }

  /** The next event, or undefined once the server ended the stream. */
  async next(): Promise<SseEvent | undefined> {
    while (this.ready.length === 0) {
      if (this.ended) return undefined;
      const { value, done } = await this.reader.read();
      if (done) {
        this.ended = true;
        break;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
      this.parse();
    }
    return this.ready.shift();
  }

  /** The next `n` events (fails if the stream ends first). */
  async take(n: number): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    while (out.length < n) {
      const e = await this.next();
      if (e === undefined) throw new Error(`stream ended after ${out.length} of ${n} events`);
      out.push(e);
    }
    return out;
  }

  /** Drops the connection, as a client killed mid-stream does. */
  close(): void {
    this.abort.abort();
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      let fields = 0;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments++;
          continue;
        }
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        fields++;
        if (name === 'id') id = value;
        else if (name === 'event') event = value;
        else if (name === 'data') data.push(value);
      }
      if (fields > 0) this.ready.push({ id, event, data: data.join('\n') });
    }
  }
}

/** GET `url` as an EventSource would (with Last-Event-ID when resuming). */
export async function openSse(url: string, options: { lastEventId?: string; headers?: Record<string, string> } = {}): Promise<SseOpen> {
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const res = await fetch(url, { headers, signal: abort.signal });
  if (res.status !== 200 || res.body === null) return { status: res.status, headers: res.headers, body: await res.text() };
  return { status: res.status, headers: res.headers, stream: new SseStream(res.body.getReader(), abort) };
}

/** The query string of a stream URL (`filters` as JSON). */
export function streamUrl(base: string, kind: string, params: Record<string, unknown> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const text = q.toString();
  return `${base}/stream/${kind}${text === '' ? '' : `?${text}`}`;
}
