// Verifying a history-archive checkpoint before its state is used (src/archive/checkpointVerification.ts,
// through bootstrapState, the path a follower and an archive fork take): core's bucket-list hash
// rules against real pubnet headers and against the rules written out here, and every way an
// archive can fail them, each on real files, each stopping the bootstrap with one line and leaving
// the store's previous state.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { xdr } from '@stellar/stellar-sdk';
import { ArchiveVerificationError, HistoryArchive } from '../../../src/archive/historyArchive.ts';
import { verifyCheckpoint } from '../../../src/archive/checkpointVerification.ts';
import { stateHashes } from '../../../src/archive/bucketListHash.ts';
import { bootstrapState } from '../../../src/archive/stateBootstrap.ts';
import { bucketPath, checkpointFilePath, parseHistoryArchiveState, serializeHistoryArchiveState, type BucketLevel } from '../../../src/archive/historyArchiveState.ts';
import { frameRecord, splitRecords } from '../../../src/io/recordMarked.ts';
import { sha256, toHex } from '../../../src/xdr/codec.ts';
import type { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import {
  FIXTURE_ARCHIVE, FIXTURE_BUCKET, account, archived, contractData, fixtureCopy, hotMeta, live, liveMeta, tmpDir, tmpStore, writeBucket, writeHas, writeState,
} from './helpers.ts';

const TESTNET = 'Test SDF Network ; September 2015';

/** Core's rules written out: level = sha256(curr || snap), list = sha256(level 0 .. level 10). */
function listHash(levels: BucketLevel[]): Buffer {
  const h = createHash('sha256');
  for (const l of levels) h.update(createHash('sha256').update(Buffer.from(l.curr, 'hex')).update(Buffer.from(l.snap, 'hex')).digest());
  return h.digest();
}

const snapshot = (store: SqliteStore) => [...store.allEntries()].map((e) => `${toHex(e.key)}=${toHex(e.entry)}`);

/** A store holding the fixture's checkpoint 63, which a failed bootstrap must leave as it is. */
async function storeWithState(): Promise<{ store: SqliteStore; before: string[] }> {
  const store = tmpStore();
  await bootstrapState(store, HistoryArchive.open(FIXTURE_ARCHIVE), 63);
  return { store, before: snapshot(store) };
}

async function refused(dir: string, checkpoint: number | undefined, message: RegExp): Promise<void> {
  const { store, before } = await storeWithState();
  await assert.rejects(bootstrapState(store, HistoryArchive.open(dir), checkpoint), (e: Error) => {
    assert.ok(e instanceof ArchiveVerificationError, `${e.name}: ${e.message}`);
    assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  });
  assert.deepEqual(snapshot(store), before, 'the previous state is kept');
  assert.equal(store.metadata('stateLedger'), '63');
  store.close();
}

/** Rewrites a checkpoint's flat ledger file of the fixture copy `dir`, header entry by header entry. */
function rewriteLedgerFile(dir: string, checkpoint: number, edit: (entries: xdr.LedgerHeaderHistoryEntryWire[]) => void): void {
  const file = join(dir, `ledger-${checkpoint.toString(16).padStart(8, '0')}.xdr.gz`);
  const entries = splitRecords(gunzipSync(readFileSync(file))).map((r) => xdr.LedgerHeaderHistoryEntry.schema.decode(r));
  edit(entries);
  writeFileSync(file, gzipSync(Buffer.concat(entries.map((e) => frameRecord(xdr.LedgerHeaderHistoryEntry.schema.encode(e))))));
}

const headerHashOf = (e: xdr.LedgerHeaderHistoryEntryWire) => sha256(xdr.LedgerHeader.schema.encode(e.header));

describe('checkpoint verification: the hash rules', () => {
  it('the pubnet fixture\'s bucket lists hash to its checkpoint headers (before protocol 23: the live list alone)', async () => {
    const archive = HistoryArchive.open(FIXTURE_ARCHIVE);
    for (const checkpoint of [63, 127]) {
      const has = await archive.checkpointState(checkpoint);
      const { header } = await verifyCheckpoint(archive, has);
      assert.equal(header.header.ledgerSeq, checkpoint);
      assert.equal(stateHashes(has).bucketListHash, toHex(header.header.bucketListHash));
      assert.equal(toHex(listHash(has.currentBuckets)), toHex(header.header.bucketListHash));
    }
  });

  it('from protocol 23 (HAS version 2) a header commits to sha256(live list hash || hot-archive list hash)', () => {
    const dir = tmpDir();
    const liveBucket = writeBucket(dir, [liveMeta(23), live(account(1, 10n))]);
    const hotBucket = writeBucket(dir, [hotMeta(23), archived(contractData(1, 1))]);
    const has = writeState(dir, 127, [[undefined, liveBucket]], [[undefined, undefined], [hotBucket, undefined]]);
    const expected = createHash('sha256').update(listHash(has.currentBuckets)).update(listHash(has.hotArchiveBuckets!)).digest('hex');
    assert.deepEqual(stateHashes(has), { live: toHex(listHash(has.currentBuckets)), hotArchive: toHex(listHash(has.hotArchiveBuckets!)), bucketListHash: expected });
  });
});

describe('checkpoint verification stops the bootstrap, keeping the previous state', () => {
  it('a live bucket list that does not hash to the header (a bucket moved from curr to snap; every bucket intact)', async () => {
    const dir = fixtureCopy();
    const has = parseHistoryArchiveState(readFileSync(join(dir, 'history-0000007f.json')));
    assert.equal(has.currentBuckets[3].curr, FIXTURE_BUCKET);
    has.currentBuckets[3] = { ...has.currentBuckets[3], curr: has.currentBuckets[3].snap, snap: FIXTURE_BUCKET };
    writeFileSync(join(dir, 'history-0000007f.json'), serializeHistoryArchiveState(has));
    await refused(dir, 127, new RegExp(`: checkpoint 127: the live bucket list hashes to ${toHex(listHash(has.currentBuckets))}, `
      + 'but ledger 127\'s header has bucketListHash eb9e8afd41b40df1683bdb8a892a7a949bd08f818192653859c477d057a74b82$'));
  });

  it('a hot-archive bucket list that does not hash to the header (the live list intact)', async () => {
    const dir = tmpDir();
    const liveBucket = writeBucket(dir, [liveMeta(23), live(account(1, 10n))]);
    const hotBucket = writeBucket(dir, [hotMeta(23), archived(contractData(1, 1))]);
    const has = writeState(dir, 127, [[undefined, liveBucket]], [[undefined, hotBucket]], TESTNET);
    const committed = stateHashes(has).bucketListHash;
    has.hotArchiveBuckets![1] = { ...has.hotArchiveBuckets![1], curr: hotBucket };  // one more copy of it, at level 1
    writeHas(dir, has);
    const hashes = stateHashes(has);
    await refused(dir, undefined, new RegExp(`: checkpoint 127: the live and hot-archive bucket lists hash to ${hashes.bucketListHash} `
      + `\\(live ${hashes.live}, hot archive ${hashes.hotArchive}\\), but ledger 127's header has bucketListHash ${committed}$`));
  });

  it('a hot-archive bucket whose content does not match its name', async () => {
    const dir = tmpDir();
    const liveBucket = writeBucket(dir, [liveMeta(23), live(account(1, 10n))]);
    const hotBucket = writeBucket(dir, [hotMeta(23), archived(contractData(1, 1))]);
    writeState(dir, 127, [[undefined, liveBucket]], [[undefined, undefined], [hotBucket, undefined]], TESTNET);
    // the same name, another archived value
    const otherDir = tmpDir();
    const other = writeBucket(otherDir, [hotMeta(23), archived(contractData(1, 2))]);
    writeFileSync(join(dir, bucketPath(hotBucket)), readFileSync(join(otherDir, bucketPath(other))));
    await refused(dir, undefined, new RegExp(`: the hot-archive bucket list's level 1 snap, bucket ${hotBucket}, is corrupt: its content hashes to ${other}, not to its name$`));
  });

  it('a header that does not hash to the hash its entry claims', async () => {
    const dir = fixtureCopy();
    rewriteLedgerFile(dir, 127, (entries) => { entries[36].header.scpValue.closeTime += 1n; });
    await refused(dir, 127, /: checkpoint 127: ledger 100's header hashes to [0-9a-f]{64}, its entry in ledger\/00\/00\/00\/ledger-0000007f\.xdr\.gz says [0-9a-f]{64}$/);
  });

  it('headers that do not chain', async () => {
    const dir = fixtureCopy();
    rewriteLedgerFile(dir, 127, (entries) => {
      entries[36].header.previousLedgerHash = new Uint8Array(32).fill(1);
      entries[36].hash = headerHashOf(entries[36]);
    });
    await refused(dir, 127, new RegExp(`: checkpoint 127: ledger 100's header names ${'01'.repeat(32)} as its previous ledger, but ledger 99 hashes to [0-9a-f]{64}$`));
  });

  it('a state whose version does not match the header\'s protocol', async () => {
    const dir = tmpDir();
    const liveBucket = writeBucket(dir, [liveMeta(23), live(account(1, 10n))]);
    const has = writeState(dir, 127, [[undefined, liveBucket]], [], TESTNET);
    writeHas(dir, { ...has, version: 1, hotArchiveBuckets: undefined });
    await refused(dir, undefined, /: checkpoint 127: ledger 127 is protocol 23, whose header commits to a live and a hot-archive bucket list, but the state \(version 1\) names only a live one$/);
  });

  it('a checkpoint without its ledger file', async () => {
    const dir = tmpDir();
    const liveBucket = writeBucket(dir, [liveMeta(23), live(account(1, 10n))]);
    writeState(dir, 127, [[undefined, liveBucket]], [], TESTNET);
    rmSync(join(dir, checkpointFilePath('ledger', 127)));
    await refused(dir, undefined, /: checkpoint 127 cannot be verified: .*ledger-0000007f\.xdr\.gz not found$/);
  });
});
