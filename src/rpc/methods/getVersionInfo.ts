// getVersionInfo: build facts of this node; never fails (protocolVersion is 0 when unknown).
import type { Method } from './types.ts';
import { latestProtocolVersion } from './shared/ledgerRange.ts';

export const getVersionInfo: Method = {
  name: 'getVersionInfo',
  paramsSchema: { type: 'object' },
  handler(_params, ctx) {
    const protocol = latestProtocolVersion(ctx.store);
    return {
      version: ctx.node.version,
      commitHash: ctx.node.commitHash,
      buildTimestamp: ctx.node.buildTimestamp,
      captiveCoreVersion: ctx.node.captiveCoreVersion,
      protocolVersion: 'version' in protocol ? protocol.version : 0,
    };
  },
};
