// The block explorer's first paint (issue: < 1 s): headless Chromium (Debian's, driven by
// playwright-core) loads http://<node>/explorer over real HTTP, each load in a fresh browser context
// (no cache, new connections). Two figures per load, from the page's own performance timeline:
//  - first contentful paint (navigation start to the first text painted: the page's header);
//  - the latest ledgers drawn (navigation start to the `explorer-latest-ledgers` mark the front page
//    sets when its first ledgers are on screen: the script loaded, the WebSocket opened and the
//    `ledgers` subscription's replay arrived).
// The node is a standalone network with a few transactions (faucet fundings) in its latest ledgers.
import { existsSync } from 'node:fs';
import { Keypair } from '@stellar/stellar-sdk';
import { chromium } from 'playwright-core';
import { startServer } from './serverProcess.ts';
import type { Row } from './report.ts';
import { fmt, median } from './stats.ts';

export interface ExplorerBenchOptions { loads: number }
export const DEFAULT_EXPLORER_OPTIONS: ExplorerBenchOptions = { loads: 15 };
export const QUICK_EXPLORER_OPTIONS: ExplorerBenchOptions = { loads: 3 };

const TARGET_MS = 1000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ExplorerLoad { firstContentfulPaintMs: number; ledgersDrawnMs: number }

/** `loads` loads of the explorer's front page at `url`, each in a fresh context. */
export async function measureExplorerLoads(url: string, loads: number): Promise<ExplorerLoad[]> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const results: ExplorerLoad[] = [];
    // one load first, not counted: Chromium's own start (its processes, its caches of itself)
    for (let i = 0; i <= loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${url}/explorer`);
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0 && performance.getEntriesByName('explorer-latest-ledgers').length > 0);
      const load = await page.evaluate(() => ({
        firstContentfulPaintMs: performance.getEntriesByName('first-contentful-paint')[0].startTime,
        ledgersDrawnMs: performance.getEntriesByName('explorer-latest-ledgers')[0].startTime,
      }));
      if (i > 0) results.push(load);
      await context.close();
    }
    return results;
  } finally {
    await browser.close();
  }
}

export async function runExplorerBench(options: ExplorerBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const node = await startServer();
  try {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${node.url}/friendbot?addr=${Keypair.random().publicKey()}`);
      if (!res.ok) throw new Error(`friendbot: ${res.status} ${await res.text()}`);
    }
    log(`explorer: ${options.loads} loads`);
    const loads = await measureExplorerLoads(node.url, options.loads);
    const fcp = median(loads.map((l) => l.firstContentfulPaintMs));
    const drawn = median(loads.map((l) => l.ledgersDrawnMs));
    return {
      rows: [
        { metric: 'Explorer first paint (/explorer, navigation to first contentful paint, fresh browser context)', value: `${fmt(fcp, 0)} ms`, target: `< ${TARGET_MS} ms`, verdict: fcp < TARGET_MS ? 'PASS' : 'FAIL' },
        { metric: 'Explorer latest ledgers drawn (navigation to the live list on screen)', value: `${fmt(drawn, 0)} ms`, target: 'reported (no target)', verdict: 'n/a' },
      ],
      details: ['### Explorer first paint', '',
        `${loads.length} loads of \`/explorer\` in headless Chromium, each in a fresh browser context, over HTTP on loopback; ms from navigation start.`, '',
        `- first contentful paint: ${loads.map((l) => fmt(l.firstContentfulPaintMs, 0)).join(', ')}`,
        `- latest ledgers drawn: ${loads.map((l) => fmt(l.ledgersDrawnMs, 0)).join(', ')}`, ''],
    };
  } finally {
    await node.stop();
  }
}
