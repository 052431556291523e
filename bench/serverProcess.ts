// Runs lumen-rpc the way users do, as its own process on a fresh database. Reuses the integration
// tests' launcher so the bench and the tests start the node identically.
import { startNodeProcess, type NodeProcess } from '../test/integration/support/nodeProcess.ts';

export type { NodeProcess };
export { freePort } from '../test/integration/support/nodeProcess.ts';

export type CloseMode = 'interval' | 'instant';

export function startServer(opts: { closeMode?: CloseMode; closeIntervalMs?: number; extra?: string[] } = {}): Promise<NodeProcess> {
  return startNodeProcess({
    args: [
      '--log-level', 'warn', // per-request logging would be measured as server work
      '--close-mode', opts.closeMode ?? 'interval',
      '--ledger-close-interval', `${opts.closeIntervalMs ?? 1000}ms`,
      ...(opts.extra ?? []),
    ],
  });
}
