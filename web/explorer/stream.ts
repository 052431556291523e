// The node's own streaming (docs/streaming.md): one WebSocket to the page's origin, carrying every
// subscription the page holds. Each subscription remembers where it is (its last item), so after a
// lost connection it subscribes again from there and sees each item once; a node that no longer
// has that point (a developer revert took the ledgers back) gets the subscription from now on.

export type StreamStatus = 'connecting' | 'live' | 'offline';

export interface Subscription {
  /** Stops it (and closes the socket when it was the last). */
  close(): void;
}

interface Sub {
  params: Record<string, unknown>;
  onItem(item: any): void;
  /** The params that resume right after an item. */
  resume(item: any): Record<string, unknown>;
  /** Where it resumes from, once it got an item or was dropped with a point. */
  from?: Record<string, unknown>;
  serverId?: string;
  closed: boolean;
}

const START_KEYS = ['startLedger', 'cursor'];

export class Stream {
  private ws: WebSocket | undefined;
  private readonly subs = new Set<Sub>();
  private readonly pending = new Map<number, Sub>();
  private readonly byServerId = new Map<string, Sub>();
  private nextId = 1;
  private retryMs = 500;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly statusListeners = new Set<(s: StreamStatus) => void>();
  status: StreamStatus = 'offline';

  onStatus(listener: (s: StreamStatus) => void): () => void {
    this.statusListeners.add(listener);
    listener(this.status);
    return () => this.statusListeners.delete(listener);
  }

  /** Opens the socket ahead of the first subscription (its handshake overlaps what comes before). */
  warm(): void {
    if (this.ws === undefined) this.connect();
  }

  subscribe(params: Record<string, unknown>, onItem: (item: any) => void, resume: (item: any) => Record<string, unknown>): Subscription {
    const sub: Sub = { params, onItem, resume, closed: false };
    this.subs.add(sub);
    if (this.ws?.readyState === WebSocket.OPEN) this.send(sub);
    else this.connect();
    return {
      close: () => {
        if (sub.closed) return;
        sub.closed = true;
        this.subs.delete(sub);
        if (sub.serverId !== undefined) {
          this.byServerId.delete(sub.serverId);
          this.request('unsubscribe', { id: sub.serverId });
        }
        if (this.subs.size === 0) this.disconnect();
      },
    };
  }

  private setStatus(s: StreamStatus): void {
    this.status = s;
    for (const l of this.statusListeners) l(s);
  }

  private connect(): void {
    if (this.ws !== undefined || this.retryTimer !== undefined) return;
    this.setStatus('connecting');
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`);
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 500;
      this.setStatus('live');
      for (const sub of this.subs) this.send(sub);
    };
    ws.onmessage = (m) => this.message(JSON.parse(String(m.data)));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.pending.clear();
      this.byServerId.clear();
      for (const sub of this.subs) sub.serverId = undefined;
      this.setStatus('offline');
      if (this.subs.size === 0) return;
      this.retryTimer = setTimeout(() => { this.retryTimer = undefined; this.connect(); }, this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 10_000);
    };
  }

  private disconnect(): void {
    const ws = this.ws;
    this.ws = undefined;
    ws?.close();
    this.setStatus('offline');
  }

  private request(method: string, params: unknown): number {
    const id = this.nextId++;
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return id;
  }

  private send(sub: Sub): void {
    const params = { ...sub.params };
    if (sub.from) {
      for (const k of START_KEYS) delete params[k];
      Object.assign(params, sub.from);
    }
    this.pending.set(this.request('subscribe', params), sub);
  }

  private message(msg: any): void {
    if (typeof msg.id === 'number' && this.pending.has(msg.id)) {
      const sub = this.pending.get(msg.id)!;
      this.pending.delete(msg.id);
      if (sub.closed) {
        if (typeof msg.result === 'string') this.request('unsubscribe', { id: msg.result });
        return;
      }
      if (typeof msg.result === 'string') {
        sub.serverId = msg.result;
        this.byServerId.set(msg.result, sub);
      } else if (sub.from === undefined || Object.keys(sub.from).length > 0) {
        // its start is not (or no longer) stored, e.g. a revert took it back: from the next ledger on
        sub.from = {};
        this.send(sub);
      } else {
        console.warn('a subscription was refused:', msg.error);
      }
      return;
    }
    const p = msg.params;
    if (p === undefined) return;
    const sub = this.byServerId.get(p.subscription);
    if (sub === undefined) return;
    if (msg.method === 'subscription') {
      sub.from = sub.resume(p.result);
      sub.onItem(p.result);
    } else if (msg.method === 'subscriptionDropped') {
      this.byServerId.delete(p.subscription);
      sub.serverId = undefined;
      if (p.resume && Object.keys(p.resume).length > 0) sub.from = p.resume;
      else if (p.code === 4002) sub.from = {};
    }
  }
}

/** The one stream of the page. */
export const stream = new Stream();

/** A transaction's TOID as getTransactions' cursor writes it (ledger, application order from 1). */
export function transactionToid(ledger: number, applicationOrder: number): string {
  return ((BigInt(ledger) << 32n) | (BigInt(applicationOrder) << 12n)).toString();
}

/** The event id after every event of a ledger (getEvents' end-of-window cursor for it). */
export function eventCursorAfter(ledger: number): string {
  return `${((BigInt(ledger + 1) << 32n) - 1n).toString().padStart(19, '0')}-4294967295`;
}
