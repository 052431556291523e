// A ledger's meta over 1 MiB is stored in parts (migration 7), so no single insert holds the writer
// for long: every read gives back the meta byte for byte, after a reopen too, and the retention
// trim and a revert remove the parts with their ledgers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { nativeLedgerToBatch } from '../../../src/ingest/nativeLedgerToBatch.ts';
import { bytesEqual } from '../../../src/xdr/codec.ts';
import { LedgerChain, SYNTHETIC_NETWORK_ID, emptyTemplate, sacTransfersTemplate } from '../../support/sacLedgers.ts';

/** Rows of ledger_meta_parts per ledger, as the file holds them. */
function partsByLedger(path: string): Map<number, number> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare('SELECT id / 4096 AS ledger, count(*) AS n FROM ledger_meta_parts GROUP BY ledger').all();
    return new Map(rows.map((r) => [Number(r.ledger), Number(r.n)]));
  } finally {
    db.close();
  }
}

describe('ledger metas in parts', () => {
  it('reads back big and small metas byte for byte, and trims and reverts their parts', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lumen-meta-parts-')), 'node.sqlite');
    const chain = new LedgerChain(2);
    const small = chain.make(emptyTemplate());
    const big = [chain.make(sacTransfersTemplate(1500)), chain.make(sacTransfersTemplate(1500)), chain.make(sacTransfersTemplate(1500))];
    assert.ok(big[0].bytes.length > 3 * 2 ** 20, `a meta of ${big[0].bytes.length} bytes`);
    const window = 3;
    let store = new SqliteStore(path);
    try {
      store.ingest(nativeLedgerToBatch(small.bytes, SYNTHETIC_NETWORK_ID), window);
      for (const l of big.slice(0, 2)) store.ingest(nativeLedgerToBatch(l.bytes, SYNTHETIC_NETWORK_ID), window);
      const expectParts = Math.ceil(big[0].bytes.length / 2 ** 20);
      assert.deepEqual(partsByLedger(path), new Map([[3, expectParts], [4, expectParts]]));
      for (const l of [small, ...big.slice(0, 2)]) assert.ok(bytesEqual(store.ledger(l.sequence)!.meta, l.bytes), `ledger ${l.sequence}`);
      assert.deepEqual(store.ledgers(2, 10).map((l) => bytesEqual(l.meta, [small, ...big][l.sequence - 2].bytes)), [true, true, true]);
      store.close();
      store = new SqliteStore(path);
      assert.ok(bytesEqual(store.latestLedger()!.meta, big[1].bytes), 'the latest ledger, read back at start');
      // the window of 3 trims the small ledger; then a revert drops ledger 4's parts
      store.ingest(nativeLedgerToBatch(big[2].bytes, SYNTHETIC_NETWORK_ID), window);
      assert.equal(store.ledger(2), undefined);
      assert.deepEqual([...partsByLedger(path).keys()], [3, 4, 5]);
      store.revertTo(3);
      assert.deepEqual([...partsByLedger(path).keys()], [3]);
      assert.ok(bytesEqual(store.latestLedger()!.meta, big[0].bytes));
      assert.equal(store.ledger(4), undefined);
    } finally {
      store.close();
    }
  });
});
