// The two-instance setup: A is the standalone network publishing a SEP-54 datastore and a history
// archive (fast closes); B follows A as it would follow testnet (state from A's archive, ledgers from
// A's datastore, transactions to A's core-compatible /tx).
import { join } from 'node:path';
import { startNodeProcess, type NodeProcess } from './nodeProcess.ts';
import { PASSPHRASE } from './sdk.ts';

/** A's first history-archive checkpoint: a follower can start once A has published it. */
export const CHECKPOINT = 63;

export async function latest(node: NodeProcess): Promise<number> {
  return (await node.rpc('getLatestLedger')).result?.sequence ?? 0;
}

export async function waitFor(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A, publishing into `dir`/datastore and `dir`/archive, closing a ledger every 50 ms. */
export function startA(dir: string, args: string[] = []): Promise<NodeProcess> {
  return startNodeProcess({ args: [
    '--ledger-close-interval', '50ms', '--log-level', 'warn',
    '--publish-datastore', join(dir, 'datastore'), '--publish-history-archive', join(dir, 'archive'), ...args,
  ] });
}

/** B follows A; `published` is where A's datastore and archive are: its folder, or a URL serving it. */
export function startB(published: string, a: NodeProcess, dbPath?: string, args: string[] = []): Promise<NodeProcess> {
  const at = (name: string) => (/^https?:/.test(published) ? `${published}${name}` : join(published, name));
  return startNodeProcess({
    dbPath, readyTimeoutMs: 60_000, readyWhenListening: true,
    args: [
      '--log-level', 'info', '--network-passphrase', PASSPHRASE,
      '--datastore', at('datastore'), '--datastore-poll-interval', '20ms',
      '--history-archive-urls', at('archive'),
      '--stellar-core-url', a.url, '--friendbot-url', `${a.url}/friendbot`, ...args,
    ],
  });
}
