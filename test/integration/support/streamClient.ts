// A streaming client for the tests: the `ws` package as a real WebSocket client of a node, with
// JSON-RPC calls (answers matched by id) and the notifications of each subscription in arrival order.
import WebSocket from 'ws';

export interface Notification {
  subscription: string;
  kind: string;
  result: any;
  final?: boolean;
}

export class StreamClient {
  readonly ws: WebSocket;
  /** Notifications per subscription id, in arrival order. */
  readonly items = new Map<string, Notification[]>();
  /** Every frame received, parsed (answers and notifications). */
  readonly frames: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** False once the test stops looking (a client "killed" mid-stream records nothing after). */
  recording = true;
  private nextId = 1;
  private readonly pending = new Map<number, (answer: any) => void>();
  private readonly waiters = new Set<() => void>();

  private constructor(ws: WebSocket) {
    this.ws = ws;
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      this.wake();
    }));
    ws.on('message', (data) => {
      if (!this.recording) return;
      const msg = JSON.parse(data.toString());
      this.frames.push(msg);
      if (!Array.isArray(msg) && msg.method === 'subscription') {
        const p = msg.params;
        let list = this.items.get(p.subscription);
        if (list === undefined) { list = []; this.items.set(p.subscription, list); }
        list.push(p);
      } else {
        const id = Array.isArray(msg) ? msg[0]?.id : msg.id;
        this.pending.get(id)?.(msg);
        this.pending.delete(id);
      }
      this.wake();
    });
    ws.on('error', () => { /* seen as close */ });
  }

  /** Connects to `url` (the node's http:// url) at `path`. */
  static async open(url: string, path = '/', options: WebSocket.ClientOptions = {}): Promise<StreamClient> {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + path, options);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return new StreamClient(ws);
  }

  /** One JSON-RPC call: the whole answer object. */
  call(method: string, params?: unknown): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** subscribe: the id, or throws with the error. */
  async subscribe(params: Record<string, unknown>): Promise<string> {
    const answer = await this.call('subscribe', params);
    if (answer.error) throw new Error(`subscribe failed: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }

  results(subscription: string): any[] { return (this.items.get(subscription) ?? []).map((n) => n.result); }

  /** Resolves once `cond` holds (checked after each frame), or rejects after `ms` with `what`. */
  waitFor(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.waiters.delete(check); reject(new Error(`timed out waiting for ${what}`)); }, ms);
      const check = (): void => {
        if (!cond()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  close(): void { this.ws.close(); }

  private wake(): void { for (const w of [...this.waiters]) w(); }
}
