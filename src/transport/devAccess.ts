// Whether this node serves the developer methods, and to whom (issue: a node on a shared address
// must not hand the network to everyone who reaches it by default).
//   --dev-methods auto (the default): on only when --endpoint is a loopback address, where only this
//     machine's processes reach it; on 0.0.0.0, a LAN address or a public one they stay off.
//   --dev-methods true: on wherever it listens; off a loopback address the start says, loudly, that
//     anyone who reaches the address controls the network.
// Either way, the callers the methods answer are CallerPolicy's (no browser page but allowed origins,
// no rebinding Host).
import type { Config } from '../config/config.ts';
import { CallerPolicy, isLoopbackHost } from '../rpc/callerPolicy.ts';
import { parseEndpoint } from './httpServer.ts';

export interface DevAccess {
  /** The developer methods are served (the standalone network decides whether it has them at all). */
  served: boolean;
  /** Served on an address other processes than this machine's reach: the start warns. */
  exposed: boolean;
  /** Why they are off, when they are (the refusal's data). */
  offReason?: string;
  policy: CallerPolicy;
}

const list = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

export function devAccess(config: Pick<Config, 'endpoint' | 'devMethods' | 'devAllowOrigin' | 'devAllowHost'>): DevAccess {
  const { host } = parseEndpoint(config.endpoint);
  const loopback = isLoopbackHost(host);
  const policy = new CallerPolicy({ endpointHost: host, allowOrigins: list(config.devAllowOrigin), allowHosts: list(config.devAllowHost) });
  if (config.devMethods === 'false') {
    return { served: false, exposed: false, offReason: 'developer methods are turned off on this network (--dev-methods=false)', policy };
  }
  if (config.devMethods === 'auto' && !loopback) {
    return {
      served: false, exposed: false, policy,
      offReason: `developer methods are off on a node listening on ${host}, which is not a loopback address; `
        + 'start it with --dev-methods=true to serve them to everyone who reaches that address',
    };
  }
  return { served: true, exposed: !loopback, policy };
}

/** The warning a node serving developer methods beyond loopback logs and prints. */
export function exposedWarning(endpoint: string): string {
  return `developer methods (lumen_*) are served on ${endpoint}, which is not a loopback address: anyone who reaches it `
    + 'controls this network (closes ledgers, sets balances, reverts, impersonates accounts)';
}
