// HAS parsing against pubnet's genesis checkpoints, validation errors, checkpoint math and paths.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ZERO_HASH, bucketPath, bucketsOldestFirst, checkpointContaining, checkpointFilePath, checkpointStatePath, emptyBucketLevels,
  firstLedgerOfCheckpoint, flatPath, isCheckpointLedger, latestCheckpointAtOrBefore, parseHistoryArchiveState,
  serializeHistoryArchiveState, HistoryArchiveStateError,
} from '../../../src/archive/historyArchiveState.ts';
import { FIXTURE_BUCKET, readFixture } from './helpers.ts';

describe('history archive state', () => {
  it('parses the pubnet genesis checkpoints 0x3f and 0x7f', () => {
    const h63 = parseHistoryArchiveState(readFixture('history-0000003f.json'));
    assert.equal(h63.version, 1);
    assert.equal(h63.server, 'v0.2-4-gb2b1ae0');
    assert.equal(h63.currentLedger, 63);
    assert.equal(h63.networkPassphrase, undefined);
    assert.equal(h63.hotArchiveBuckets, undefined);
    assert.equal(h63.currentBuckets.length, 11);
    assert.equal(h63.currentBuckets[2].snap, FIXTURE_BUCKET);
    assert.deepEqual(h63.currentBuckets[3].next, { state: 1, output: FIXTURE_BUCKET });
    assert.deepEqual(h63.currentBuckets[0].next, { state: 0 });
    // the one bucket with content is level 2's snap at 63, level 3's curr at 127
    assert.deepEqual(bucketsOldestFirst(h63.currentBuckets), [FIXTURE_BUCKET]);

    const h127 = parseHistoryArchiveState(readFixture('history-0000007f.json'));
    assert.equal(h127.currentLedger, 127);
    assert.equal(h127.currentBuckets[3].curr, FIXTURE_BUCKET);
    assert.equal(h127.currentBuckets[2].snap, ZERO_HASH);
    assert.deepEqual(bucketsOldestFirst(h127.currentBuckets), [FIXTURE_BUCKET]);

    const root = parseHistoryArchiveState(readFixture('stellar-history.json'));
    assert.deepEqual(root, h127);
  });

  it('orders buckets from the deepest level down, snap before curr, skipping empty ones', () => {
    const levels = emptyBucketLevels();
    const h = (c: string) => c.repeat(64);
    levels[0].curr = h('a'); levels[0].snap = h('b');
    levels[4].snap = h('c');
    levels[10].curr = h('d'); levels[10].snap = h('e');
    assert.deepEqual(bucketsOldestFirst(levels), [h('e'), h('d'), h('c'), h('b'), h('a')]);
  });

  it('round-trips through serialization and keeps version 2 fields', () => {
    const has = {
      version: 2, server: 's', currentLedger: 191, networkPassphrase: 'Standalone Network ; February 2017',
      currentBuckets: emptyBucketLevels(), hotArchiveBuckets: emptyBucketLevels(),
    };
    has.currentBuckets[1].next = { state: 2, curr: 'ab'.repeat(32), snap: ZERO_HASH, shadow: [] } as never;
    const back = parseHistoryArchiveState(serializeHistoryArchiveState(has));
    assert.deepEqual(back, has);
    assert.match(serializeHistoryArchiveState(has), /^\{\n {4}"version": 2,\n {4}"server": "s",\n {4}"currentLedger": 191,\n {4}"networkPassphrase"/);
  });

  it('rejects malformed states with errors naming the file and the field', () => {
    const good = JSON.parse(new TextDecoder().decode(readFixture('history-0000003f.json')));
    const bad = (mutate: (o: any) => void, pattern: RegExp) => {
      const o = structuredClone(good);
      mutate(o);
      assert.throws(() => parseHistoryArchiveState(JSON.stringify(o), 'x/history.json'), (e: Error) => {
        assert.ok(e instanceof HistoryArchiveStateError, String(e));
        assert.match(e.message, /^x\/history\.json: /);
        assert.match(e.message, pattern);
        return true;
      });
    };
    assert.throws(() => parseHistoryArchiveState('{"version": 1,', 'f.json'), /f\.json: not valid JSON/);
    assert.throws(() => parseHistoryArchiveState('[]'), /not a JSON object/);
    bad((o) => { o.version = 3; }, /unsupported version 3/);
    bad((o) => { delete o.currentLedger; }, /"currentLedger" undefined is not a ledger sequence/);
    bad((o) => { o.currentLedger = -1; }, /currentLedger/);
    bad((o) => { o.currentLedger = '63'; }, /currentLedger/);
    bad((o) => { o.currentBuckets.pop(); }, /"currentBuckets" has 10 levels, expected 11/);
    bad((o) => { delete o.currentBuckets; }, /"currentBuckets" is missing/);
    bad((o) => { o.currentBuckets[2].snap = 'bff0'; }, /currentBuckets\[2\]\.snap "bff0" is not a 64-digit hex hash/);
    bad((o) => { o.currentBuckets[4].next = { state: 1 }; }, /currentBuckets\[4\]\.next\.output undefined/);
    bad((o) => { o.currentBuckets[4].next = { state: 7 }; }, /next\.state 7/);
    bad((o) => { o.version = 2; }, /version 2 requires "networkPassphrase"/);
    bad((o) => { o.version = 2; o.networkPassphrase = 'p'; }, /"hotArchiveBuckets" is missing/);
    bad((o) => { o.networkPassphrase = 5; }, /networkPassphrase/);
  });

  it('does checkpoint arithmetic at frequency 64', () => {
    assert.ok(isCheckpointLedger(63) && isCheckpointLedger(127) && isCheckpointLedger(0xffffffff));
    assert.ok(!isCheckpointLedger(0) && !isCheckpointLedger(64) && !isCheckpointLedger(62));
    assert.equal(checkpointContaining(1), 63);
    assert.equal(checkpointContaining(63), 63);
    assert.equal(checkpointContaining(64), 127);
    assert.equal(checkpointContaining(63092982), 63092991);
    assert.throws(() => checkpointContaining(0), RangeError);
    assert.equal(latestCheckpointAtOrBefore(62), undefined);
    assert.equal(latestCheckpointAtOrBefore(63), 63);
    assert.equal(latestCheckpointAtOrBefore(126), 63);
    assert.equal(latestCheckpointAtOrBefore(127), 127);
    assert.equal(firstLedgerOfCheckpoint(63), 1);
    assert.equal(firstLedgerOfCheckpoint(127), 64);
    assert.throws(() => firstLedgerOfCheckpoint(100), /100 is not a checkpoint ledger.*containing it is 127/);
  });

  it('names files as stellar-core does, with flat fallbacks', () => {
    assert.equal(checkpointStatePath(63), 'history/00/00/00/history-0000003f.json');
    assert.equal(checkpointStatePath(0x03c2b2ff), 'history/03/c2/b2/history-03c2b2ff.json');
    assert.equal(checkpointFilePath('ledger', 127), 'ledger/00/00/00/ledger-0000007f.xdr.gz');
    assert.equal(checkpointFilePath('transactions', 0x12345 * 64 - 1), 'transactions/00/48/d1/transactions-0048d13f.xdr.gz');
    assert.equal(bucketPath(FIXTURE_BUCKET), `bucket/bf/f0/72/bucket-${FIXTURE_BUCKET}.xdr.gz`);
    assert.equal(bucketPath(FIXTURE_BUCKET.toUpperCase()), `bucket/bf/f0/72/bucket-${FIXTURE_BUCKET}.xdr.gz`);
    assert.throws(() => bucketPath('../etc'), /not a 64-digit hex hash/);
    assert.equal(flatPath(bucketPath(FIXTURE_BUCKET)), `bucket-${FIXTURE_BUCKET}.xdr.gz`);
    assert.equal(flatPath('.well-known/stellar-history.json'), 'stellar-history.json');
  });
});
