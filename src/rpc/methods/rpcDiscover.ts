// rpc.discover: OpenRPC's service-discovery method, answering the OpenRPC 1.3.2 document of every
// method this node serves, itself included (src/rpc/openrpc/document.ts). The reference serves no
// rpc.* method (jrpc2's built-ins are disabled there); this one is ours.
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

/** rpc.discover over `served` and itself. */
export function rpcDiscover(served: readonly Method[]): Method {
  // The document only changes with the version it names: built once.
  let answer: { version: string; json: RawJson } | undefined;
  const self: Method = {
    name: 'rpc.discover',
    paramsSchema: { type: 'object' },
    doc: {
      summary: 'This API\'s OpenRPC document: every method, its params and its result schema',
      description: 'lumen-rpc extension. Result schemas list every member (additionalProperties false); methods '
        + 'whose answers carry XDR have a second form for xdrFormat "json".',
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
    handler(_params, ctx) {
      const { version } = ctx.node;
      if (answer?.version !== version) {
        answer = { version, json: new RawJson(JSON.stringify(openRpcDocument([...served, self], version))) };
      }
      return answer.json;
    },
  };
  return self;
}
