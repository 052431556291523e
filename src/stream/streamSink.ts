// What a transport (WebSocket, Server-Sent Events) gives the subscription hub for one connection.
// The hub decides what to send, when, and when a connection must go; the transport only frames
// items in its own wire format around their shared bytes, queues them, and reports how many bytes
// its client has not taken yet.

/** The kinds of subscription (the `kind` of subscribe params, the path of /stream/<kind>). */
export type StreamKindName = 'ledgers' | 'events' | 'transactions' | 'transaction';
export const STREAM_KINDS: readonly StreamKindName[] = ['ledgers', 'events', 'transactions', 'transaction'];

/** One item for one subscription. */
export interface StreamNotification {
  subscription: string;
  kind: StreamKindName;
  /** The item's resumable id: a ledger sequence, an event id, a transaction TOID, or the hash. */
  id: string;
  /**
   * The item's JSON (the getLedgers / getEvents / getTransactions / getTransaction shape), encoded
   * once and shared by every subscriber that gets it: a transport writes these bytes as they are,
   * never copies nor changes them.
   */
  item: Buffer;
  /** The last notification of the subscription (`transaction`): the hub removes it right after. */
  final: boolean;
}

/**
 * Where a dropped subscription resumes: the params to subscribe again with, besides its kind and
 * filters. `cursor` is the id of the last item handed to the connection before it was closed; a
 * subscription that was handed nothing resumes from its own start.
 */
export type ResumePoint = { cursor: string } | { startLedger: number } | Record<string, never>;

/** A subscription of a connection closed for being too slow, and where it resumes. */
export interface DroppedSubscription {
  subscription: string;
  kind: StreamKindName;
  resume: ResumePoint;
}

export interface StreamSink {
  readonly transport: 'ws' | 'sse';
  /** Queues one notification; returns the bytes queued. Never throws (a closed sink drops it). */
  send(note: StreamNotification): number;
  /** Queues a JSON-RPC answer (WebSocket only); returns the bytes queued. */
  answer?(text: string): number;
  /**
   * Writes between cork and uncork go to the socket together: one system call for a turn's
   * notifications, not one per frame.
   */
  cork?(): void;
  uncork?(): void;
  /** Bytes queued and not yet taken by the client. */
  readonly bufferedBytes: number;
  /**
   * Ends the connection (WebSocket close code; SSE ends the response), after what it already holds,
   * so a client that reads gets everything before the close. `dropped` tells each subscription's
   * client where to resume (4001). The transport then calls hub.dropSink.
   */
  close(code: number, reason: string, dropped?: readonly DroppedSubscription[]): void;
  /** Drops the connection at once, and what it holds: a closing client that still takes nothing. */
  terminate(): void;
  /** The hub ended one of its subscriptions (`final`: it delivered its last item: SSE ends its response). */
  subscriptionEnded?(id: string, final: boolean): void;
}

/** Close codes (documented in docs/streaming.md). */
export const CloseCode = {
  /** The node is shutting down. */
  goingAway: 1001,
  /** A binary frame (only text frames carry JSON-RPC). */
  unsupportedData: 1003,
  /** Policy: an unanswered ping. */
  policy: 1008,
  /** A frame over the size limit (ws sends it itself, from maxPayload). */
  tooBig: 1009,
  /** The client did not keep up (see subscriptionHub.ts): it resumes from the points it was given. */
  tooSlow: 4001,
  /** A developer revert took the ledgers back while the subscription was replaying: subscribe again. */
  reverted: 4002,
} as const;

// ---- JSON-RPC notifications (WebSocket) --------------------------------------------------------

/**
 * What comes before the item in a subscription's notifications:
 * `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"s…","kind":"…","result":`,
 * shaped as eth_subscribe's. The one part of a notification that differs from one subscriber to
 * the next.
 */
export function notificationHead(subscription: string, kind: StreamKindName): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","method":"subscription","params":{"subscription":${JSON.stringify(subscription)},"kind":"${kind}","result":`);
}

/** What comes after the item. */
export const NOTIFICATION_TAIL = Buffer.from('}}');
export const FINAL_NOTIFICATION_TAIL = Buffer.from(',"final":true}}');

/** A whole notification as text (tests, and what the three parts above add up to). */
export function jsonRpcNotification(n: StreamNotification): string {
  return notificationHead(n.subscription, n.kind).toString() + n.item.toString() + (n.final ? FINAL_NOTIFICATION_TAIL : NOTIFICATION_TAIL).toString();
}

/**
 * The notice a dropped subscription gets before its connection closes: its code, why, and where to
 * resume. A method of its own, so clients that read every `subscription` notification's result are
 * not handed one without.
 */
export function droppedNotification(d: DroppedSubscription, code: number, reason: string): string {
  return `{"jsonrpc":"2.0","method":"subscriptionDropped","params":{"subscription":${JSON.stringify(d.subscription)},"kind":"${d.kind}",`
    + `"code":${code},"message":${JSON.stringify(reason)},"resume":${JSON.stringify(d.resume)}}}`;
}

// ---- Server-Sent Events ------------------------------------------------------------------------

/** What comes before the item in an event: the item id (what Last-Event-ID resumes from) and the kind. */
export function sseEventHead(n: StreamNotification): Buffer {
  return Buffer.from(`id: ${n.id}\nevent: ${n.kind}\ndata: `);
}

/** What ends an event. */
export const SSE_EVENT_TAIL = Buffer.from('\n\n');
