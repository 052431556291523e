// A standalone network publishing a history archive (--publish-history-archive): its checkpoint
// ledgers' headers commit to the state as the archive publishes it (src/standalone/checkpointCommitment.ts),
// through an ordinary close (ledger 63) and a fast-forward (127, 191, 255), with evictions and a
// state-size window sample in the checkpoint ledgers themselves. So what it publishes passes the
// verification a follower's or an archive fork's bootstrap makes, and holds the state at each
// checkpoint. Without publishing, the headers keep the state hash chain.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import type { Clock } from '../../../src/standalone/clock.ts';
import type { LedgerUpgradeStep } from '../../../src/ledger/closeLedger.ts';
import { sha256, toHex, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import { WINDOW_KEY } from '../../../src/ingest/stateSizeWindow.ts';
import { nativeAvailable } from '../../../src/host/native.ts';
import { HistoryArchivePublisher } from '../../../src/archive/archivePublisher.ts';
import { HistoryArchive } from '../../../src/archive/historyArchive.ts';
import { bootstrapState } from '../../../src/archive/stateBootstrap.ts';
import { stateHashes } from '../../../src/archive/bucketListHash.ts';
import { defaultConfig } from '../../../src/config/config.ts';
import { editArchivalSettings, standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';
import { tmpDir, tmpStore } from '../archive/helpers.ts';

class FixedClock implements Clock {
  nowSeconds(): bigint { return 1_800_000_000n; }
}

const contract = { type: 1 as const, contractId: new Uint8Array(32).fill(9) };

/**
 * Ledger 2: a state-size sample every ledger (so the window entry changes in the checkpoint
 * ledgers too) and contract entries, temporary and persistent, whose TTLs end just before and at
 * the checkpoints 63 and 127: they are evicted in ledgers 62, 63, 126 and 127.
 */
const setup: LedgerUpgradeStep = {
  upgrade: { type: 3, newMaxTxSetSize: 10000 },
  apply(ltx) {
    editArchivalSettings(ltx, (settings) => { settings.liveSorobanStateSizeWindowSamplePeriod = 1; });
    [61, 62, 125, 126].forEach((liveUntil, i) => {
      for (const durability of [0, 1] as const) {
        const entry: LedgerEntry = {
          lastModifiedLedgerSeq: 2,
          data: { type: 6, contractData: { ext: { v: 0 }, contract, key: { type: 3, u32: i }, durability, val: { type: 13, bytes: new Uint8Array(40 + i) } } },
          ext: { v: 0 },
        };
        ltx.create(entry);
        const keyHash = ttlKeyFor({ type: 6, contractData: { contract, key: { type: 3, u32: i }, durability } }).ttl.keyHash;
        ltx.create({ lastModifiedLedgerSeq: 2, data: { type: 9, ttl: { keyHash, liveUntilLedgerSeq: liveUntil } }, ext: { v: 0 } });
      }
    });
  },
};

const dump = (store: { allEntries(): Iterable<{ key: Uint8Array; entry: Uint8Array; lastModified: number }> }) =>
  Array.from(store.allEntries(), (e) => `${toHex(e.key)} ${toHex(e.entry)} ${e.lastModified}`);

describe('checkpoint headers of a network that publishes a history archive', { skip: !nativeAvailable() && 'the Soroban host addon is not built' }, () => {
  it('commit to the published state through closes and a fast-forward, which bootstraps verify', async () => {
    const folder = tmpDir('lumen-published-');
    const n = standaloneOnFreshStore({ clock: new FixedClock(), config: { publishHistoryArchive: folder } });
    const publisher = new HistoryArchivePublisher({ folder, networkPassphrase: defaultConfig.networkPassphrase });
    const states = new Map<number, string[]>();
    n.feed.listen((ledgers) => {
      for (const l of ledgers) if (publisher.afterLedger(n.store, l.ledger.sequence)) states.set(l.ledger.sequence, dump(n.store));
    });
    try {
      await n.net.closeNextLedger([setup]);
      while (n.store.latestLedger()!.sequence < 63) await n.net.closeNextLedger();
      await n.net.exclusive(() => n.net.fastForward(200, 5n));
      assert.deepEqual([...states.keys()], [63, 127, 191, 255]);

      const archive = HistoryArchive.open(folder);
      for (const [checkpoint, state] of states) {
        const header = xdr.LedgerHeaderHistoryEntry.schema.decode(n.store.ledger(checkpoint)!.header).header;
        const has = await archive.checkpointState(checkpoint);
        assert.equal(stateHashes(has).bucketListHash, toHex(header.bucketListHash), `checkpoint ${checkpoint}'s header commits to its published state`);
        const b = tmpStore();
        const result = await bootstrapState(b, archive, checkpoint, undefined, { networkPassphrase: defaultConfig.networkPassphrase });
        assert.deepEqual(result.header.hash, n.store.ledger(checkpoint)!.hash);
        assert.deepEqual(dump(b), state, `the state at checkpoint ${checkpoint}`);
        b.close();
      }
      // what the checkpoint ledgers themselves changed is in what their headers commit to
      for (const checkpoint of [63, 127]) {
        const meta = xdr.LedgerCloseMeta.schema.decode(n.store.ledger(checkpoint)!.meta);
        assert.ok(meta.v === 2 && meta.v2.evictedKeys.length === 4, `ledger ${checkpoint} evicted a temporary and a persistent entry`);
        assert.equal(n.store.entriesAt([WINDOW_KEY], checkpoint).values().next().value!.lastModified, checkpoint, `ledger ${checkpoint} sampled the state size`);
      }
      const hot = (await archive.checkpointState(127)).hotArchiveBuckets![0].curr;
      assert.notEqual(hot, '0'.repeat(64), 'the evicted persistent entries are in the hot archive');
    } finally {
      await n.net.stop();
    }
  });

  it('keep the state hash chain when nothing is published', async () => {
    const n = standaloneOnFreshStore({ clock: new FixedClock() });
    try {
      while (n.store.latestLedger()!.sequence < 63) await n.net.closeNextLedger();
      const header = (seq: number) => xdr.LedgerHeaderHistoryEntry.schema.decode(n.store.ledger(seq)!.header).header;
      const h62 = header(62), h63 = header(63);
      assert.deepEqual(h63.bucketListHash, sha256(h62.bucketListHash, h63.scpValue.txSetHash, h63.txSetResultHash));
    } finally {
      await n.net.stop();
    }
  });
});
