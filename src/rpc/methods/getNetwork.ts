// getNetwork: passphrase, friendbot URL (omitted when none) and the latest ledger's protocol version.
import { internalError } from '../errors.ts';
import type { Method } from './types.ts';
import { latestProtocolVersion } from './shared/ledgerRange.ts';

export const getNetwork: Method = {
  name: 'getNetwork',
  paramsSchema: { type: 'object' },
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
