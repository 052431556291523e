// Store.ingestAfterGap (a fast-forward past the retention window): ledgers after a gap of ledgers
// that are not stored; the gap's entry writes apply, every ledger stored before it goes, and a
// request that leaves no gap (or is not consecutive) is refused, changing nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { networkIdOf, toBase64 } from '../../../src/xdr/codec.ts';
import { entryFor, keyOf, put, remove } from './entrySupport.ts';

const PUBNET = networkIdOf('Public Global Stellar Network ; September 2015');
const FIRST = 63092982;
const ledger = (seq: number) => new Uint8Array(gunzipSync(readFileSync(new URL(`../../../test/fixtures/pubnet/ledgers/ledger-${seq}.xdr.gz`, import.meta.url))));
const batch = (seq: number) => ledgerToBatch({ bytes: ledger(seq) }, PUBNET);

describe('SqliteStore.ingestAfterGap', () => {
  it('applies the gap\'s writes, stores the ledgers after it and drops every ledger before it', () => {
    const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'lumen-store-')), 's.sqlite'));
    const kept = entryFor(1, 1, FIRST), gone = entryFor(2, 1, FIRST);
    const first = batch(FIRST);
    first.entryWrites.push(put(kept), put(gone));
    store.ingest(first, 100);
    store.ingest(batch(FIRST + 1), 100);
    const oldTx = first.transactions[0].hash;
    assert.ok(store.transactionByHash(oldTx));

    // ledgers FIRST+2 and FIRST+3 closed but are not stored: one updated `kept`, one deleted `gone`
    const updated = entryFor(1, 2, FIRST + 2);
    const after = [batch(FIRST + 4), batch(FIRST + 5)];
    store.ingestAfterGap([put(updated), remove(keyOf(gone), FIRST + 3)], after, 100);

    assert.equal(store.ledgerRange()!.oldest.sequence, FIRST + 4);
    assert.equal(store.ledgerRange()!.latest.sequence, FIRST + 5);
    assert.equal(store.latestLedger()!.sequence, FIRST + 5);
    assert.equal(store.ledger(FIRST), undefined);
    assert.equal(store.ledger(FIRST + 1), undefined);
    assert.equal(store.transactionByHash(oldTx), undefined, 'the transactions of the dropped ledgers go with them');
    assert.ok(store.transactionByHash(after[0].transactions[0].hash));
    assert.equal(store.feeSamples(0, false).length + store.feeSamples(0, true).length,
      after.reduce((n, b) => n + b.feeSamples.length, 0));
    assert.deepEqual(store.entry(keyOf(updated))?.entry, put(updated).entry, 'the gap\'s update applied');
    assert.equal(store.entry(keyOf(gone)), undefined, 'the gap\'s deletion applied');
    // the entry history starts at the first stored ledger, and reads it back
    assert.equal(store.entryHistoryOldest(), FIRST + 4);
    const someKey = after[1].entryWrites.find((w) => w.entry)!;
    const at4 = store.entriesAt([someKey.key], FIRST + 4).get(toBase64(someKey.key));
    const atLatest = store.entriesAt([someKey.key], FIRST + 5).get(toBase64(someKey.key));
    assert.deepEqual(atLatest?.entry, someKey.entry);
    const written4 = after[0].entryWrites.find((w) => toBase64(w.key) === toBase64(someKey.key));
    if (written4) assert.deepEqual(at4?.entry ?? null, written4.entry);

    // the next ledger follows as usual; a gap request without a gap, or not consecutive, is refused
    assert.throws(() => store.ingestAfterGap([], [batch(FIRST + 6)], 100), /leaves no gap/);
    assert.throws(() => store.ingestAfterGap([], [batch(FIRST + 7), batch(FIRST + 9)], 100), /does not follow/);
    assert.equal(store.latestLedger()!.sequence, FIRST + 5, 'nothing written by a refusal');
    store.ingest(batch(FIRST + 6), 100);
    assert.equal(store.ledgerRange()!.latest.sequence, FIRST + 6);
    store.close();
  });

  it('trims to the retention window when the ledgers after the gap outnumber it', () => {
    const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'lumen-store-')), 's.sqlite'));
    store.ingest(batch(FIRST), 2);
    store.ingestAfterGap([], [batch(FIRST + 2), batch(FIRST + 3), batch(FIRST + 4)], 2);
    assert.equal(store.ledgerRange()!.oldest.sequence, FIRST + 3);
    assert.equal(store.ledgerRange()!.latest.sequence, FIRST + 4);
    store.close();
  });
});
