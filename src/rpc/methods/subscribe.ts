// subscribe / unsubscribe: streaming subscriptions (src/stream/). Only over a streaming connection
// (WebSocket); over HTTP POST they answer -32601 with a message saying where they work. They are
// not in rpc.discover (a document of the HTTP methods), and not in the reference.
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
  // the hub validates per kind, with messages that name the kind's params
  paramsSchema: { type: 'object' },
  handler(params, _ctx, call) { return connection(call, 'subscribe').subscribe(params); },
};

export const unsubscribe: Method = {
  name: 'unsubscribe',
  paramsSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  handler(params, _ctx, call) { return connection(call, 'unsubscribe').unsubscribe(params.id as string); },
};

/** The streaming methods, served beside the others (node.ts). */
export const streamMethods: readonly Method[] = [subscribe, unsubscribe];
