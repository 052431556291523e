// getLedgers beyond the retention window, with two instances: A is the standalone network publishing
// a datastore (and keeping every ledger); B follows A through that datastore, keeps only 16 ledgers,
// and serves older ones from A's datastore (--serve-ledgers-from-datastore). Paged from ledger 2 to
// the latest, B must answer every ledger once, in order, equal to A's, headers chaining across the
// datastore/store boundary; restarted without the flag, B answers its window only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';

const WINDOW = 16;

interface Page {
  ledgers: Array<{ sequence: number; hash: string; headerXdr: string; ledgerCloseTime: string }>;
  latestLedger: number; oldestLedger: number; oldestLedgerCloseTime: number; cursor: string;
}

async function getLedgers(node: NodeProcess, params: unknown): Promise<Page> {
  const res = await node.rpc('getLedgers', params);
  assert.ok(res.result, `getLedgers ${JSON.stringify(params)}: ${JSON.stringify(res.error)}`);
  return res.result;
}

async function oldestStored(node: NodeProcess): Promise<number> {
  return (await node.rpc('getHealth')).result?.oldestLedger ?? 0;
}

const previousHashOf = (headerXdr: string): string =>
  Buffer.from(xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(headerXdr, 'base64')).header.previousLedgerHash).toString('hex');

/**
 * Pages `node`'s getLedgers from ledger 2 to `target`, `limit` at a time, and checks that every
 * ledger comes once, in order, each header chaining onto the one before, and that each page's
 * oldestLedger is its store's (a window of `window` ledgers), as the reference reports it. `check`
 * sees every page. Returns the last page.
 */
async function pageFromLedger2(node: NodeProcess, target: number, limit: number, window: number, check?: (page: Page) => Promise<void>): Promise<Page> {
  const seen: number[] = [];
  let previousHash: string | undefined;
  let page = await getLedgers(node, { startLedger: 2, pagination: { limit } });
  for (;;) {
    assert.equal(page.oldestLedger, page.latestLedger - window + 1, 'oldestLedger is the store\'s');
    assert.equal(typeof page.oldestLedgerCloseTime, 'number');
    await check?.(page);
    for (const l of page.ledgers) {
      if (previousHash !== undefined) assert.equal(previousHashOf(l.headerXdr), previousHash, `ledger ${l.sequence} chains onto the one before`);
      previousHash = l.hash;
      seen.push(l.sequence);
    }
    if (Number(page.cursor) >= target) break;
    page = await getLedgers(node, { pagination: { cursor: page.cursor, limit } });
  }
  assert.deepEqual(seen.slice(0, target - 1), Array.from({ length: target - 1 }, (_, i) => i + 2), 'ledgers 2..target, once each, in order');
  return page;
}

test('a node asked to serve ledgers from a datastore it does not have refuses to start', async () => {
  await assert.rejects(startNodeProcess({ args: ['--serve-ledgers-from-datastore'] }),
    /--serve-ledgers-from-datastore needs a datastore: --datastore, a --network with a public data lake, or on the standalone network --publish-datastore/);
});

test('a standalone node with a short window serves the older ledgers from the datastore it publishes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-own-ds-'));
  const node = await startNodeProcess({ args: [
    '--ledger-close-interval', '50ms', '--log-level', 'warn', '--history-retention-window', '8',
    '--publish-datastore', join(dir, 'datastore'), '--serve-ledgers-from-datastore',
  ] });
  try {
    await waitFor('the window to move past ledger 40', async () => (await oldestStored(node)) > 40);
    await pageFromLedger2(node, await latest(node), 5, 8);
  } finally {
    await node.stop();
  }
});

test('B pages from ledger 2 to the latest through A\'s datastore and its own window, and without the flag keeps to its window', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-ledgers-ds-'));
  const a = await startA(dir);
  let b: NodeProcess | undefined;
  try {
    // some ledgers with transactions in them, long before B's window
    const sa = new rpc.Server(a.url, { allowHttp: true });
    for (let i = 0; i < 3; i++) await sa.fundAddress(Keypair.random().publicKey());
    await waitFor('A to publish its first checkpoint', async () => (await latest(a)) > CHECKPOINT + 1);
    b = await startB(dir, a, undefined, ['--history-retention-window', String(WINDOW), '--serve-ledgers-from-datastore']);
    await waitFor('B\'s window to move well past its first checkpoint', async () => (await oldestStored(b!)) > CHECKPOINT + 2 * WINDOW);

    // with small pages, raw JSON-RPC: every ledger once, in order, A's hashes, headers chaining
    const target = await latest(b);
    const page = await pageFromLedger2(b, target, 7, WINDOW, async (p) => {
      const fromA = await getLedgers(a, { startLedger: p.ledgers[0].sequence, pagination: { limit: p.ledgers.length } });
      assert.deepEqual(p.ledgers, fromA.ledgers, `ledgers from ${p.ledgers[0].sequence} equal A's`);
    });
    assert.ok(page.oldestLedger > CHECKPOINT + 2 * WINDOW, 'the pages crossed from the datastore into the store');

    // the JS SDK's getLedgers, larger pages, decoded by the SDK
    const sb = new rpc.Server(b.url, { allowHttp: true });
    let sdkPage = await sb.getLedgers({ startLedger: 2, pagination: { limit: 40 } });
    const sdkSeen: number[] = [];
    for (;;) {
      for (const l of sdkPage.ledgers) {
        assert.equal(l.headerXdr.header.ledgerSeq, l.sequence);
        assert.equal(l.metadataXdr.type, 'v2', 'LedgerCloseMeta V2');
        sdkSeen.push(l.sequence);
      }
      if (Number(sdkPage.cursor) >= target) break;
      sdkPage = await sb.getLedgers({ pagination: { cursor: sdkPage.cursor, limit: 40 } });
    }
    assert.deepEqual(sdkSeen.slice(0, target - 1), Array.from({ length: target - 1 }, (_, i) => i + 2));

    // xdrFormat json: a datastore ledger and a stored one, as A renders them
    const stored = await oldestStored(b);
    for (const seq of [3, stored]) {
      const params = { startLedger: seq, pagination: { limit: 1 }, xdrFormat: 'json' };
      const [fromB, fromA]: Page[] = await Promise.all([getLedgers(b!, params), getLedgers(a, params)]);
      assert.deepEqual(fromB.ledgers, fromA.ledgers, `ledger ${seq} as JSON`);
      assert.equal((fromB.ledgers[0] as any).headerJson.header.ledger_seq, seq);
    }

    // bad input: before the datastore's first ledger, after the latest
    const range = /must be between the oldest ledger: 2 and the latest ledger: \d+ for this rpc instance$/;
    const tooOld = await b.rpc('getLedgers', { startLedger: 1 });
    assert.equal(tooOld.error?.code, -32600);
    assert.match(tooOld.error.message, /^start ledger \(1\) /);
    assert.match(tooOld.error.message, range);
    const tooNew = await b.rpc('getLedgers', { startLedger: (await latest(b)) + 1000 });
    assert.equal(tooNew.error?.code, -32600);
    assert.match(tooNew.error.message, range);
    const badCursor = await b.rpc('getLedgers', { pagination: { cursor: '0' } });
    assert.equal(badCursor.error?.code, -32602);
    assert.match(badCursor.error.message, /^cursor \('0'\) must be between the oldest ledger: 2 /);

    // a ledger gone from the datastore (closed after the pages above, so never cached): -32603, as the
    // reference answers
    const gone = target + 45;
    await waitFor(`ledger ${gone} to leave B's window`, async () => (await oldestStored(b!)) > gone + 2);
    const partition = join(dir, 'datastore', readdirSync(join(dir, 'datastore')).find((n) => !n.startsWith('.'))!);
    rmSync(join(partition, readdirSync(partition).find((n) => n.endsWith(`--${gone}.xdr.zst`))!));
    const missing = await b.rpc('getLedgers', { startLedger: gone - 2, pagination: { limit: 5 } });
    assert.equal(missing.error?.code, -32603, JSON.stringify(missing));
    assert.match(missing.error.message, new RegExp(`^error fetching ledgers from datastore: .*no file holds ledger ${gone}$`));

    // restarted without the flag: the reference's window-only getLedgers
    await b.stop();
    b = await startB(dir, a, b.dbPath, ['--history-retention-window', String(WINDOW)]);
    await waitFor('B to follow again', async () => (await latest(b!)) > gone + WINDOW);
    const windowOnly = await b.rpc('getLedgers', { startLedger: 2 });
    assert.equal(windowOnly.error?.code, -32600);
    assert.match(windowOnly.error.message, /^start ledger \(2\) must be between the oldest ledger: (\d+) and/);
    assert.ok(Number(/oldest ledger: (\d+)/.exec(windowOnly.error.message)![1]) > gone, 'the oldest ledger is the store\'s');
    // (near the tip: the window's far end moves on 20 times a second)
    const tip = await latest(b);
    const own = await getLedgers(b, { startLedger: tip - 1, pagination: { limit: 2 } });
    assert.deepEqual(own.ledgers.map((l) => l.sequence), [tip - 1, tip]);
  } finally {
    await b?.stop();
    await a.stop();
  }
});
