// The retention window is enforced inside each ingest transaction, on real pubnet ledgers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';

const PUBNET = networkIdOf('Public Global Stellar Network ; September 2015');
const FIRST = 63092982;
const ledger = (seq: number) => new Uint8Array(gunzipSync(readFileSync(new URL(`../../../test/fixtures/pubnet/ledgers/ledger-${seq}.xdr.gz`, import.meta.url))));

describe('SqliteStore retention', () => {
  it('keeps exactly the window of ledgers, transactions and fee samples, and refuses gaps', () => {
    const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'lumen-store-')), 's.sqlite'));
    const window = 3;
    const txCounts = new Map<number, number>();
    for (let seq = FIRST; seq < FIRST + 6; seq++) {
      const batch = ledgerToBatch({ bytes: ledger(seq) }, PUBNET);
      txCounts.set(seq, batch.transactions.length);
      store.ingest(batch, window);
    }
    const latest = FIRST + 5;
    assert.deepEqual(store.ledgerRange(), {
      oldest: { sequence: latest - window + 1, closeTime: store.ledger(latest - window + 1)!.closeTime },
      latest: { sequence: latest, closeTime: store.ledger(latest)!.closeTime },
    });
    assert.equal(store.ledger(latest - window), undefined);
    const kept = store.transactionsFrom(0n, 100000);
    const expected = [latest - 2, latest - 1, latest].reduce((n, s) => n + txCounts.get(s)!, 0);
    assert.equal(kept.length, expected);
    assert.ok(kept.every((t) => t.ledgerSequence > latest - window));
    assert.equal(store.feeSamples(0, false).length + store.feeSamples(0, true).length, expected);
    // a trimmed transaction is no longer found by hash
    const firstBatch = ledgerToBatch({ bytes: ledger(FIRST) }, PUBNET);
    assert.equal(store.transactionByHash(firstBatch.transactions[0].hash), undefined);
    // a ledger that does not follow the latest one is refused, and nothing of it is written
    assert.throws(() => store.ingest(firstBatch, window), /does not follow/);
    assert.equal(store.ledgerRange()!.latest.sequence, latest);
    store.close();
  });

  it('reopens an existing database at its schema version', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lumen-store-')), 's.sqlite');
    const a = new SqliteStore(path);
    a.ingest(ledgerToBatch({ bytes: ledger(FIRST) }, PUBNET), 100);
    a.close();
    const b = new SqliteStore(path);
    assert.equal(b.ledgerRange()!.latest.sequence, FIRST);
    b.close();
  });
});
