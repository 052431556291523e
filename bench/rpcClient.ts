// A minimal JSON-RPC client for the bench's own traffic (setup, payments, latency probes).
// node:http with a keep-alive Agent rather than fetch: it is cheaper per request (the client shares
// the 2 cores with the server, so its overhead is charged to the server's numbers), and the Agent's
// maxSockets doubles as the cap on requests in flight — excess calls wait in the Agent's queue.
import { Agent, request } from 'node:http';

export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) { super(`${message} (JSON-RPC ${code})`); this.code = code; }
}

interface Pending { request: object; resolve: (v: any) => void; reject: (e: Error) => void }
type Reply = { id: number; result?: unknown; error?: { code: number; message: string } };

export class RpcClient {
  readonly url: URL;
  private readonly agent: Agent;
  private nextId = 1;
  private readonly batchSize: number;
  private queued: Pending[] = [];
  private flushScheduled = false;

  /**
   * With `batchSize` > 1, calls made in the same turn of the event loop travel together as one
   * JSON-RPC batch request (up to batchSize each), as a high-throughput client would send them.
   */
  constructor(url: string, maxSockets = 64, batchSize = 1) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets });
    this.batchSize = batchSize;
  }

  /** Calls a method and returns its `result`; JSON-RPC errors are thrown as RpcError. */
  async call<T = any>(method: string, params?: unknown): Promise<T> {
    const request = { jsonrpc: '2.0', id: this.nextId++, method, ...(params === undefined ? {} : { params }) };
    if (this.batchSize <= 1) return unwrap<T>(JSON.parse(await this.post(this.url.pathname, JSON.stringify(request))));
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ request, resolve, reject });
      if (this.queued.length >= this.batchSize) this.flush();
      else if (!this.flushScheduled) { this.flushScheduled = true; setImmediate(() => this.flush()); }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    while (this.queued.length) {
      const batch = this.queued.splice(0, this.batchSize);
      this.post(this.url.pathname, JSON.stringify(batch.map((p) => p.request))).then((text) => {
        const replies = new Map((JSON.parse(text) as Reply[]).map((r) => [r.id, r]));
        for (const p of batch) {
          const r = replies.get((p.request as { id: number }).id);
          if (!r) p.reject(new Error('no reply in batch'));
          else { try { p.resolve(unwrap(r)); } catch (e) { p.reject(e as Error); } }
        }
      }, (e: Error) => { for (const p of batch) p.reject(e); });
    }
  }

  /** POSTs a body to a path on the same server and returns the response text (any status). */
  post(path: string, body = '', timeoutMs = 30_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: this.url.hostname, port: this.url.port, path, method: 'POST', agent: this.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${path} timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void { this.agent.destroy(); }
}

function unwrap<T>(msg: Reply): T {
  if (msg.error) throw new RpcError(msg.error.code, msg.error.message);
  return msg.result as T;
}
