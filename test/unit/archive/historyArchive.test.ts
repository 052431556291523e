// Reading the pubnet fixture archive: state files, the genesis bucket (verified and decoded), ledger
// headers; and the failures a reader must catch: corrupt, truncated and missing buckets.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StrKey } from '@stellar/stellar-sdk';
import { HistoryArchive, HistoryArchiveError } from '../../../src/archive/historyArchive.ts';
import { readLiveBucket, readHotArchiveBucket, BucketFormatError, type LiveBucketRecord } from '../../../src/archive/bucketReader.ts';
import { ZERO_HASH, bucketPath } from '../../../src/archive/historyArchiveState.ts';
import { openObjectStore, type ObjectStore } from '../../../src/io/objectStore.ts';
import { frameRecord } from '../../../src/io/recordMarked.ts';
import {
  FIXTURE_ARCHIVE, FIXTURE_BUCKET, PUBNET_ROOT, account, archived, contractCode, fixtureCopy, hotMeta, live, liveMeta, readFixture, restored, tmpDir,
} from './helpers.ts';
import { encodeLedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const fixture = () => HistoryArchive.open(FIXTURE_ARCHIVE);

describe('HistoryArchive over the pubnet fixture', () => {
  it('reads the root state and each checkpoint state from the flat layout', async () => {
    const archive = fixture();
    assert.equal((await archive.rootState()).currentLedger, 127);
    assert.equal((await archive.checkpointState(63)).currentLedger, 63);
    assert.equal((await archive.checkpointState(127)).currentBuckets[3].curr, FIXTURE_BUCKET);
    await assert.rejects(archive.checkpointState(191), /no state for checkpoint 191 \(history\/00\/00\/00\/history-000000bf\.json not found\)/);
    await assert.rejects(archive.checkpointState(100), /100 is not a checkpoint ledger/);
  });

  it('streams the genesis bucket, verified, and decodes its two accounts', async () => {
    const chunks = await collect(fixture().bucket(FIXTURE_BUCKET));
    assert.equal(chunks.reduce((n, c) => n + c.length, 0), 200);
    const records = await collect(readLiveBucket((async function* () { yield* chunks; })()));
    // protocol 1 buckets carry no METAENTRY and only LIVEENTRY/DEADENTRY
    assert.deepEqual(records.map((r) => r.kind), ['live', 'live']);
    const accounts = records.map((r) => {
      assert.ok(r.kind === 'live' && r.entry.data.type === 0);
      return { id: StrKey.encodeEd25519PublicKey(Buffer.from(r.entry.data.account.accountId.ed25519)), a: r.entry.data.account, at: r.entry.lastModifiedLedgerSeq };
    });
    const root = accounts.find((x) => x.id === PUBNET_ROOT.publicKey());
    assert.ok(root, 'the root account (key derived from the pubnet passphrase) is in the bucket');
    assert.equal(root.id, 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7');
    // By ledger 3 the root had passed its 100 billion XLM on to SDF's account, keeping 20 XLM; the
    // 300 stroops missing from the total were the fees.
    assert.equal(root.a.balance, 200_000_000n);
    assert.equal(root.a.seqNum, 1n);
    assert.equal(root.at, 3);
    const sdf = accounts.find((x) => x !== root)!;
    assert.equal(sdf.id, 'GALPCCZN4YXA3YMJHKL6CVIECKPLJJCTVMSNYWBTKJW4K5HQLYLDMZTB');
    assert.equal(sdf.a.balance, 1_000_000_000_000_000_000n - 200_000_000n - 300n);
    assert.equal(sdf.a.seqNum, 3n << 32n);   // created in ledger 3
    // the LedgerEntry bytes handed out are exactly the record's payload
    const r0 = records[0];
    assert.ok(r0.kind === 'live');
    assert.equal(r0.entryXdr.length, 96 - 4);
  });

  it('yields nothing for the zero hash without touching the store', async () => {
    const archive = new HistoryArchive({ description: 'none', get: async () => { throw new Error('must not be read'); } });
    assert.deepEqual(await collect(archive.bucket(ZERO_HASH)), []);
  });

  it('reads the checkpoint ledger headers, chained from ledger 1', async () => {
    const h63 = await fixture().ledgerHeaders(63);
    assert.equal(h63.length, 63);
    assert.equal(h63[0].header.ledgerSeq, 1);
    assert.equal(h63[0].header.ledgerVersion, 0);
    assert.equal(h63[62].header.ledgerSeq, 63);
    const h127 = await fixture().ledgerHeaders(127);
    assert.equal(h127.length, 64);
    assert.equal(h127[0].header.ledgerSeq, 64);
    assert.deepEqual(h127[0].header.previousLedgerHash, h63[62].hash);
  });

  it('prefers the stellar-core layout and falls back to flat names', async () => {
    const dir = fixtureCopy();
    mkdirSync(join(dir, 'bucket/bf/f0/72'), { recursive: true });
    renameSync(join(dir, `bucket-${FIXTURE_BUCKET}.xdr.gz`), join(dir, bucketPath(FIXTURE_BUCKET)));
    const keys: string[] = [];
    const folder = openObjectStore(dir);
    const spy: ObjectStore = { description: dir, get: (k) => { keys.push(k); return folder.get(k); } };
    const archive = new HistoryArchive(spy);
    assert.equal((await collect(archive.bucket(FIXTURE_BUCKET))).length > 0, true);
    assert.deepEqual(keys, [bucketPath(FIXTURE_BUCKET)]);
    keys.length = 0;
    await archive.checkpointState(63);
    assert.deepEqual(keys, ['history/00/00/00/history-0000003f.json', 'history-0000003f.json']);
  });
});

describe('HistoryArchive failures', () => {
  it('refuses a bucket whose content does not match its name, after streaming it', async () => {
    const dir = fixtureCopy();
    const other = 'ab'.repeat(32);
    writeFileSync(join(dir, `bucket-${other}.xdr.gz`), readFixture(`bucket-${FIXTURE_BUCKET}.xdr.gz`));
    await assert.rejects(collect(HistoryArchive.open(dir).bucket(other)), (e: Error) => {
      assert.ok(e instanceof HistoryArchiveError);
      assert.match(e.message, new RegExp(`bucket ${other} is corrupt: its content hashes to ${FIXTURE_BUCKET}`));
      return true;
    });
  });

  it('refuses a truncated gzip bucket and one that is not gzip at all', async () => {
    const dir = fixtureCopy();
    const gz = readFixture(`bucket-${FIXTURE_BUCKET}.xdr.gz`);
    writeFileSync(join(dir, `bucket-${FIXTURE_BUCKET}.xdr.gz`), gz.subarray(0, gz.length - 30));
    await assert.rejects(collect(HistoryArchive.open(dir).bucket(FIXTURE_BUCKET)), /bucket bff0722c\w+: cannot read: unexpected end of file/);
    writeFileSync(join(dir, `bucket-${FIXTURE_BUCKET}.xdr.gz`), 'not gzip');
    await assert.rejects(collect(HistoryArchive.open(dir).bucket(FIXTURE_BUCKET)), /cannot read: incorrect header check/);
  });

  it('names a missing bucket and a missing archive', async () => {
    const other = 'cd'.repeat(32);
    await assert.rejects(collect(fixture().bucket(other)), new RegExp(`bucket ${other} is missing \\(bucket/cd/cd/cd/bucket-${other}\\.xdr\\.gz not found\\)`));
    await assert.rejects(HistoryArchive.open(tmpDir()).rootState(), /no history archive at .*: \.well-known\/stellar-history\.json not found/);
  });
});

describe('bucket reader', () => {
  const stream = (records: Uint8Array[]) => (async function* () { yield Buffer.concat(records.map(frameRecord)); })();

  it('reads a METAENTRY first and refuses one later', async () => {
    const ok = await collect(readLiveBucket(stream([liveMeta(23), live(account(1, 5n))])));
    assert.deepEqual(ok.map((r) => r.kind), ['meta', 'live']);
    assert.equal((ok[0] as Extract<LiveBucketRecord, { kind: 'meta' }>).meta.ledgerVersion, 23);
    await assert.rejects(collect(readLiveBucket(stream([live(account(1, 5n)), liveMeta(23)]), 'b')), /b: METAENTRY at record 1/);
  });

  it('refuses a hot-archive bucket read as live and the reverse', async () => {
    await assert.rejects(collect(readLiveBucket(stream([hotMeta(23)]))), /is a hot-archive bucket, read as a live bucket/);
    await assert.rejects(collect(readHotArchiveBucket(stream([liveMeta(23)]))), /is a live bucket, read as a hot-archive bucket/);
  });

  it('refuses undecodable records and a stream cut inside a record', async () => {
    const bad = live(account(1, 5n));
    bad[3] = 9; // no such BucketEntryType
    await assert.rejects(collect(readLiveBucket(stream([bad]), 'b')), (e: Error) => e instanceof BucketFormatError && /b: record 0 is not a valid entry/.test(e.message));
    const whole = Buffer.concat([frameRecord(live(account(1, 5n)))]);
    await assert.rejects(collect(readLiveBucket((async function* () { yield whole.subarray(0, 50); })(), 'b')), /b: truncated after 0 complete records/);
  });

  it('reads hot-archive records', async () => {
    const e = contractCode(2, new Uint8Array([1, 2, 3]));
    const recs = await collect(readHotArchiveBucket(stream([hotMeta(23), archived(e), restored(ledgerKeyOf(e.data))])));
    assert.deepEqual(recs.map((r) => r.kind), ['meta', 'archived', 'live']);
    assert.ok(recs[1].kind === 'archived');
    assert.deepEqual(new Uint8Array(recs[1].entryXdr), encodeLedgerEntry(e));
  });

  it('decodes a bucket split into arbitrary chunks', async () => {
    const records = [liveMeta(23), ...Array.from({ length: 50 }, (_, i) => live(account(i + 1, BigInt(i))))];
    const all = Buffer.concat(records.map(frameRecord));
    const chunked = (async function* () { for (let i = 0; i < all.length; i += 7) yield all.subarray(i, i + 7); })();
    const out = await collect(readLiveBucket(chunked));
    assert.equal(out.length, 51);
  });
});

describe('HistoryArchive input caps', () => {
  it('a bucket past --max-bucket-bytes, a checkpoint file or a bucket record past --max-input-bytes is refused, naming its flag', async () => {
    // the genesis bucket is 200 bytes uncompressed, two records of about 100
    const tight = HistoryArchive.open(FIXTURE_ARCHIVE, undefined, { bucket: { bytes: 150, flag: 'max-bucket-bytes' } });
    await assert.rejects(collect(tight.bucket(FIXTURE_BUCKET)), new RegExp(`bucket ${FIXTURE_BUCKET}: refused: (decompressed, )?it is larger than the 150 bytes input cap \\(--max-bucket-bytes raises it\\)`));
    const small = HistoryArchive.open(FIXTURE_ARCHIVE, undefined, { input: { bytes: 90, flag: 'max-input-bytes' } });
    await assert.rejects(collect(readLiveBucket(small.bucket(FIXTURE_BUCKET), 'genesis', small.recordCap)), /genesis: record 0 announces \d+ bytes .*larger than the 90 bytes input cap \(--max-input-bytes raises it\)/);
    // the ledger headers of checkpoint 63: 5.7 KB gzipped, about 63 × 300 bytes once gunzipped
    const headers = HistoryArchive.open(FIXTURE_ARCHIVE, undefined, { input: { bytes: 8192, flag: 'max-input-bytes' } });
    await assert.rejects(headers.ledgerHeaders(63), /ledger-0000003f\.xdr\.gz: refused: decompressed, it is larger than the 8 KiB input cap \(--max-input-bytes raises it\)/);
    const raw = HistoryArchive.open(FIXTURE_ARCHIVE, undefined, { input: { bytes: 4096, flag: 'max-input-bytes' } });
    await assert.rejects(raw.ledgerHeaders(63), /ledger-0000003f\.xdr\.gz: refused: it is larger than the 4 KiB input cap/);
    assert.equal((await fixture().ledgerHeaders(63)).length, 63);
  });
});
