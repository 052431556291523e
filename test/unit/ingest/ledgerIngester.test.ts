// The follower's ingester over a real datastore folder (testnet ledgers 997-999) and a real SQLite
// store: where it starts, which ledgers' entry changes it applies after a state checkpoint, and
// that it follows ledgers written after it started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdDecompressSync } from 'node:zlib';
import pino from 'pino';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { openDatastoreSource } from '../../../src/sources/datastore/datastoreSource.ts';
import { LedgerIngester } from '../../../src/ingest/ledgerIngester.ts';
import { LedgerWriter } from '../../../src/ingest/ledgerWriter.ts';
import { LedgerFeed } from '../../../src/ingest/ledgerFeed.ts';
import { fastLedgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { networkIdOf, toBase64 } from '../../../src/xdr/codec.ts';

const DATASTORE = new URL('../../../test/fixtures/testnet/datastore-p20/', import.meta.url).pathname;
const TESTNET = 'Test SDF Network ; September 2015';
const networkId = networkIdOf(TESTNET);
const logger = pino({ level: 'silent' });

const tmp = () => mkdtempSync(join(tmpdir(), 'lumen-ingester-'));
const metaOf = (seq: number) => zstdDecompressSync(readFileSync(join(DATASTORE, readdirSync(DATASTORE).find((f) => f.endsWith(`--${seq}.xdr.zst`))!))).subarray(12);

async function ingestUntil(ingester: LedgerIngester, store: SqliteStore, seq: number): Promise<void> {
  ingester.start();
  const deadline = Date.now() + 20_000;
  while ((store.latestLedger()?.sequence ?? 0) < seq) {
    if (ingester.failure) throw ingester.failure;
    if (Date.now() > deadline) throw new Error(`ledger ${seq} not reached`);
    await new Promise((r) => setTimeout(r, 10));
  }
  await ingester.stop();
}

test('after a checkpoint at 998, ledgers up to it are history only; 999\'s entry changes are applied', async () => {
  const store = new SqliteStore(join(tmp(), 'db.sqlite'));
  const ingester = new LedgerIngester({
    writer: new LedgerWriter(store, new LedgerFeed(), 100), logger, networkId, retentionWindow: 100,
    source: openDatastoreSource(DATASTORE, { networkPassphrase: TESTNET, pollIntervalMs: 20 }),
    bootstrapState: async () => {
      await store.replaceState(998, async () => {});
      return { sequence: 998, hash: fastLedgerToBatch(metaOf(998), networkId).ledger.hash };
    },
  });
  await ingestUntil(ingester, store, 999);
  assert.deepEqual(store.ledgers(0, 10).map((l) => l.sequence), [997, 998, 999]);
  const writes = (seq: number) => new Set(fastLedgerToBatch(metaOf(seq), networkId).entryWrites.filter((w) => w.entry).map((w) => toBase64(w.key)));
  const applied = writes(999);
  const historyOnly = [...writes(997), ...writes(998)].filter((k) => !applied.has(k));
  assert.ok(applied.size > 0 && historyOnly.length > 0, 'the fixture ledgers write entries');
  for (const k of applied) assert.ok(store.entry(Buffer.from(k, 'base64')), 'ledger 999 wrote it');
  for (const k of historyOnly) assert.equal(store.entry(Buffer.from(k, 'base64')), undefined, 'before the checkpoint: not applied');
  store.close();
});

test('an empty store starts at the retention window\'s first ledger, and follows files written later', async () => {
  const dir = tmp();
  cpSync(DATASTORE, dir, { recursive: true });
  const newest = readdirSync(dir).find((f) => f.endsWith('--999.xdr.zst'))!;
  const held = readFileSync(join(dir, newest));
  // the datastore's tip is 998 when the ingester starts
  rmSync(join(dir, newest));
  const store = new SqliteStore(join(tmp(), 'db.sqlite'));
  const ingester = new LedgerIngester({
    writer: new LedgerWriter(store, new LedgerFeed(), 1), logger, networkId, retentionWindow: 1,
    source: openDatastoreSource(dir, { networkPassphrase: TESTNET, pollIntervalMs: 20 }),
  });
  ingester.start();
  const deadline = Date.now() + 20_000;
  while (!store.latestLedger() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(store.latestLedger()?.sequence, 998, 'a window of one ledger: only the tip');
  writeFileSync(join(dir, newest), held);
  while ((store.latestLedger()?.sequence ?? 0) < 999 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await ingester.stop();
  assert.deepEqual(store.ledgers(0, 10).map((l) => l.sequence), [999], 'followed to 999; the window keeps one ledger');
  assert.equal(ingester.failure, undefined);
  store.close();
});

/** Ingests until the ingester gives up; returns why. */
async function failureOf(ingester: LedgerIngester): Promise<Error> {
  ingester.start();
  await ingester.finished();
  await ingester.stop();
  assert.ok(ingester.failure, 'ingestion failed');
  return ingester.failure;
}

test('the ledgers must chain through the bootstrap checkpoint\'s verified header: its own hash, or the next ledger\'s previous hash', async () => {
  const wrong = new Uint8Array(32).fill(0xab);
  // a window of 1: ingestion starts at 999, which must name the checkpoint 998 as its previous ledger
  const store = new SqliteStore(join(tmp(), 'db.sqlite'));
  const next = new LedgerIngester({
    writer: new LedgerWriter(store, new LedgerFeed(), 1), logger, networkId, retentionWindow: 1, attempts: 1,
    source: openDatastoreSource(DATASTORE, { networkPassphrase: TESTNET, pollIntervalMs: 20 }),
    bootstrapState: async () => { await store.replaceState(998, async () => {}); return { sequence: 998, hash: wrong }; },
  });
  assert.match((await failureOf(next)).message, new RegExp(`ledger 999: previous ledger hash [0-9a-f]{64} does not match the history archive's checkpoint 998 \\(${'ab'.repeat(32)}\\)`));
  assert.equal(store.latestLedger(), undefined, 'nothing stored');
  assert.equal(store.metadata('stateLedgerHash'), 'ab'.repeat(32), 'recorded for a restart');
  store.close();

  // a window of 100: ingestion starts at 997 and passes the checkpoint itself, which must have its hash
  const other = new SqliteStore(join(tmp(), 'db.sqlite'));
  const through = new LedgerIngester({
    writer: new LedgerWriter(other, new LedgerFeed(), 100), logger, networkId, retentionWindow: 100, attempts: 1,
    source: openDatastoreSource(DATASTORE, { networkPassphrase: TESTNET, pollIntervalMs: 20 }),
    stateCheckpoint: { sequence: 998, hash: wrong },
  });
  await other.replaceState(998, async () => {});
  assert.match((await failureOf(through)).message, new RegExp(`ledger 998: hashes to [0-9a-f]{64}, but the history archive's checkpoint header for it hashes to ${'ab'.repeat(32)}`));
  assert.equal(other.latestLedger()?.sequence, 997, 'the ledgers before it are stored');
  other.close();
});
