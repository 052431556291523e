// What a transport (WebSocket, Server-Sent Events) gives the subscription hub for one connection.
// The hub decides what to send and when a connection is too slow; the transport only frames items
// in its own wire format, queues bytes, and reports how many it could not hand to the client yet.

/** The kinds of subscription (the `kind` of subscribe params, the path of /stream/<kind>). */
export type StreamKindName = 'ledgers' | 'events' | 'transactions' | 'transaction';
export const STREAM_KINDS: readonly StreamKindName[] = ['ledgers', 'events', 'transactions', 'transaction'];

/** One item for one subscription, already rendered as JSON (once per item and xdrFormat). */
export interface StreamNotification {
  subscription: string;
  kind: StreamKindName;
  /** The item's resumable id: a ledger sequence, an event id, a transaction TOID, or the hash. */
  id: string;
  /** The item's JSON text (the getLedgers / getEvents / getTransactions / getTransaction shape). */
  item: string;
  /** The last notification of the subscription (`transaction`): the hub removes it right after. */
  final: boolean;
}

export interface StreamSink {
  readonly transport: 'ws' | 'sse';
  /** The notification as this transport sends it (see jsonRpcNotification and sseEvent). */
  frame(note: StreamNotification): string;
  /** Queues framed text; `bytes` is its UTF-8 length. Never throws (a closed sink drops it). */
  deliver(text: string, bytes: number): void;
  /** Bytes queued and not yet taken by the client (what the buffer limit applies to). */
  readonly bufferedBytes: number;
  /** Ends the connection (WebSocket close code; SSE ends the response). The transport then calls hub.dropSink. */
  close(code: number, reason: string): void;
  /** Called when the hub ended a subscription by itself (`transaction` delivered): SSE ends its response. */
  subscriptionEnded?(id: string): void;
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
  /** The client did not take what was sent: over the buffer limit. */
  tooSlow: 4001,
  /** A developer revert took the ledgers back while the subscription was replaying: subscribe again. */
  reverted: 4002,
} as const;

/** `{"jsonrpc":"2.0","method":"subscription","params":{...}}`, as eth_subscribe notifications are shaped. */
export function jsonRpcNotification(n: StreamNotification): string {
  return `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":${JSON.stringify(n.subscription)},`
    + `"kind":"${n.kind}","result":${n.item}${n.final ? ',"final":true' : ''}}}`;
}

/** One Server-Sent Event: the item id (what Last-Event-ID resumes from), the kind, the item. */
export function sseEvent(n: StreamNotification): string {
  return `id: ${n.id}\nevent: ${n.kind}\ndata: ${n.item}\n\n`;
}
