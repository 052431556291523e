// getLedgers beyond the retention window (--serve-ledgers-from-datastore): a follower of a datastore
// of real pubnet ledgers (the fixtures looped into a chain, ~1.3 MB of meta each) keeps a window of
// 20 ledgers and serves the older ones from the datastore folder. Measured over HTTP, interleaved
// round by round so the shared machine's noise hits all alike: a page of 8 ledgers from the store
// (the baseline), the same size of page from the datastore the first time (files read, decompressed,
// headers parsed), and the same page again (decoded files from the cache). Time is to the whole
// answer (about 14 MB of base64) read by the client.
import { rmSync } from 'node:fs';
import { startNodeProcess } from '../test/integration/support/nodeProcess.ts';
import { pubnetMetas, writeLoopedDatastore } from './ingestion.ts';
import { RpcClient } from './rpcClient.ts';
import type { Row } from './report.ts';
import { fmt, median, percentile, sleep } from './stats.ts';

const PUBNET = 'Public Global Stellar Network ; September 2015';
const FIRST = 63092982;
const WINDOW = 20;
/** Ledgers per page: 8 pubnet ledgers as base64 fit the default 16 MiB answer budget. */
const PAGE = 8;

export interface LedgersFromDatastoreOptions { loops: number }

interface Sample { store: number; cold: number; warm: number }

export async function runLedgersFromDatastoreBench(opts: LedgersFromDatastoreOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const ds = writeLoopedDatastore(pubnetMetas(), PUBNET, opts.loops, FIRST);
  const node = await startNodeProcess({
    args: ['--log-level', 'warn', '--datastore', ds.dir, '--network-passphrase', PUBNET,
      '--history-retention-window', String(WINDOW), '--serve-ledgers-from-datastore'],
    readyWhenListening: true, readyTimeoutMs: 60_000,
  });
  const rpc = new RpcClient(node.url, 1);
  try {
    for (const deadline = Date.now() + 300_000; ;) {
      const latest = (await node.rpc('getLatestLedger')).result?.sequence ?? 0;
      if (latest >= ds.last) break;
      if (Date.now() > deadline) throw new Error(`the follower reached ${latest} of ${ds.last}`);
      await sleep(100);
    }
    /** One page from `start`, timed to its last byte; checked to hold PAGE consecutive ledgers. */
    const page = async (start: number): Promise<number> => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLedgers', params: { startLedger: start, pagination: { limit: PAGE } } });
      const t0 = performance.now();
      const text = await rpc.post('/', body);
      const ms = performance.now() - t0;
      const reply = JSON.parse(text);
      const got = (reply.result?.ledgers ?? []).map((l: { sequence: number }) => l.sequence);
      if (got.length !== PAGE || got.some((s: number, i: number) => s !== start + i)) {
        throw new Error(`getLedgers from ${start}: ${reply.error ? JSON.stringify(reply.error) : `ledgers ${got.join(',')}`}`);
      }
      return ms;
    };
    const storeFirst = ds.last - WINDOW + 1;
    const pages = Math.floor((storeFirst - ds.first) / PAGE);
    await page(storeFirst); // warm-up: the first request of a process pays for code loading
    const samples: Sample[] = [];
    for (let i = 0; i < pages; i++) {
      const store = await page(storeFirst + (i % (WINDOW - PAGE + 1)));
      const cold = await page(ds.first + i * PAGE);
      const warm = await page(ds.first + i * PAGE);
      samples.push({ store, cold, warm });
    }
    const p = (k: keyof Sample, q: number) => percentile(samples.map((s) => s[k]), q);
    const ratio = (k: keyof Sample) => median(samples.map((s) => s[k] / s.store));
    log(`  ${pages} rounds: store p50 ${fmt(p('store', 50))} ms, datastore cold p50 ${fmt(p('cold', 50))} ms (${ratio('cold').toFixed(2)}x), cached p50 ${fmt(p('warm', 50))} ms (${ratio('warm').toFixed(2)}x)`);
    const rows: Row[] = [{
      metric: `getLedgers beyond the retention window: a page of ${PAGE} pubnet ledgers from the datastore (first read / cached)`,
      value: `p50 ${fmt(p('cold', 50))} / ${fmt(p('warm', 50))} ms, p99 ${fmt(p('cold', 99))} / ${fmt(p('warm', 99))} ms`,
      ratio: `${ratio('cold').toFixed(2)}x / ${ratio('warm').toFixed(2)}x the store's page`,
      target: 'reported (no target)', verdict: 'n/a',
    }];
    const details = ['### getLedgers beyond the retention window', '',
      `A follower of a datastore folder holding the 10 pubnet fixture ledgers looped ${opts.loops} times (${ds.last - ds.first + 1} ledgers, rewritten into one chain), with a window of ${WINDOW} ledgers and \`--serve-ledgers-from-datastore\`. Each of ${pages} rounds asks, over HTTP, one page of ${PAGE} ledgers (base64, about 14 MB) from the store, one from a part of the datastore not read before, and the same datastore page again (its files now in the archive's cache). Times are to the answer's last byte; ratios are per round to that round's store page, then the median.`, '',
      '| Page of 8 ledgers from | p50 ms | p99 ms | Ratio to the store (median) |', '|---|---|---|---|',
      `| the store (baseline) | ${fmt(p('store', 50))} | ${fmt(p('store', 99))} | 1.00x |`,
      `| the datastore, first read | ${fmt(p('cold', 50))} | ${fmt(p('cold', 99))} | ${ratio('cold').toFixed(2)}x |`,
      `| the datastore, cached files | ${fmt(p('warm', 50))} | ${fmt(p('warm', 99))} | ${ratio('warm').toFixed(2)}x |`, ''];
    return { rows, details };
  } finally {
    rpc.close();
    await node.stop();
    rmSync(node.dbPath, { force: true });
    rmSync(ds.dir, { recursive: true, force: true });
  }
}
