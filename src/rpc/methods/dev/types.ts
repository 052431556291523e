// The developer network's methods (lumen_*): served by the standalone network only, each also a
// `lumen-rpc dev <command>` on the command line.
import type { Method, MethodContext } from '../types.ts';
import type { StandaloneNetwork } from '../../../standalone/standaloneNetwork.ts';
import { RpcError, ErrorCode, invalidParams } from '../../errors.ts';

/** How `lumen-rpc dev` offers a method: the command word and which params its positional arguments fill. */
export interface DevCommand {
  command: string;
  /** Param names filled by the positional arguments, in order (a value that parses as JSON is taken as JSON). */
  args: string[];
  /**
   * A last positional argument naming a file on the caller's machine that gets the answer (as JSON),
   * instead of stdout: the node never takes a path from a request; its caller writes its own files.
   */
  answerTo?: string;
}

export interface DevMethod extends Method {
  cli: DevCommand;
}

/** The standalone network a developer method acts on (ctx.dev is set only where these methods are served). */
export function devNetwork(ctx: MethodContext): StandaloneNetwork {
  if (!ctx.dev) throw new RpcError(ErrorCode.methodNotFound, 'method not found');
  return ctx.dev;
}

/** A developer request that cannot be done as asked (unknown id, an entry that does not parse, ...). */
export const devRefused = (message: string): RpcError => invalidParams(message);

/**
 * The method as a node that does not serve it answers: following a real network, or with
 * --dev-methods=false. -32601 as for any unknown method, with the reason in `data`.
 */
export function refusedDevMethod(method: DevMethod, reason: string): Method {
  return {
    name: method.name,
    paramsSchema: { type: 'object' },
    notServed: reason,
    handler() { throw new RpcError(ErrorCode.methodNotFound, 'method not found', `${method.name}: ${reason}`); },
  };
}
