// getVersionInfo: build facts of this node; never fails (protocolVersion is 0 when unknown).
import type { Method } from './types.ts';
import { latestProtocolVersion } from './shared/ledgerRange.ts';
import { object, uint32 } from './shared/schemas.ts';

export const getVersionInfo: Method = {
  name: 'getVersionInfo',
  light: true,
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'Version facts of this node',
    result: {
      name: 'getVersionInfoResult',
      schema: object({
        version: { type: 'string' },
        commitHash: { type: 'string' },
        buildTimestamp: { type: 'string' },
        captiveCoreVersion: { type: 'string', description: 'here: the embedded standalone network\'s version' },
        protocolVersion: { ...uint32, description: 'protocol version of the latest ledger; 0 when none is stored' },
      }),
    },
  },
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
