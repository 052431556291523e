// Publishing our own history archive and bootstrapping a second store from it, from a folder and
// over HTTP, compared byte for byte.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { xdr } from '../../../src/xdr/xdr.ts';
import { HistoryArchivePublisher } from '../../../src/archive/archivePublisher.ts';
import { HistoryArchive } from '../../../src/archive/historyArchive.ts';
import { bootstrapState } from '../../../src/archive/stateBootstrap.ts';
import { ROOT_STATE_PATH, bucketPath, isCheckpointLedger, parseHistoryArchiveState, ZERO_HASH } from '../../../src/archive/historyArchiveState.ts';
import { publishedBucketListHash } from '../../../src/archive/publishedBuckets.ts';
import { stateWithWrites } from '../../../src/store/stateWithWrites.ts';
import { readHotArchiveBucket, readLiveBucket } from '../../../src/archive/bucketReader.ts';
import { encodeLedgerEntry, encodeLedgerKey, sha256, toHex, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import type { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { FIXTURE_ARCHIVE, PUBNET_ROOT, account, contractCode, contractData, plainHeader, serveFolder, tmpDir, tmpStore, ttl } from './helpers.ts';

const PASSPHRASE = 'Standalone Network ; February 2017';
const PROTOCOL = 23;

/**
 * Ledger `seq` as ingestion stores it, its header chained onto the stored ledger before it; a
 * checkpoint ledger's header commits to the state it leaves as the network publishes it, as the
 * standalone network's do (src/standalone/checkpointCommitment.ts).
 */
function batch(store: SqliteStore, seq: number, writes: Array<LedgerEntry | { deleted: LedgerEntry }>, protocol = PROTOCOL): IngestBatch {
  const entryWrites = writes.map((w) => 'deleted' in w
    ? { key: encodeLedgerKey(ledgerKeyOf(w.deleted.data)), entry: null, lastModified: seq }
    : { key: encodeLedgerKey(ledgerKeyOf(w.data)), entry: encodeLedgerEntry(w), lastModified: w.lastModifiedLedgerSeq });
  const zero = new Uint8Array(32);
  const bucketListHash = isCheckpointLedger(seq) ? publishedBucketListHash(stateWithWrites(store, entryWrites), protocol) : zero;
  const header = plainHeader(seq, store.ledger(seq - 1)?.hash ?? zero, bucketListHash, protocol);
  const hash = sha256(xdr.LedgerHeader.schema.encode(header));
  return {
    ledger: {
      sequence: seq, hash, closeTime: 1_700_000_000 + seq, protocolVersion: protocol,
      header: xdr.LedgerHeaderHistoryEntry.schema.encode({ hash, header, ext: { v: 0 } }), meta: new Uint8Array(),
    },
    transactions: [], entryWrites, feeSamples: [],
  };
}

const dump = (store: SqliteStore) => [...store.allEntries()].map((e) => ({
  key: Buffer.from(e.key).toString('hex'), entry: Buffer.from(e.entry).toString('hex'), lastModified: e.lastModified,
}));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name))).sort();
}

/** Ledgers 1..last with a varied state, publishing after each; returns the state at each checkpoint. */
function runNetwork(store: SqliteStore, publisher: HistoryArchivePublisher, last: number): Map<number, ReturnType<typeof dump>> {
  const states = new Map<number, ReturnType<typeof dump>>();
  const x = contractData(1, 1, 10);
  for (let seq = 1; seq <= last; seq++) {
    const writes: Array<LedgerEntry | { deleted: LedgerEntry }> = [];
    if (seq === 1) writes.push(account(1, 1_000_000_000n, 1), { ...account(0xff, 1n, 1) });
    if (seq % 10 === 0) writes.push(account(seq % 200, BigInt(seq) * 1000n, seq));
    if (seq === 10) writes.push(x, ttl(sha256(encodeLedgerKey(ledgerKeyOf(x.data))), 100_000, 10), contractData(2, 9, 10, 0));
    if (seq === 70) writes.push({ deleted: account(0xff, 1n, 1) }, contractData(1, 2, 70));
    if (seq === 100) writes.push(contractCode(7, new Uint8Array(3000).fill(7), 100));
    store.ingest(batch(store, seq, writes), 10_000);
    const published = publisher.afterLedger(store, seq);
    if ((seq + 1) % 64 === 0) {
      assert.ok(published, `checkpoint ${seq} published`);
      assert.equal(published.checkpoint, seq);
      states.set(seq, dump(store));
    } else {
      assert.equal(published, undefined);
    }
  }
  return states;
}

describe('HistoryArchivePublisher', () => {
  it('publishes checkpoints a second store bootstraps from, byte for byte', async () => {
    const folder = tmpDir();
    const a = tmpStore();
    const publisher = new HistoryArchivePublisher({ folder, networkPassphrase: PASSPHRASE });
    const states = runNetwork(a, publisher, 130);
    assert.deepEqual([...states.keys()], [63, 127]);
    assert.notDeepEqual(states.get(63), states.get(127));

    const archive = HistoryArchive.open(folder);
    const root = await archive.rootState();
    assert.equal(root.currentLedger, 127);
    assert.equal(root.version, 2);
    assert.equal(root.networkPassphrase, PASSPHRASE);
    assert.equal(root.hotArchiveBuckets?.length, 11);
    assert.ok(root.currentBuckets.slice(1).every((l) => l.curr === ZERO_HASH && l.snap === ZERO_HASH));
    assert.equal(root.currentBuckets[0].snap, ZERO_HASH);
    assert.deepEqual(root, await archive.checkpointState(127));

    // the bucket starts with a METAENTRY naming the protocol, then one LIVEENTRY per entry in key order,
    // except the contract code stored without a TTL (evicted): it is in the hot archive bucket
    const records = [];
    for await (const r of readLiveBucket(archive.bucket(root.currentBuckets[0].curr))) records.push(r);
    assert.equal(records[0].kind, 'meta');
    assert.ok(records[0].kind === 'meta' && records[0].meta.ledgerVersion === PROTOCOL && records[0].meta.ext.v === 1);
    assert.ok(records.slice(1).every((r) => r.kind === 'live'));
    assert.equal(records.length - 1, states.get(127)!.length - 1);
    const hot = [];
    for await (const r of readHotArchiveBucket(archive.bucket(root.hotArchiveBuckets![0].curr))) hot.push(r);
    assert.deepEqual(hot.map((r) => r.kind), ['meta', 'archived']);
    assert.ok(hot[0].kind === 'meta' && hot[0].meta.ext.v === 1 && hot[0].meta.ext.bucketListType === 1);
    assert.deepEqual(hot[1].kind === 'archived' && hot[1].entry, contractCode(7, new Uint8Array(3000).fill(7), 100));
    assert.equal((await archive.checkpointState(63)).hotArchiveBuckets![0].curr, ZERO_HASH, 'nothing evicted by ledger 63');

    const headers = await archive.ledgerHeaders(127);
    assert.equal(headers.length, 64);
    assert.deepEqual(xdr.LedgerHeaderHistoryEntry.schema.encode(headers[5]), a.ledger(64 + 5)!.header);

    for (const checkpoint of [63, 127]) {
      const b = tmpStore();
      const result = await bootstrapState(b, archive, checkpoint, undefined, { networkPassphrase: PASSPHRASE });
      assert.equal(result.checkpoint, checkpoint);
      assert.deepEqual(dump(b), states.get(checkpoint));
      b.close();
    }

    const files = filesUnder(folder);
    assert.ok(files.every((f) => !f.includes('.tmp')), `no temporary files left: ${files}`);
    assert.deepEqual(files.filter((f) => !f.startsWith('bucket/')), [
      ROOT_STATE_PATH, 'history/00/00/00/history-0000003f.json', 'history/00/00/00/history-0000007f.json',
      'ledger/00/00/00/ledger-0000003f.xdr.gz', 'ledger/00/00/00/ledger-0000007f.xdr.gz',
    ]);
    assert.equal(files.filter((f) => f.startsWith('bucket/')).length, 3, 'two live buckets and one hot archive bucket');
    a.close();
  });

  it('bootstraps over HTTP from a node:http static server', async () => {
    const folder = tmpDir();
    const a = tmpStore();
    const states = runNetwork(a, new HistoryArchivePublisher({ folder, networkPassphrase: PASSPHRASE }), 127);
    const server = await serveFolder(folder);
    try {
      const b = tmpStore();
      const result = await bootstrapState(b, HistoryArchive.open(server.url), undefined, undefined, { networkPassphrase: PASSPHRASE });
      assert.equal(result.checkpoint, 127);
      assert.deepEqual(dump(b), states.get(127));
      assert.deepEqual(server.requests, [`/${ROOT_STATE_PATH}`, '/ledger/00/00/00/ledger-0000007f.xdr.gz', ...[result.state.currentBuckets[0].curr, result.state.hotArchiveBuckets![0].curr].map((h) => `/${bucketPath(h)}`)]);
      b.close();
    } finally {
      await server.close();
    }
    a.close();
  });

  it('reads the flat pubnet fixture over HTTP, trying the core path first', async () => {
    const server = await serveFolder(FIXTURE_ARCHIVE);
    try {
      const b = tmpStore();
      await bootstrapState(b, HistoryArchive.open(server.url), 63);
      assert.equal(b.entries([encodeLedgerKey({ type: 0, account: { accountId: { type: 0, ed25519: PUBNET_ROOT.rawPublicKey() } } })]).size, 1);
      assert.deepEqual(server.requests.slice(0, 2), ['/history/00/00/00/history-0000003f.json', '/history-0000003f.json']);
      b.close();
    } finally {
      await server.close();
    }
  });

  it('writes large states as several gzip members that read back as one stream', async () => {
    const folder = tmpDir();
    const a = tmpStore();
    const big: LedgerEntry[] = Array.from({ length: 90 }, (_, i) => contractCode(i, new Uint8Array(64 * 1024).fill(i), 63))
      .flatMap((code) => [code, ttl(sha256(encodeLedgerKey(ledgerKeyOf(code.data))), 100_000, 63)]);
    for (let seq = 1; seq <= 63; seq++) a.ingest(batch(a, seq, seq === 63 ? big : []), 10_000);
    const published = new HistoryArchivePublisher({ folder, networkPassphrase: PASSPHRASE }).afterLedger(a, 63);
    assert.equal(published?.entries, 180);
    const gz = readFileSync(join(folder, bucketPath(published!.bucketHash)));
    let members = 0;
    for (let i = 0; i + 2 < gz.length; i++) if (gz[i] === 0x1f && gz[i + 1] === 0x8b && gz[i + 2] === 8) members++;
    assert.ok(members >= 2, `several gzip members (${members})`);
    const b = tmpStore();
    await bootstrapState(b, HistoryArchive.open(folder));
    assert.deepEqual(dump(b), dump(a));
    assert.ok(statSync(join(folder, ROOT_STATE_PATH)).size > 0);
    a.close();
    b.close();
  });

  it('writes a version 1 state and no METAENTRY for old protocols', async () => {
    const folder = tmpDir();
    const a = tmpStore();
    for (let seq = 1; seq <= 63; seq++) a.ingest(batch(a, seq, seq === 1 ? [account(1, 5n, 1)] : [], 10), 10_000);
    new HistoryArchivePublisher({ folder, networkPassphrase: PASSPHRASE }).publish(a, 63);
    const has = parseHistoryArchiveState(readFileSync(join(folder, ROOT_STATE_PATH)));
    assert.equal(has.version, 1);
    assert.equal(has.networkPassphrase, PASSPHRASE);
    assert.equal(has.hotArchiveBuckets, undefined);
    const records = [];
    for await (const r of readLiveBucket(HistoryArchive.open(folder).bucket(has.currentBuckets[0].curr))) records.push(r.kind);
    assert.deepEqual(records, ['live']);
    const b = tmpStore();
    await bootstrapState(b, HistoryArchive.open(folder), 63, undefined, { networkPassphrase: PASSPHRASE });
    assert.deepEqual(dump(b), dump(a));
    assert.throws(() => new HistoryArchivePublisher({ folder, networkPassphrase: PASSPHRASE }).publish(a, 64), /not a checkpoint/);
    a.close();
    b.close();
  });

  it('refuses, writing no state file, a checkpoint that would not verify: ledgers missing, or a header that does not commit to the state', () => {
    const folder = tmpDir();
    const publisher = new HistoryArchivePublisher({ folder, networkPassphrase: PASSPHRASE });
    const bootstrapped = tmpStore();
    bootstrapped.ingest(batch(bootstrapped, 63, [account(1, 5n, 63)]), 10_000);  // a store that starts at the checkpoint
    assert.throws(() => publisher.publish(bootstrapped, 63), /cannot publish checkpoint 63: ledger 1 is not stored, and the checkpoint's ledger file needs the headers of ledgers 1\.\.63/);
    assert.throws(() => publisher.publish(bootstrapped, 127), /ledger is not stored/);

    const a = tmpStore();
    for (let seq = 1; seq <= 62; seq++) a.ingest(batch(a, seq, seq === 1 ? [account(1, 5n, 1)] : []), 10_000);
    const honest = batch(a, 63, [account(2, 7n, 63)]);
    // the header commits to a state without the ledger's own write
    const other = batch(a, 63, []);
    a.ingest({ ...honest, ledger: other.ledger }, 10_000);
    const committed = toHex(xdr.LedgerHeaderHistoryEntry.schema.decode(other.ledger.header).header.bucketListHash);
    assert.throws(() => publisher.publish(a, 63), new RegExp(`cannot publish checkpoint 63: its bucket lists hash to [0-9a-f]{64}, but the ledger's header has bucketListHash ${committed}`));
    assert.deepEqual(filesUnder(folder).filter((f) => !f.startsWith('bucket/')), [], 'no ledger or state file');
    a.close();
    bootstrapped.close();
  });
});
