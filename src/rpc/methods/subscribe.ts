// subscribe / unsubscribe: streaming subscriptions (src/stream/). Only over a streaming connection
// (WebSocket); over HTTP POST they answer -32601 with a message saying where they work. Not in the
// reference; rpc.discover and getVersionInfo list them on a WebSocket only (streamOnly).
import { ErrorCode, RpcError } from '../errors.ts';
import type { Method, MethodCall, StreamConnection } from './types.ts';

function connection(call: MethodCall, method: string): StreamConnection {
  if (call.stream === undefined) {
    throw new RpcError(ErrorCode.methodNotFound, `${method} needs a WebSocket or /stream`, method);
  }
  return call.stream;
}

export const subscribe: Method = {
  name: 'subscribe',
  streamOnly: true,
  // the hub validates per kind, with messages that name the kind's params
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'Subscribes this WebSocket connection to ledgers, events or transactions as they are stored',
    description: 'lumen-rpc extension, WebSocket only. Params: `kind` ("ledgers", "events", "transactions" or '
      + '"transaction") and that kind\'s own (docs/streaming.md); notifications follow the answer.',
    result: { name: 'subscription id', schema: { type: 'string' } },
  },
  handler(params, _ctx, call) { return connection(call, 'subscribe').subscribe(params); },
};

export const unsubscribe: Method = {
  name: 'unsubscribe',
  streamOnly: true,
  doc: {
    summary: 'Ends one of this connection\'s subscriptions',
    description: 'lumen-rpc extension, WebSocket only. False when this connection has no subscription by that id (any more).',
    params: { id: { required: true } },
    result: { name: 'whether it was ended', schema: { type: 'boolean' } },
  },
  paramsSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  handler(params, _ctx, call) { return connection(call, 'unsubscribe').unsubscribe(params.id as string); },
};

/** The streaming methods, served beside the others (node.ts). */
export const streamMethods: readonly Method[] = [subscribe, unsubscribe];
