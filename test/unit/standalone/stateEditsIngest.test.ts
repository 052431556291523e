// Developer edits through a real standalone network: each closes one ledger whose UpgradeEntryMeta
// carries the edit, ingestion stores it (the JS conversion and the addon's, used for big ledgers,
// agree on the batch), and the Soroban state index sees a TTL an edit ended, so the next ledger
// evicts the entry.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, xdr } from '@stellar/stellar-sdk';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { nativeAvailable } from '../../../src/host/native.ts';
import { nativeLedgerToBatch } from '../../../src/ingest/nativeLedgerToBatch.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import { accountKey, decodeLedgerEntry, encodeLedgerKey, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import { symVal, u64Val } from '../../../src/xdr/scVals.ts';
import { DEV_EDIT_CONTRACT_ID, changesHash, devEditStep, expireNow, setLedgerEntry, setNativeBalance } from '../../../src/standalone/stateEdits.ts';
import { standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** Writes in key order, without the replaced versions only the native conversion reads from the meta. */
const normalized = (batch: IngestBatch): IngestBatch =>
  ({ ...batch, entryWrites: [...batch.entryWrites].sort((a, b) => (hex(a.key) < hex(b.key) ? -1 : 1)).map(({ before: _, ...w }) => w) });

describe('developer edits on a standalone network', { skip: !nativeAvailable() && 'the addon is not built' }, () => {
  const { store, net } = standaloneOnFreshStore();
  after(() => net.stop());
  const account = { type: 0 as const, ed25519: Keypair.random().rawPublicKey() };
  const contractId = new Uint8Array(32).fill(7);
  const data: LedgerEntry = {
    lastModifiedLedgerSeq: 0,
    data: { type: 6, contractData: { ext: { v: 0 }, contract: { type: 1, contractId }, key: symVal('k'), durability: 1, val: u64Val(3) } },
    ext: { v: 0 },
  };
  const dataKey = ledgerKeyOf(data.data);

  function metaOf(seq: number) {
    const row = store.ledger(seq)!;
    const lcm = xdr.LedgerCloseMeta.schema.decode(row.meta);
    assert.equal(lcm.v, 2);
    return { row, v2: lcm.v === 2 ? lcm.v2 : undefined! };
  }

  it('an edit is the ledger\'s upgrade, its changes stored; the addon\'s conversion equals the JS one', async () => {
    const seq = await net.closeNextLedger([devEditStep((ltx, header) => { setNativeBalance(ltx, header, account, 123_000_000n); })]);
    const { row, v2 } = metaOf(seq);
    assert.equal(v2.upgradesProcessing.length, 1);
    const { upgrade, changes } = v2.upgradesProcessing[0];
    assert.ok(upgrade.type === 6);
    if (upgrade.type === 6) {
      assert.deepEqual(upgrade.newConfig.contractId, DEV_EDIT_CONTRACT_ID);
      assert.deepEqual(upgrade.newConfig.contentHash, changesHash(changes));
    }
    assert.deepEqual(v2.ledgerHeader.header.scpValue.upgrades.map((u) => xdr.LedgerUpgrade.schema.decode(u)), [upgrade]);
    const stored = decodeLedgerEntry(store.entry(encodeLedgerKey(accountKey(account)))!.entry);
    assert.ok(stored.data.type === 0 && stored.data.account.balance === 123_000_000n);
    assert.equal(stored.lastModifiedLedgerSeq, seq);
    assert.deepStrictEqual(normalized(nativeLedgerToBatch(row.meta, net.networkId)), normalized(ledgerToBatch({ bytes: row.meta }, net.networkId)));
  });

  it('a contract entry set with its TTL, then expired by an edit, is evicted by the next ledger', async () => {
    const setAt = await net.closeNextLedger([devEditStep((ltx) => { setLedgerEntry(ltx, data); })]);
    const ttl = store.entry(encodeLedgerKey(ttlKeyFor(dataKey)));
    assert.ok(ttl, 'the TTL was written with the entry');
    const { row } = metaOf(setAt);
    assert.deepStrictEqual(normalized(nativeLedgerToBatch(row.meta, net.networkId)), normalized(ledgerToBatch({ bytes: row.meta }, net.networkId)));

    const expiredAt = await net.closeNextLedger([devEditStep((ltx) => { expireNow(ltx, dataKey); })]);
    assert.deepEqual(metaOf(expiredAt).v2.evictedKeys, [], 'an entry whose TTL the ledger wrote stays');
    const evictedAt = await net.closeNextLedger();
    const evicted = metaOf(evictedAt).v2.evictedKeys.map((k) => hex(encodeLedgerKey(k)));
    assert.deepEqual(evicted, [ttlKeyFor(dataKey), dataKey].map((k) => hex(encodeLedgerKey(k))));
    assert.equal(store.entry(encodeLedgerKey(ttlKeyFor(dataKey))), undefined);
    assert.ok(store.entry(encodeLedgerKey(dataKey)), 'archived: kept without its TTL');
  });

  it('a refused edit closes no ledger and the network keeps closing', async () => {
    const before = store.latestLedger()!.sequence;
    await assert.rejects(net.closeNextLedger([devEditStep((ltx, header) => { setNativeBalance(ltx, header, account, 1n); })]), /below/);
    assert.equal(store.latestLedger()!.sequence, before);
    assert.equal(await net.closeNextLedger(), before + 1);
  });
});
