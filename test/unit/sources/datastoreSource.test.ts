import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xdr } from '@stellar/stellar-sdk';
import { DatastoreSource, openDatastoreSource } from '../../../src/sources/datastore/datastoreSource.ts';
import { DatastoreWriter } from '../../../src/sources/datastore/datastoreWriter.ts';
import { FolderObjectStore, openObjectStore, type ObjectStore } from '../../../src/io/objectStore.ts';
import { FIXTURES, P20, TESTNET, collect, headerOf, ledgerNumbered, never, p20Ledger, serveFolder } from './support.ts';

const PUBNET = 'Public Global Stellar Network ; September 2015';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-datastore-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function manifest(passphrase: string): string {
  return JSON.stringify({ networkPassphrase: passphrase, version: '1.0', compression: 'zstd', ledgersPerBatch: 1, batchesPerPartition: 64000 });
}

test('the p20 fixture folder: ledgers 997..999, each hashing to its hash and chaining onto the one before', async () => {
  const source = openDatastoreSource(P20, { networkPassphrase: TESTNET });
  assert.equal(await source.earliest(), 997);
  assert.equal(await source.latest(), 999);
  const ledgers = await collect(source.ledgers(997, { signal: never(), to: 999 }));
  assert.deepEqual(ledgers.map((l) => l.sequence), [997, 998, 999]);
  const headers = ledgers.map((l) => headerOf(l.bytes));
  for (const h of headers) {
    assert.deepEqual(new Uint8Array(createHash('sha256').update(xdr.LedgerHeader.schema.encode(h.header)).digest()), h.hash);
  }
  assert.deepEqual(headers[1].header.previousLedgerHash, headers[0].hash);
  assert.deepEqual(headers[2].header.previousLedgerHash, headers[1].hash);
  assert.deepEqual(ledgers[1], p20Ledger(998));
  // a range inside the datastore, and `from` inside it
  assert.deepEqual((await collect(source.ledgers(998, { signal: never(), to: 998 }))).map((l) => l.sequence), [998]);
});

test('the other fixture files, read through a datastore folder by their flat names and extensions', async (t) => {
  const dir = tempDir(t);
  const p25 = join(dir, 'p25');
  const pubnet = join(dir, 'pubnet');
  for (const [folder, passphrase, files] of [
    [p25, TESTNET, ['testnet/datastore-p25/FFF1035B--982180.xdr.zst']],
    [pubnet, PUBNET, ['pubnet/datastore/FC62697B--60659332.xdr', 'pubnet/datastore/FCD285FF--53312000.xdr.zstd']],
  ] as const) {
    mkdirSync(folder);
    for (const f of files) copyTo(join(FIXTURES, f), join(folder, f.split('/').pop()!));
    writeFileSync(join(folder, '.config.json'), manifest(passphrase));
  }
  const [l982180] = await collect(openDatastoreSource(p25).ledgers(982180, { signal: never(), to: 982180 }));
  assert.equal(headerOf(l982180.bytes).header.ledgerSeq, 982180);
  for (const seq of [60659332, 53312000]) {
    const [ledger] = await collect(openDatastoreSource(pubnet, { networkPassphrase: PUBNET }).ledgers(seq, { signal: never(), to: seq }));
    assert.equal(ledger.sequence, seq);
    assert.equal(headerOf(ledger.bytes).header.ledgerSeq, seq);
  }
  assert.equal(await openDatastoreSource(pubnet).earliest(), 53312000);
  assert.equal(await openDatastoreSource(pubnet).latest(), 60659332);
});

test('a datastore of another network, or no datastore at all, is refused clearly', async (t) => {
  await assert.rejects(openDatastoreSource(P20, { networkPassphrase: PUBNET }).latest(), /datastore .*datastore-p20: the datastore is for network "Test SDF Network ; September 2015", expected "Public Global/);
  const empty = tempDir(t);
  await assert.rejects(collect(openDatastoreSource(empty).ledgers(2, { signal: never() })), /no \.config\.json at its root: not a SEP-54 datastore/);
});

test('a corrupt file stops the ledgers with an error naming it; nothing of it is handed out', async (t) => {
  const dir = tempDir(t);
  for (const name of readdirSync(P20)) copyTo(join(P20, name), join(dir, name));
  const bad = join(dir, 'FFFFFC19--998.xdr.zst');
  const bytes = readFileSync(bad);
  writeFileSync(bad, bytes.subarray(0, bytes.length - 30));
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const l of openDatastoreSource(dir).ledgers(997, { signal: never(), to: 999 })) seen.push(l.sequence);
  }, /FFFFFC19--998\.xdr\.zst: truncated zstd data/);
  assert.deepEqual(seen, [997]);
});

test('a file holding other ledgers than its name says is refused', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, '.config.json'), manifest(TESTNET));
  copyTo(join(P20, 'FFFFFC18--999.xdr.zst'), join(dir, 'FFFFFC19--998.xdr.zst'));
  await assert.rejects(collect(openDatastoreSource(dir).ledgers(998, { signal: never() })), /FFFFFC19--998\.xdr\.zst holds ledgers 999-999, expected ledgers within 998-998/);
});

test('writer to reader: galexie layout, byte-exact ledgers, atomic files, and a reader following the tip', async (t) => {
  const dir = tempDir(t);
  const writer = new DatastoreWriter(dir, { networkPassphrase: TESTNET });
  assert.deepEqual(JSON.parse(readFileSync(join(dir, '.config.json'), 'utf8')), JSON.parse(manifest(TESTNET)));
  const written = [2, 3, 4, 5, 6].map(ledgerNumbered);
  for (const l of written) writer.write(l);
  assert.deepEqual(readdirSync(join(dir, 'FFFFFFFF--0-63999')).sort(), ['FFFFFFF9--6.xdr.zst', 'FFFFFFFA--5.xdr.zst', 'FFFFFFFB--4.xdr.zst', 'FFFFFFFC--3.xdr.zst', 'FFFFFFFD--2.xdr.zst']);
  assert.deepEqual(readdirSync(dir).sort(), ['.config.json', 'FFFFFFFF--0-63999'], 'no temp files left behind');
  writer.write(ledgerNumbered(64000));
  assert.ok(statSync(join(dir, 'FFFF05FF--64000-127999/FFFF05FF--64000.xdr.zst')).isFile());

  const source = openDatastoreSource(dir, { networkPassphrase: TESTNET, pollIntervalMs: 10 });
  assert.deepEqual(await collect(source.ledgers(2, { signal: never(), to: 6 })), written);
  assert.equal(await source.earliest(), 2);
  assert.equal(await source.latest(), 64000);

  // Reopening keeps the manifest; another network is refused.
  assert.equal(new DatastoreWriter(dir, { networkPassphrase: TESTNET }).config.networkPassphrase, TESTNET);
  assert.throws(() => new DatastoreWriter(dir, { networkPassphrase: PUBNET }), /the datastore is for network "Test SDF/);

  // Following: the reader waits at 7 until the writer writes it.
  const abort = new AbortController();
  const got: number[] = [];
  const reading = (async () => { for await (const l of source.ledgers(5, { signal: abort.signal })) got.push(l.sequence); })();
  await waitFor(() => got.length === 2);
  assert.deepEqual(got, [5, 6]);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(got, [5, 6], 'nothing past the tip');
  writer.write(ledgerNumbered(7));
  await waitFor(() => got.length === 3);
  writer.write(ledgerNumbered(8));
  await waitFor(() => got.length === 4);
  abort.abort();
  await reading; // ends quietly
  assert.deepEqual(got, [5, 6, 7, 8]);
});

test('prefetching fetches several files at once and still hands them out in order', async (t) => {
  const dir = tempDir(t);
  const writer = new DatastoreWriter(dir, { networkPassphrase: TESTNET });
  for (let s = 10; s < 40; s++) writer.write(ledgerNumbered(s));
  let inFlight = 0;
  let maxInFlight = 0;
  const folder = new FolderObjectStore(dir);
  const slow: ObjectStore = {
    description: 'slow',
    async get(key) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // later files answer sooner, to shuffle completion order
      await new Promise((r) => setTimeout(r, Math.max(1, 40 - (Number(/--(\d+)\./.exec(key)?.[1] ?? 0) % 8) * 5)));
      inFlight--;
      return folder.get(key);
    },
  };
  const ledgers = await collect(new DatastoreSource(slow, { prefetch: 4 }).ledgers(10, { signal: never(), to: 39 }));
  assert.deepEqual(ledgers.map((l) => l.sequence), Array.from({ length: 30 }, (_, i) => 10 + i));
  assert.ok(maxInFlight > 1 && maxInFlight <= 4, `at most 4 files in flight, more than 1 (was ${maxInFlight})`);
});

test('over HTTP: the p20 fixtures, probing latest/earliest, 404 at the tip', async (t) => {
  const server = await serveFolder(P20);
  t.after(() => server.close());
  const store = openObjectStore(server.url, { retries: 0 });
  // No ledger 2 and no listing: nothing to probe from.
  assert.equal(await new DatastoreSource(store).latest(), undefined);
  const hinted = new DatastoreSource(store, { knownLedger: 998, networkPassphrase: TESTNET });
  assert.equal(await hinted.latest(), 999);
  assert.equal(await hinted.earliest(), 997);

  const source = new DatastoreSource(store, { pollIntervalMs: 20 });
  const ledgers = await collect(source.ledgers(997, { signal: never(), to: 999 }));
  assert.deepEqual(ledgers, [997, 998, 999].map(p20Ledger));
  assert.equal(await source.latest(), 999, 'anchored on the last ledger handed out');

  // Waiting at the tip: 404s, then one request per poll (the naming is known by now, and the
  // prefetch window shrinks to one file).
  const abort = new AbortController();
  const waiting = collect(source.ledgers(1000, { signal: abort.signal }));
  await new Promise((r) => setTimeout(r, 60));
  const settled = server.requests.GET ?? 0;
  await new Promise((r) => setTimeout(r, 200));
  abort.abort();
  assert.deepEqual(await waiting, []);
  const polls = (server.requests.GET ?? 0) - settled;
  assert.ok(polls >= 4 && polls <= 12, `about one request per 20 ms poll (${polls} in 200 ms)`);
});

test('over HTTP: a partitioned datastore written by our writer, probed from ledger 2', async (t) => {
  const dir = tempDir(t);
  const writer = new DatastoreWriter(dir, { networkPassphrase: TESTNET });
  for (let s = 2; s <= 41; s++) writer.write(ledgerNumbered(s));
  const server = await serveFolder(dir);
  t.after(() => server.close());
  const source = openDatastoreSource(server.url, { networkPassphrase: TESTNET });
  assert.equal(await source.latest(), 41);
  assert.equal(await source.earliest(), 2);
  assert.ok((server.requests.HEAD ?? 0) > 0 && (server.requests.HEAD ?? 0) < 30, `probed with HEAD requests (${server.requests.HEAD})`);
  const ledgers = await collect(source.ledgers(39, { signal: never(), to: 41 }));
  assert.deepEqual(ledgers, [39, 40, 41].map(ledgerNumbered));
});

function copyTo(from: string, to: string): void {
  writeFileSync(to, readFileSync(from));
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
