// rpc.discover: OpenRPC's service-discovery method, answering the OpenRPC 1.3.2 document of every
// method this node serves to the caller on its connection, itself included (src/rpc/openrpc/document.ts):
// the dispatcher's own list (MethodCall.serving), so the developer methods (lumen_*) are in it where
// they are served (a standalone network) and subscribe/unsubscribe on a WebSocket. getVersionInfo's
// `methods` names the same list. The reference serves no rpc.* method (jrpc2's built-ins are disabled
// there); this one is ours.
import { openRpcDocument } from '../openrpc/document.ts';
import { RawJson } from '../rawJson.ts';
import { arrayOf, object, optional } from './shared/schemas.ts';
import type { Method } from './types.ts';

/** An OpenRPC content descriptor: a param or a result, with its JSON schema. */
const descriptor = object({
  name: { type: 'string' },
  description: optional({ type: 'string' }),
  required: optional({ type: 'boolean' }),
  schema: { type: 'object' },
});

/**
 * The document only changes with the methods served (one list per kind of connection and caller, the
 * same array each time) and the version it names: built once for each.
 */
const answers = new WeakMap<readonly Method[], { version: string; json: RawJson }>();

export const rpcDiscover: Method = {
  name: 'rpc.discover',
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'This API\'s OpenRPC document: every method served here, its params and its result schema',
    description: 'lumen-rpc extension. The methods this node serves on this connection: the developer methods '
      + '(lumen_*) where it runs a standalone network, subscribe/unsubscribe over a WebSocket. Result schemas '
      + 'list every member (additionalProperties false); methods whose answers carry XDR have a second form '
      + 'for xdrFormat "json".',
    result: {
      name: 'OpenRPC document',
      schema: object({
        openrpc: { type: 'string', enum: ['1.3.2'] },
        info: object({ title: { type: 'string' }, version: { type: 'string' }, description: optional({ type: 'string' }) }),
        methods: arrayOf(object({
          name: { type: 'string' },
          summary: optional({ type: 'string' }),
          description: optional({ type: 'string' }),
          paramStructure: { type: 'string', enum: ['by-name'] },
          params: arrayOf(descriptor),
          result: descriptor,
        })),
      }),
    },
  },
  handler(_params, ctx, call) {
    const { version } = ctx.node;
    const served = call.serving().methods;
    let answer = answers.get(served);
    if (answer?.version !== version) {
      answer = { version, json: new RawJson(JSON.stringify(openRpcDocument(served, version))) };
      answers.set(served, answer);
    }
    return answer.json;
  },
};
