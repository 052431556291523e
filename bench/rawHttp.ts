// A lean keep-alive HTTP/1.1 client for latency measurements: one socket, one request at a time,
// the request bytes built once, the response framed by Content-Length. node:http's client costs a
// few hundred microseconds of CPU per request here, which on a 2-core machine shared with the
// server would be charged to the server's numbers; this one costs a few tens.
import { connect, type Socket } from 'node:net';

export class RawHttpClient {
  private readonly socket: Socket;
  private readonly request: Buffer;
  private readonly head: string;
  private chunks: Buffer[] = [];
  private received = 0;
  private waiting: { resolve: (body: string) => void; reject: (e: Error) => void } | undefined;
  /** Resolves once the connection is up. */
  readonly connected: Promise<void>;

  constructor(url: string, body: string, path = '/') {
    const u = new URL(url);
    this.head = `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n`;
    this.request = this.requestFor(body);
    this.socket = connect({ host: u.hostname, port: Number(u.port), noDelay: true });
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (d: Buffer) => this.onData(d));
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  private requestFor(body: string): Buffer {
    const payload = Buffer.from(body);
    return Buffer.concat([Buffer.from(`${this.head}Content-Length: ${payload.length}\r\n\r\n`), payload]);
  }

  /** Sends the request (or one with this other body) and resolves with the response body (status must be 200). */
  async send(body?: string): Promise<string> {
    await this.connected;
    if (this.waiting) throw new Error('one request at a time');
    const request = body === undefined ? this.request : this.requestFor(body);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void { this.socket.destroy(); }

  private fail(e: Error): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(e);
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.received += d.length;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const headerEnd = all.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = all.subarray(0, headerEnd).toString('latin1');
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!m) return this.fail(new Error(`no content-length in response: ${head.slice(0, 200)}`));
    const end = headerEnd + 4 + Number(m[1]);
    if (all.length < end) { this.chunks = [all]; return; }
    if (!head.startsWith('HTTP/1.1 200')) return this.fail(new Error(`HTTP ${head.split('\r\n')[0]}`));
    const body = all.subarray(headerEnd + 4, end).toString('utf8');
    const rest = all.subarray(end);
    this.chunks = rest.length ? [rest] : [];
    this.received = rest.length;
    const w = this.waiting;
    this.waiting = undefined;
    w?.resolve(body);
  }
}
