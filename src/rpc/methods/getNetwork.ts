// getNetwork: passphrase, friendbot URL (omitted when none) and the latest ledger's protocol version.
import { internalError } from '../errors.ts';
import type { Method } from './types.ts';
import { latestProtocolVersion } from './shared/ledgerRange.ts';
import { object, optional, uint32 } from './shared/schemas.ts';

export const getNetwork: Method = {
  name: 'getNetwork',
  light: true,
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'The network: passphrase, protocol version and faucet',
    result: {
      name: 'getNetworkResult',
      schema: object({
        friendbotUrl: optional({ type: 'string', description: 'the faucet; left out when the network has none' }),
        passphrase: { type: 'string' },
        protocolVersion: { ...uint32, description: 'protocol version of the latest ledger' },
      }),
    },
  },
  handler(_params, ctx) {
    const protocol = latestProtocolVersion(ctx.store);
    if ('error' in protocol) throw internalError(protocol.error);
    const friendbotUrl = ctx.node.friendbotUrl;
    return {
      ...(friendbotUrl ? { friendbotUrl } : {}),
      passphrase: ctx.config.networkPassphrase,
      protocolVersion: protocol.version,
    };
  },
};
