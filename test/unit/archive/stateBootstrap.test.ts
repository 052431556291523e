// Bootstrapping a real SqliteStore from history archives: the pubnet fixture at both checkpoints,
// the apply order and deletions of the live bucket list, the hot-archive rules, and failures that
// must leave the previous state in place.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { xdr } from '../../../src/xdr/xdr.ts';
import { HistoryArchive } from '../../../src/archive/historyArchive.ts';
import { bootstrapState, type BootstrapProgress } from '../../../src/archive/stateBootstrap.ts';
import { accountKey, decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, sha256, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import type { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import {
  FIXTURE_ARCHIVE, FIXTURE_BUCKET, PUBNET_ROOT, account, archived, contractCode, contractData, dead, fixtureCopy, hotMeta, init, live,
  liveMeta, readFixture, restored, tmpDir, tmpStore, ttl, writeBucket, writeState,
} from './helpers.ts';

const rootKey = encodeLedgerKey(accountKey({ type: 0, ed25519: PUBNET_ROOT.rawPublicKey() }));
const keyOf = (e: LedgerEntry) => encodeLedgerKey(ledgerKeyOf(e.data));
const ttlKeyOf = (e: LedgerEntry) => encodeLedgerKey(ttlKeyFor(ledgerKeyOf(e.data)));
const ttlFor = (e: LedgerEntry, liveUntil: number) => ttl(sha256(keyOf(e)), liveUntil);

function snapshot(store: SqliteStore): string[] {
  return [...store.allEntries()].map((e) => `${Buffer.from(e.key).toString('hex')}=${Buffer.from(e.entry).toString('hex')}@${e.lastModified}`);
}

describe('bootstrapState from the pubnet fixture', () => {
  for (const checkpoint of [0x3f, 0x7f]) {
    it(`fills the store at checkpoint ${checkpoint}`, async () => {
      const store = tmpStore();
      const progress: BootstrapProgress[] = [];
      const result = await bootstrapState(store, HistoryArchive.open(FIXTURE_ARCHIVE), checkpoint, (p) => progress.push(p));
      assert.equal(result.checkpoint, checkpoint);
      assert.equal(result.entries, 2);
      assert.equal(result.bytes, 200);
      assert.equal(store.metadata('stateLedger'), String(checkpoint));
      const root = store.entry(rootKey);
      assert.ok(root);
      assert.equal(root.lastModified, 3);
      const entry = decodeLedgerEntry(root.entry);
      assert.ok(entry.data.type === 0);
      assert.equal(entry.data.account.balance, 200_000_000n);
      assert.equal([...store.allEntries()].length, 2);
      assert.deepEqual(progress.map((p) => [p.list, p.bucket, p.index, p.buckets, p.entries, p.bytes, p.done]), [
        ['live', FIXTURE_BUCKET, 0, 1, 0, 0, false],
        ['live', FIXTURE_BUCKET, 0, 1, 2, 200, true],
      ]);
      store.close();
    });
  }

  it('defaults to the root state\'s checkpoint and refuses a non-checkpoint ledger', async () => {
    const store = tmpStore();
    const result = await bootstrapState(store, HistoryArchive.open(FIXTURE_ARCHIVE));
    assert.equal(result.checkpoint, 127);
    assert.equal(store.metadata('stateLedger'), '127');
    await assert.rejects(bootstrapState(store, HistoryArchive.open(FIXTURE_ARCHIVE), 100), /100 is not a checkpoint ledger/);
    store.close();
  });

  it('stores entries byte for byte as the bucket holds them', async () => {
    const store = tmpStore();
    await bootstrapState(store, HistoryArchive.open(FIXTURE_ARCHIVE), 63);
    const content = gunzipSync(readFixture(`bucket-${FIXTURE_BUCKET}.xdr.gz`));
    // two records of 4-byte mark + 96 bytes: a 4-byte LIVEENTRY discriminant and 92 bytes of LedgerEntry
    const fromBucket = [content.subarray(8, 100), content.subarray(108, 200)].map((b) => Buffer.from(b).toString('hex')).sort();
    const stored = [...store.allEntries()].map((e) => Buffer.from(e.entry).toString('hex')).sort();
    assert.deepEqual(stored, fromBucket);
    store.close();
  });
});

describe('bootstrapState failures leave the previous state', () => {
  async function withPreviousState(): Promise<{ store: SqliteStore; before: string[] }> {
    const store = tmpStore();
    await bootstrapState(store, HistoryArchive.open(FIXTURE_ARCHIVE), 63);
    store.setMetadata('marker', 'kept');
    return { store, before: snapshot(store) };
  }
  async function assertUntouched(store: SqliteStore, before: string[]) {
    assert.deepEqual(snapshot(store), before);
    assert.equal(store.metadata('stateLedger'), '63');
    store.close();
  }

  it('a bucket whose content does not match its hash (caught after its entries were applied)', async () => {
    const { store, before } = await withPreviousState();
    const dir = fixtureCopy();
    // valid records, other content: the root account with one more stroop
    const content = Buffer.from(gunzipSync(readFixture(`bucket-${FIXTURE_BUCKET}.xdr.gz`)));
    const rec = xdr.BucketEntry.schema.decode(content.subarray(4, 100));
    assert.ok(rec.type === 0 && rec.liveEntry.data.type === 0);
    rec.liveEntry.data.account.balance += 1n;
    Buffer.from(xdr.BucketEntry.schema.encode(rec)).copy(content, 4);
    writeFileSync(join(dir, `bucket-${FIXTURE_BUCKET}.xdr.gz`), gzipSync(content));
    await assert.rejects(bootstrapState(store, HistoryArchive.open(dir), 127), new RegExp(`: the live bucket list's level 3 curr, bucket ${FIXTURE_BUCKET}, is corrupt: its content hashes to [0-9a-f]{64}, not to its name$`));
    await assertUntouched(store, before);
  });

  it('a truncated gzip bucket', async () => {
    const { store, before } = await withPreviousState();
    const dir = fixtureCopy();
    const gz = readFixture(`bucket-${FIXTURE_BUCKET}.xdr.gz`);
    writeFileSync(join(dir, `bucket-${FIXTURE_BUCKET}.xdr.gz`), gz.subarray(0, 120));
    await assert.rejects(bootstrapState(store, HistoryArchive.open(dir), 127), /cannot read: unexpected end of file/);
    await assertUntouched(store, before);
  });

  it('a missing bucket', async () => {
    const { store, before } = await withPreviousState();
    const dir = tmpDir();
    writeState(dir, 127, [[undefined, 'ef'.repeat(32)]]);
    await assert.rejects(bootstrapState(store, HistoryArchive.open(dir)), /the live bucket list's level 0 curr, bucket efef\w+, is missing/);
    await assertUntouched(store, before);
  });

  it('a bad HAS JSON', async () => {
    const { store, before } = await withPreviousState();
    const dir = fixtureCopy();
    writeFileSync(join(dir, 'history-0000007f.json'), '{"version": 1, "server": "x", "currentLedger": 127, "currentBuckets": [');
    await assert.rejects(bootstrapState(store, HistoryArchive.open(dir), 127), /history-0000007f\.json: not valid JSON/);
    writeFileSync(join(dir, 'history-0000007f.json'), JSON.stringify({ version: 1, server: 'x', currentLedger: 127, currentBuckets: [] }));
    await assert.rejects(bootstrapState(store, HistoryArchive.open(dir), 127), /"currentBuckets" has 0 levels, expected 11/);
    await assertUntouched(store, before);
  });

  it('an archive of another network', async () => {
    const { store, before } = await withPreviousState();
    const dir = tmpDir();
    writeState(dir, 127, [], [], 'Some Other Network');
    await assert.rejects(bootstrapState(store, HistoryArchive.open(dir), undefined, undefined, { networkPassphrase: 'Test SDF Network ; September 2015' }),
      /is an archive of "Some Other Network", not of "Test SDF Network ; September 2015"/);
    await assertUntouched(store, before);
  });
});

describe('bootstrapState bucket-list semantics', () => {
  it('applies the live buckets oldest first: overwrites, INITENTRY and DEADENTRY', async () => {
    const dir = tmpDir();
    const a1 = account(1, 10n, 2), a2 = account(1, 20n, 9), a3 = account(1, 30n, 60);
    const b = account(2, 5n, 2), c = account(3, 7n, 2), d = account(4, 1n, 50);
    const oldest = writeBucket(dir, [liveMeta(23), live(a1), live(b), live(c)]);   // level 1 snap
    const older = writeBucket(dir, [liveMeta(23), init(a2), dead(ledgerKeyOf(b.data))]); // level 1 curr
    const newer = writeBucket(dir, [liveMeta(23), live(d), dead(ledgerKeyOf(c.data))]); // level 0 snap
    const newest = writeBucket(dir, [liveMeta(23), live(a3), dead(ledgerKeyOf(d.data))]); // level 0 curr
    writeState(dir, 127, [[newer, newest], [oldest, older]]);
    const store = tmpStore();
    const result = await bootstrapState(store, HistoryArchive.open(dir));
    assert.equal(result.entries, 9);
    const got = new Map([...store.allEntries()].map((e) => [Buffer.from(e.key).toString('hex'), e]));
    assert.equal(got.size, 1);
    const a = store.entry(keyOf(a3));
    assert.ok(a);
    assert.deepEqual(a.entry, encodeLedgerEntry(a3));
    assert.equal(a.lastModified, 60);
    store.close();
  });

  it('adds archived entries only where the live state has no TTL, and lets restore markers drop stale copies', async () => {
    const dir = tmpDir();
    const liveX = contractData(1, 100, 80);            // live, with a TTL
    const archivedXOld = contractData(1, 1, 20);       // an older archived copy: must not replace the live one
    const yOld = contractData(2, 1, 20), yNew = contractData(2, 2, 40);  // archived twice: the newer wins
    const zOld = contractData(3, 1, 20);               // archived, then restored (LIVE marker), then deleted from live
    const code = contractCode(9, new Uint8Array([0, 0x61, 0x73, 0x6d]), 30);  // archived code
    const liveBucket = writeBucket(dir, [liveMeta(23), live(liveX), live(ttlFor(liveX, 1000)), live(account(1, 1n))]);
    const hotOld = writeBucket(dir, [hotMeta(23), archived(archivedXOld), archived(yOld), archived(zOld)]);       // level 1 curr
    const hotNew = writeBucket(dir, [hotMeta(23), archived(yNew), archived(code), restored(ledgerKeyOf(zOld.data)), restored(ledgerKeyOf(liveX.data))]); // level 0 curr
    writeState(dir, 191, [[undefined, liveBucket]], [[undefined, hotNew], [undefined, hotOld]]);
    const store = tmpStore();
    const progress: BootstrapProgress[] = [];
    await bootstrapState(store, HistoryArchive.open(dir), 191, (p) => progress.push(p));
    assert.deepEqual(store.entry(keyOf(liveX))?.entry, encodeLedgerEntry(liveX));      // live wins, LIVE marker removes nothing
    assert.ok(store.entry(ttlKeyOf(liveX)));
    assert.deepEqual(store.entry(keyOf(yNew))?.entry, encodeLedgerEntry(yNew));
    assert.equal(store.entry(keyOf(yNew))?.lastModified, 40);
    assert.equal(store.entry(ttlKeyOf(yNew)), undefined);                             // archived entries have no TTL
    assert.equal(store.entry(keyOf(zOld)), undefined);
    assert.deepEqual(store.entry(keyOf(code))?.entry, encodeLedgerEntry(code));
    assert.equal([...store.allEntries()].length, 5);                                  // x, ttl(x), account, y, code
    assert.deepEqual(progress.filter((p) => p.done).map((p) => [p.list, p.bucket]),
      [['live', liveBucket], ['hotArchive', hotOld], ['hotArchive', hotNew]]);
  });

  it('refuses an archived entry that cannot be archived', async () => {
    const dir = tmpDir();
    const hot = writeBucket(dir, [hotMeta(23), archived(account(1, 1n))]);
    writeState(dir, 63, [], [[undefined, hot]]);
    await assert.rejects(bootstrapState(tmpStore(), HistoryArchive.open(dir)), /archived entry of type 0; only persistent contract data and contract code/);
  });
});
