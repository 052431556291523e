// A ledger written in slices (SqliteStore.ingestManyInSlices): while it is being written, with the
// event loop turning between slices, every read answers from the ledgers stored before it (no row
// of the open transaction, no half ledger), and when it resolves the whole ledger is there. A write
// that fails part way leaves nothing; another write meanwhile is refused. Ledgers of SAC transfers
// (test/support/sacLedgers.ts), converted by the addon as the follower converts them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { nativeLedgerToBatch } from '../../../src/ingest/nativeLedgerToBatch.ts';
import { HISTORY_SEGMENT_LEDGERS } from '../../../src/store/sqlite/entryHistory.ts';
import { toBase64 } from '../../../src/xdr/codec.ts';
import type { IngestBatch, Store } from '../../../src/store/types.ts';
import { LedgerChain, SYNTHETIC_NETWORK_ID, emptyTemplate, sacTransfersTemplate } from '../../support/sacLedgers.ts';

const RETENTION = 100;
const template = sacTransfersTemplate(1500);

/** A fresh store holding an empty ledger then one of SAC transfers; the chain goes on from there. */
function storeWithTwoLedgers(first: number): { store: SqliteStore; chain: LedgerChain; stored: IngestBatch } {
  const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'lumen-slices-')), 'node.sqlite'));
  const chain = new LedgerChain(first);
  store.ingest(nativeLedgerToBatch(chain.make(emptyTemplate()).bytes, SYNTHETIC_NETWORK_ID), RETENTION);
  const stored = nativeLedgerToBatch(chain.make(template).bytes, SYNTHETIC_NETWORK_ID);
  store.ingest(stored, RETENTION);
  return { store, chain, stored };
}

/** What a reader sees of the store, for the keys and transactions of two ledgers. */
function view(store: Store, before: IngestBatch, next: IngestBatch) {
  const keys = next.entryWrites.slice(0, 200).map((w) => w.key);
  const seq = next.ledger.sequence;
  const pos = (ledger: number) => ({ ledger, tx: 0, op: 0, event: 0 });
  return {
    latest: store.latestLedger()?.sequence,
    range: store.ledgerRange()?.latest.sequence,
    nextLedger: store.ledger(seq) !== undefined,
    ledgers: store.ledgers(seq - 1, 10).map((l) => l.sequence),
    nextTxFound: store.transactionByHash(next.transactions.at(-1)!.hash) !== undefined,
    beforeTxFound: store.transactionByHash(before.transactions.at(-1)!.hash) !== undefined,
    txsFrom: store.transactionsFrom(0n, 100_000).length,
    events: store.events({ start: pos(seq - 1), end: pos(seq + 1), descending: false, limit: 100_000, filters: [] }).length,
    entries: [...store.entries(keys).values()].map((e) => `${toBase64(e.key)}:${toBase64(e.entry)}`).join(),
    entriesAtBefore: [...store.entriesAt(keys, seq - 2).values()].map((e) => toBase64(e.entry)).join(),
    fees: store.feeSamples(0, true).length + store.feeSamples(0, false).length,
  };
}

/** Runs `write` to the end, taking `view` at every turn of the event loop it lets through. */
async function viewsWhileWriting(write: Promise<void>, look: () => unknown): Promise<unknown[]> {
  let done = false;
  const finished = write.finally(() => { done = true; });
  const seen: unknown[] = [];
  while (!done) {
    seen.push(look());
    await new Promise((resolve) => setImmediate(resolve));
  }
  await finished;
  return seen;
}

describe('SqliteStore.ingestManyInSlices', () => {
  it('lets requests in between slices, and they see the ledgers before it, whole, until it commits', async () => {
    const { store, chain, stored } = storeWithTwoLedgers(2);
    try {
      const next = nativeLedgerToBatch(chain.make(template).bytes, SYNTHETIC_NETWORK_ID);
      const before = view(store, stored, next);
      assert.equal(before.nextLedger, false);
      assert.equal(before.beforeTxFound, true);
      const seen = await viewsWhileWriting(store.ingestManyInSlices([next], RETENTION), () => view(store, stored, next));
      // a 1,500-transaction ledger is tens of milliseconds of writes: several slices
      assert.ok(seen.length >= 3, `the event loop turned ${seen.length} times during the write`);
      for (const s of seen) assert.deepEqual(s, before);
      const after = view(store, stored, next);
      assert.equal(after.latest, next.ledger.sequence);
      assert.equal(after.nextLedger, true);
      assert.equal(after.nextTxFound, true);
      assert.equal(after.txsFrom, stored.transactions.length + next.transactions.length);
      assert.equal(after.events, (stored.events ?? []).length + (next.events ?? []).length);
      assert.notEqual(after.entries, before.entries);
      assert.equal(after.entries, next.entryWrites.slice(0, 200).filter((w) => w.entry)
        .map((w) => `${toBase64(w.key)}:${toBase64(w.entry!)}`).join());
      assert.equal(after.entriesAtBefore, before.entriesAtBefore);
    } finally {
      store.close();
    }
  });

  it('keeps a history segment it completes readable to past-ledger reads until it commits', async () => {
    // the sliced ledger is the last of a history segment: its write moves the segment's bitmaps
    // from memory into rows the readers cannot see before the commit
    const last = HISTORY_SEGMENT_LEDGERS - 1;
    const { store, chain, stored } = storeWithTwoLedgers(last - 2);
    try {
      const next = nativeLedgerToBatch(chain.make(template).bytes, SYNTHETIC_NETWORK_ID);
      assert.equal(next.ledger.sequence, last);
      const keys = stored.entryWrites.filter((w) => w.entry).slice(0, 50).map((w) => w.key);
      const atGenesis = () => [...store.entriesAt(keys, last - 2).values()].map((e) => toBase64(e.entry)).join();
      const before = atGenesis();
      // the versions before the SAC ledger, not the current ones
      assert.notEqual(before, [...store.entries(keys).values()].map((e) => toBase64(e.entry)).join());
      const seen = await viewsWhileWriting(store.ingestManyInSlices([next], RETENTION), atGenesis);
      assert.ok(seen.length >= 3);
      for (const s of seen) assert.equal(s, before);
      assert.equal(atGenesis(), before);
    } finally {
      store.close();
    }
  });

  it('refuses another write while it runs, and a failure part way leaves nothing of it', async () => {
    const { store, chain, stored } = storeWithTwoLedgers(2);
    try {
      const good = nativeLedgerToBatch(chain.make(template).bytes, SYNTHETIC_NETWORK_ID);
      const bad = nativeLedgerToBatch(chain.make(template).bytes, SYNTHETIC_NETWORK_ID);
      // two rows for one transaction id: the insert fails after the good ledger's slices
      bad.transactions[1] = { ...bad.transactions[1], applicationOrder: bad.transactions[0].applicationOrder };
      const before = view(store, stored, good);
      let refusal: Error | undefined;
      const failing = store.ingestManyInSlices([good, bad], RETENTION);
      await new Promise((resolve) => setImmediate(resolve));
      try { store.ingest(good, RETENTION); } catch (e) { refusal = e as Error; }
      assert.match(refusal?.message ?? 'accepted', /one write at a time/);
      await assert.rejects(failing, /UNIQUE|constraint/i);
      assert.deepEqual(view(store, stored, good), before);
      // and the store goes on from where it was
      await store.ingestManyInSlices([good], RETENTION);
      assert.equal(store.latestLedger()?.sequence, good.ledger.sequence);
      assert.equal(view(store, stored, good).nextTxFound, true);
    } finally {
      store.close();
    }
  });
});
