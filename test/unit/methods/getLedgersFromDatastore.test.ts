// getLedgers beyond the retention window (--serve-ledgers-from-datastore), over real parts: a SQLite
// store holding the last pubnet fixture ledgers (the window), and a SEP-54 datastore folder holding
// all ten, read through DatastoreLedgerArchive. A page may start in the datastore and run into the
// store; everything it returns must equal what a store holding all ten ledgers returns.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { zstdCompressSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xdr } from '@stellar/stellar-sdk';
import { getLedgers } from '../../../src/rpc/methods/getLedgers.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import { LedgerHistoryReader, availableLedgers, planLedgerRead } from '../../../src/rpc/methods/shared/ledgerHistory.ts';
import { DatastoreSource, openDatastoreSource } from '../../../src/sources/datastore/datastoreSource.ts';
import { DatastoreWriter } from '../../../src/sources/datastore/datastoreWriter.ts';
import { DatastoreLedgerArchive } from '../../../src/sources/datastore/ledgerArchive.ts';
import { encodeBatch } from '../../../src/sources/datastore/batchCodec.ts';
import { FolderObjectStore, type ObjectStore } from '../../../src/io/objectStore.ts';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';
import { resultText } from '../../../src/rpc/rawJson.ts';
import type { LedgerRow } from '../../../src/store/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, assertRpcError, call, callError, contextFor, ledgerBytes,
  openStore, testCall, type TestStore,
} from './support/pubnet.ts';
import { serveFolder } from '../sources/support.ts';

/** The store's window: the last six fixture ledgers; the datastore holds all ten. */
const WINDOW_START = FIRST_LEDGER + 4;
const ALL = Array.from({ length: LAST_LEDGER - FIRST_LEDGER + 1 }, (_, i) => FIRST_LEDGER + i);

let dir: string;
let windowStore: TestStore;
let fullStore: TestStore;
let ctx: MethodContext;

/** A datastore folder holding `ledgers`, one file each, laid out as galexie does. */
function writeDatastore(root: string, ledgers: number[]): string {
  const writer = new DatastoreWriter(root, { networkPassphrase: PUBNET_PASSPHRASE });
  for (const sequence of ledgers) writer.write({ sequence, bytes: ledgerBytes(sequence) });
  return root;
}

/** An archive over a folder, counting the objects fetched. */
function countingArchive(root: string): { archive: DatastoreLedgerArchive; gets: string[] } {
  const folder = new FolderObjectStore(root);
  const gets: string[] = [];
  const store: ObjectStore = {
    description: folder.description,
    get: (key) => { gets.push(key); return folder.get(key); },
    list: (f) => folder.list(f),
  };
  return { archive: new DatastoreLedgerArchive(new DatastoreSource(store, { networkPassphrase: PUBNET_PASSPHRASE })), gets };
}

const archiveOver = (root: string) => new DatastoreLedgerArchive(openDatastoreSource(root, { networkPassphrase: PUBNET_PASSPHRASE }));
const sequences = (page: any): number[] => page.ledgers.map((l: { sequence: number }) => l.sequence);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'lumen-ledgers-ds-'));
  writeDatastore(join(dir, 'datastore'), ALL);
  windowStore = openStore(WINDOW_START, LAST_LEDGER);
  fullStore = openStore();
  ctx = { ...contextFor(windowStore.store), ledgerArchive: archiveOver(join(dir, 'datastore')) };
});
after(() => {
  windowStore.close();
  fullStore.close();
  rmSync(dir, { recursive: true, force: true });
});

const RANGE_TAIL = `the oldest ledger: ${FIRST_LEDGER} and the latest ledger: ${LAST_LEDGER} for this rpc instance`;

test('a read is planned from the archive up to the store\'s oldest ledger, from the store from there', () => {
  assert.deepEqual(planLedgerRead(100, 50, 100), { source: 'store', count: 50 });
  assert.deepEqual(planLedgerRead(120, 50, 100), { source: 'store', count: 50 });
  assert.deepEqual(planLedgerRead(99, 50, 100), { source: 'archive', count: 1 });
  assert.deepEqual(planLedgerRead(90, 5, 100), { source: 'archive', count: 5 });
  assert.deepEqual(planLedgerRead(2, 50, 100, 8), { source: 'archive', count: 8 }, 'at most a chunk');
  const range = { oldest: { sequence: 100, closeTime: 1 }, latest: { sequence: 200, closeTime: 2 } };
  assert.deepEqual(availableLedgers(range, 2), { oldest: { sequence: 2 }, latest: range.latest });
  assert.deepEqual(availableLedgers(range, undefined).oldest, { sequence: 100 }, 'archive unknown: the store alone');
  assert.deepEqual(availableLedgers(range, 150).oldest, { sequence: 100 }, 'an archive starting later adds nothing');
});

test('pages from the datastore\'s first ledger to the latest, across into the store, equal to a store holding them all', async () => {
  const full = contextFor(fullStore.store);
  const seen: number[] = [];
  let previousHash: string | undefined;
  let page = await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 3 } }, ctx);
  for (;;) {
    // the answer's range is the store's, as the reference reports it
    assert.equal(page.oldestLedger, WINDOW_START);
    assert.equal(page.latestLedger, LAST_LEDGER);
    const expected = await call(getLedgers, { startLedger: page.ledgers[0].sequence, pagination: { limit: page.ledgers.length } }, full);
    assert.deepEqual(page.ledgers, expected.ledgers, `ledgers from ${page.ledgers[0].sequence}: hash, close time, header and meta`);
    for (const l of page.ledgers) {
      const header = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(l.headerXdr, 'base64'));
      if (previousHash !== undefined) assert.equal(Buffer.from(header.header.previousLedgerHash).toString('hex'), previousHash, `ledger ${l.sequence} chains`);
      previousHash = l.hash;
    }
    seen.push(...sequences(page));
    if (page.cursor === String(LAST_LEDGER)) break;
    page = await call(getLedgers, { pagination: { cursor: page.cursor, limit: 3 } }, ctx);
  }
  assert.deepEqual(seen, ALL, 'every ledger once, in order');
});

test('one page that starts in the datastore and ends in the store; its cursor goes on from the store', async () => {
  const page = await call(getLedgers, { startLedger: FIRST_LEDGER + 2, pagination: { limit: 5 } }, ctx);
  assert.deepEqual(sequences(page), [FIRST_LEDGER + 2, FIRST_LEDGER + 3, WINDOW_START, WINDOW_START + 1, WINDOW_START + 2]);
  assert.equal(page.cursor, String(WINDOW_START + 2));
  const next = await call(getLedgers, { pagination: { cursor: page.cursor, limit: 2 } }, ctx);
  assert.deepEqual(sequences(next), [WINDOW_START + 3, WINDOW_START + 4]);
  // a cursor inside the datastore's part
  const back = await call(getLedgers, { pagination: { cursor: String(FIRST_LEDGER), limit: 1 } }, ctx);
  assert.deepEqual(sequences(back), [FIRST_LEDGER + 1]);
});

test('xdrFormat json works for datastore ledgers as for stored ones', async () => {
  const { ledgers: [old] } = await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 1 }, xdrFormat: 'json' }, ctx);
  const { ledgers: [stored] } = await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 1 }, xdrFormat: 'json' }, contextFor(fullStore.store));
  assert.deepEqual(old, stored);
  assert.equal(old.headerXdr, '');
  assert.equal(old.headerJson.header.ledger_seq, FIRST_LEDGER);
  assert.ok('v2' in old.metadataJson);
});

test('the range reaches back to the datastore\'s first ledger; before it, or past the latest, the reference\'s errors', async () => {
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER - 1 }, ctx, -32600, `start ledger (${FIRST_LEDGER - 1}) must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { startLedger: 2, pagination: { limit: 1 } }, ctx, -32600, `start ledger (2) must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { startLedger: LAST_LEDGER + 1 }, ctx, -32600, `start ledger (${LAST_LEDGER + 1}) must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { pagination: { cursor: String(FIRST_LEDGER - 2) } }, ctx, -32602, `cursor ('${FIRST_LEDGER - 2}') must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { pagination: { cursor: String(LAST_LEDGER) } }, ctx, -32602, `cursor ('${LAST_LEDGER}') must be between ${RANGE_TAIL}`);
  await assertRpcError(getLedgers, { pagination: { cursor: 'x' } }, ctx, -32602, 'strconv.ParseUint: parsing "x": invalid syntax');
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER, xdrFormat: 'xml' }, ctx, -32600, "got 'xml': expected base64, json for optional 'xdrFormat'");
});

test('without the archive the same store serves its window only, as the reference', async () => {
  const windowOnly = contextFor(windowStore.store);
  const tail = `the oldest ledger: ${WINDOW_START} and the latest ledger: ${LAST_LEDGER} for this rpc instance`;
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER }, windowOnly, -32600, `start ledger (${FIRST_LEDGER}) must be between ${tail}`);
  await assertRpcError(getLedgers, { pagination: { cursor: String(FIRST_LEDGER) } }, windowOnly, -32602, `cursor ('${FIRST_LEDGER}') must be between ${tail}`);
  assert.deepEqual(sequences(await call(getLedgers, { startLedger: WINDOW_START, pagination: { limit: 2 } }, windowOnly)), [WINDOW_START, WINDOW_START + 1]);
});

test('an empty datastore adds nothing: the window only', async () => {
  const empty = join(dir, 'empty');
  writeDatastore(empty, []);
  const tail = `the oldest ledger: ${WINDOW_START} and the latest ledger: ${LAST_LEDGER} for this rpc instance`;
  const c = { ...contextFor(windowStore.store), ledgerArchive: archiveOver(empty) };
  await assertRpcError(getLedgers, { startLedger: FIRST_LEDGER }, c, -32600, `start ledger (${FIRST_LEDGER}) must be between ${tail}`);
  assert.deepEqual(sequences(await call(getLedgers, { startLedger: WINDOW_START, pagination: { limit: 1 } }, c)), [WINDOW_START]);
});

test('a datastore that cannot be read is taken as whole, as the reference does, and its failure is the answer', async () => {
  const other = join(dir, 'other');
  new DatastoreWriter(other, { networkPassphrase: 'Test SDF Network ; September 2015' }).write({ sequence: FIRST_LEDGER, bytes: ledgerBytes(FIRST_LEDGER) });
  const failing = createServer((req, res) => {
    if (req.url === '/.config.json') res.end(JSON.stringify({ networkPassphrase: PUBNET_PASSPHRASE, version: '1.0', compression: 'zstd', ledgersPerBatch: 1, batchesPerPartition: 64000 }));
    else { res.writeHead(500); res.end(); }
  });
  await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(failing.address() as { port: number }).port}/`;
  try {
    for (const [location, why] of [
      [join(dir, 'nowhere'), 'no \\.config\\.json at its root'],
      [other, 'the datastore is for network "Test SDF Network ; September 2015"'],
      [url, 'HTTP 500'],
    ]) {
      const archive = new DatastoreLedgerArchive(openDatastoreSource(location, { networkPassphrase: PUBNET_PASSPHRASE, http: { retries: 0 } }));
      const c = { ...contextFor(windowStore.store), ledgerArchive: archive };
      const e = await callError(getLedgers, { startLedger: FIRST_LEDGER }, c);
      assert.equal(e.code, -32603, location);
      assert.match(e.message, new RegExp(`^error fetching ledgers from datastore: .*${why}`));
      await assertRpcError(getLedgers, { startLedger: 1 }, c, -32600,
        `start ledger (1) must be between the oldest ledger: 2 and the latest ledger: ${LAST_LEDGER} for this rpc instance`);
      assert.deepEqual(sequences(await call(getLedgers, { startLedger: WINDOW_START, pagination: { limit: 1 } }, c)), [WINDOW_START], 'the window is still served');
    }
  } finally {
    failing.closeAllConnections();
    failing.close();
  }
});

test('a ledger missing from the datastore, or a corrupt file, is -32603 "error fetching ledgers from datastore"', async () => {
  const root = writeDatastore(join(dir, 'holed'), ALL);
  const partition = readdirSync(root).find((n) => n !== '.config.json')!;
  const fileOf = (seq: number) => join(root, partition, readdirSync(join(root, partition)).find((n) => n.endsWith(`--${seq}.xdr.zst`))!);
  rmSync(fileOf(FIRST_LEDGER + 2));
  writeFileSync(fileOf(FIRST_LEDGER + 3), 'not zstd, not XDR');
  const c = { ...contextFor(windowStore.store), ledgerArchive: archiveOver(root) };
  const missing = await callError(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 4 } }, c);
  assert.equal(missing.code, -32603);
  assert.match(missing.message, new RegExp(`^error fetching ledgers from datastore: .*no file holds ledger ${FIRST_LEDGER + 2}$`));
  const corrupt = await callError(getLedgers, { startLedger: FIRST_LEDGER + 3, pagination: { limit: 2 } }, c);
  assert.equal(corrupt.code, -32603);
  assert.match(corrupt.message, new RegExp(`^error fetching ledgers from datastore: .*--${FIRST_LEDGER + 3}\\.xdr\\.zst`));
  // the ledgers before the hole are served
  assert.deepEqual(sequences(await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 2 } }, c)), [FIRST_LEDGER, FIRST_LEDGER + 1]);
});

test('a datastore that never answers: the call ends with its signal\'s reason, not a hang', async () => {
  const hanging = createServer(() => { /* never answers */ });
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/`;
    const c = { ...contextFor(windowStore.store), ledgerArchive: new DatastoreLedgerArchive(openDatastoreSource(url, { networkPassphrase: PUBNET_PASSPHRASE })) };
    const stop = new AbortController();
    const reason = new Error('time limit');
    const answer = getLedgers.handler({ startLedger: FIRST_LEDGER }, c, testCall(stop.signal));
    setTimeout(() => stop.abort(reason), 50);
    await assert.rejects(Promise.resolve(answer), (e) => e === reason);
  } finally {
    hanging.closeAllConnections();
    hanging.close();
  }
});

test('a page cut by the answer budget continues from the cached files, each fetched once', async () => {
  const { archive, gets } = countingArchive(join(dir, 'datastore'));
  const c = { ...contextFor(windowStore.store), ledgerArchive: archive };
  // a budget that holds two of these ledgers, not three
  const one = JSON.parse(resultText(await getLedgers.handler({ startLedger: FIRST_LEDGER, pagination: { limit: 1 } }, c, testCall()))).ledgers[0];
  const budget = Math.floor(JSON.stringify(one).length * 2.5);
  const seen: number[] = [];
  let params: Record<string, unknown> = { startLedger: FIRST_LEDGER, pagination: { limit: 4 } };
  while (seen.length < WINDOW_START - FIRST_LEDGER) {
    const page = JSON.parse(resultText(await getLedgers.handler(params, c, testCall(undefined, budget))));
    assert.ok(page.ledgers.length >= 1 && page.ledgers.length < 4, `cut by the budget: a page of ${page.ledgers.length}`);
    seen.push(...sequences(page));
    params = { pagination: { cursor: page.cursor, limit: 4 } };
  }
  assert.deepEqual(seen.slice(0, 4), ALL.slice(0, 4));
  const ledgerFiles = gets.filter((k) => k !== '.config.json');
  assert.equal(new Set(ledgerFiles).size, ledgerFiles.length, `no file fetched twice: ${ledgerFiles.join(', ')}`);
});

test('files holding several ledgers: each fetched once while paging one ledger at a time', async () => {
  const root = join(dir, 'batches');
  mkdirSync(root);
  writeFileSync(join(root, '.config.json'), JSON.stringify({
    networkPassphrase: PUBNET_PASSPHRASE, version: '1.0', compression: 'zstd', ledgersPerBatch: 4, batchesPerPartition: 1,
  }));
  // 63092980..63092983, 63092984..63092987, 63092988..63092991: the first file holds only the fixtures it can
  for (let start = FIRST_LEDGER - (FIRST_LEDGER % 4); start <= LAST_LEDGER; start += 4) {
    const ledgers = ALL.filter((s) => s >= start && s < start + 4).map((sequence) => ({ sequence, bytes: ledgerBytes(sequence) }));
    const name = `${(0xffffffff - start).toString(16).toUpperCase()}--${start}-${start + 3}.xdr.zst`;
    writeFileSync(join(root, name), encodeBatch(ledgers, true));
  }
  const { archive, gets } = countingArchive(root);
  const c = { ...contextFor(windowStore.store), ledgerArchive: archive };
  const seen: number[] = [];
  let page = await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 1 } }, c);
  seen.push(...sequences(page));
  while (page.cursor !== String(LAST_LEDGER)) {
    page = await call(getLedgers, { pagination: { cursor: page.cursor, limit: 1 } }, c);
    seen.push(...sequences(page));
  }
  assert.deepEqual(seen, ALL);
  const ledgerFiles = gets.filter((k) => k !== '.config.json');
  assert.deepEqual(ledgerFiles, [`FC3D470B--63092980-63092983.xdr.zst`, `FC3D4707--63092984-63092987.xdr.zst`],
    'the two files below the window, once each');
});

test('the window moving on during a page: each read takes the store\'s oldest ledger as it is then', async () => {
  const moving = openStore(WINDOW_START, WINDOW_START + 3);
  try {
    const reader = new LedgerHistoryReader(moving.store, archiveOver(join(dir, 'datastore')), FIRST_LEDGER + 2, 10, new AbortController().signal);
    const rows: LedgerRow[] = [...await reader.read(1)];
    // two more ledgers stored with a window of four: WINDOW_START and WINDOW_START + 1 leave the store
    for (const seq of [WINDOW_START + 4, WINDOW_START + 5]) moving.store.ingest(ledgerToBatch({ bytes: ledgerBytes(seq) }, networkIdOf(PUBNET_PASSPHRASE)), 4);
    assert.equal(moving.store.ledgerRange()!.oldest.sequence, WINDOW_START + 2);
    rows.push(...await reader.read(4), ...await reader.read(4));
    assert.deepEqual(rows.map((r) => r.sequence), ALL.slice(2, 10), 'no gap, no repeat');
    const fromFull = fullStore.store.ledgers(FIRST_LEDGER + 2, 8);
    assert.deepEqual(rows.map((r) => [r.sequence, Buffer.from(r.header).toString('hex')]), fromFull.map((r) => [r.sequence, Buffer.from(r.header).toString('hex')]));
    assert.deepEqual(rows.map(({ sequence, closeTime, protocolVersion }) => ({ sequence, closeTime, protocolVersion })),
      fromFull.map(({ sequence, closeTime, protocolVersion }) => ({ sequence, closeTime, protocolVersion })));
  } finally {
    moving.close();
  }
});

test('over HTTP (no listing), the first ledger is found by probing from the store\'s oldest ledger', async () => {
  const root = writeDatastore(join(dir, 'http'), ALL);
  const http = await serveFolder(root);
  try {
    const archive = new DatastoreLedgerArchive(openDatastoreSource(http.url, { networkPassphrase: PUBNET_PASSPHRASE }));
    assert.equal(await archive.firstLedger(WINDOW_START, new AbortController().signal), FIRST_LEDGER);
    const c = { ...contextFor(windowStore.store), ledgerArchive: archive };
    assert.deepEqual(sequences(await call(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 5 } }, c)), ALL.slice(0, 5));
  } finally {
    await http.close();
  }
});

test('a datastore file past the input cap fails the request that needs it with the cap named; other pages are served', async () => {
  const root = writeDatastore(join(dir, 'capped'), ALL);
  // one old file turned into 64 MiB of zeros (about 2 KB compressed)
  const writer = new DatastoreWriter(root, { networkPassphrase: PUBNET_PASSPHRASE });
  const prefix = new Uint8Array(12);
  new DataView(prefix.buffer).setUint32(0, FIRST_LEDGER + 1);
  new DataView(prefix.buffer).setUint32(4, FIRST_LEDGER + 1);
  new DataView(prefix.buffer).setUint32(8, 1);
  const bomb = Buffer.concat([prefix, Buffer.alloc(64 * 1024 * 1024)]);
  writeFileSync(join(root, writer.keyOf(FIRST_LEDGER + 1)), zstdCompressSync(bomb));
  const capped = {
    ...contextFor(windowStore.store),
    ledgerArchive: new DatastoreLedgerArchive(openDatastoreSource(root, { networkPassphrase: PUBNET_PASSPHRASE, cap: { bytes: 32 * 1024 * 1024, flag: 'max-input-bytes' } })),
  };
  const e = await callError(getLedgers, { startLedger: FIRST_LEDGER, pagination: { limit: 3 } }, capped);
  assert.equal(e.code, -32603);
  assert.match(e.message, new RegExp(`error fetching ledgers from datastore: datastore .*capped/.*--${(FIRST_LEDGER + 1).toString()}\\.xdr\\.zst: refused: decompressed, it is larger than the 32 MiB input cap \\(--max-input-bytes raises it\\)`));
  assert.deepEqual(sequences(await call(getLedgers, { startLedger: FIRST_LEDGER + 2, pagination: { limit: 2 } }, capped)), [FIRST_LEDGER + 2, FIRST_LEDGER + 3]);
});
