// A minimal JSON-RPC client for the bench's own traffic (setup, payments, latency probes).
// node:http with a keep-alive Agent rather than fetch: it is cheaper per request (the client shares
// the 2 cores with the server, so its overhead is charged to the server's numbers), and the Agent's
// maxSockets doubles as the cap on requests in flight — excess calls wait in the Agent's queue.
import { Agent, request } from 'node:http';

export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) { super(`${message} (JSON-RPC ${code})`); this.code = code; }
}

export class RpcClient {
  readonly url: URL;
  private readonly agent: Agent;
  private nextId = 1;

  constructor(url: string, maxSockets = 64) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  /** Calls a method and returns its `result`; JSON-RPC errors are thrown as RpcError. */
  async call<T = any>(method: string, params?: unknown): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, ...(params === undefined ? {} : { params }) });
    const text = await this.post(this.url.pathname, body);
    const msg = JSON.parse(text) as { result?: T; error?: { code: number; message: string } };
    if (msg.error) throw new RpcError(msg.error.code, msg.error.message);
    return msg.result as T;
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
