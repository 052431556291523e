// Snapshots and reverts of a standalone network in process (src/standalone/snapshots.ts): what the
// engine holds in memory (the order book, the Soroban state index, the queue) goes back with the
// store, the feed tells its listeners once, and the ids and refusals behave as documented.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { defaultConfig } from '../../../src/config/config.ts';
import { revert, RevertRefused, SnapshotList, takeSnapshot } from '../../../src/standalone/snapshots.ts';
import type { QueueContents } from '../../../src/ledger/transactionQueue.ts';
import type { LedgerUpgradeStep } from '../../../src/ledger/closeLedger.ts';
import { encodeLedgerKey, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import { rootKeypair, standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';

const root = rootKeypair();
const CARRIER: LedgerUpgradeStep['upgrade'] = { type: 3, newMaxTxSetSize: defaultConfig.maxTxSetSize };
const creating = (...entries: LedgerEntry[]): LedgerUpgradeStep => ({ upgrade: CARRIER, apply: (ltx) => { for (const e of entries) ltx.create(e); } });

const offer = (id: bigint): LedgerEntry => ({
  lastModifiedLedgerSeq: 0,
  data: { type: 2, offer: {
    sellerId: { type: 0, ed25519: root.rawPublicKey() }, offerId: id, selling: { type: 0 },
    buying: { type: 1, alphaNum4: { assetCode: Buffer.from('USD\0'), issuer: { type: 0, ed25519: Keypair.random().rawPublicKey() } } },
    amount: 100n, price: { n: 1, d: 1 }, flags: 0, ext: { v: 0 },
  } },
  ext: { v: 0 },
});
const data = (n: number): LedgerEntry => ({
  lastModifiedLedgerSeq: 0,
  data: { type: 6, contractData: { ext: { v: 0 }, contract: { type: 1, contractId: new Uint8Array(32).fill(9) }, key: { type: 3, u32: n }, durability: 1, val: { type: 3, u32: n } } },
  ext: { v: 0 },
});
const ttl = (e: LedgerEntry): LedgerEntry =>
  ({ lastModifiedLedgerSeq: 0, data: { type: 9, ttl: { keyHash: ttlKeyFor(ledgerKeyOf(e.data)).ttl.keyHash, liveUntilLedgerSeq: 1_000_000 } }, ext: { v: 0 } });

/** The engine's in-memory views, read the way a test may (they are private to the network). */
const engine = (net: object) => net as unknown as {
  orderBook: { size: number; offersBySeller(seller: unknown): unknown[] };
  sorobanState?: { liveStateSize: bigint; evictionCandidates(ledgerSeq: number, limit: number): unknown[] };
};
/** What the engine holds, to compare the revert's incremental update with a full reload. */
const engineView = (net: object) => {
  const e = engine(net);
  return {
    offers: e.orderBook.size, rootOffers: e.orderBook.offersBySeller({ type: 0, ed25519: root.rawPublicKey() }),
    live: e.sorobanState?.liveStateSize, evictable: e.sorobanState?.evictionCandidates(2_000_000, 1000),
  };
};

it('a revert takes the engine\'s order book and Soroban state index back with the store, and the feed tells once', async () => {
  const { net, store, feed } = standaloneOnFreshStore();
  try {
    net.setCloseMode('manual');
    const heard: number[] = [];
    feed.listenReverts((l) => heard.push(l));
    await net.closeNextLedger([creating(offer(1n), data(1), ttl(data(1)))]);
    const books = engine(net).orderBook.size;
    const live = engine(net).sorobanState?.liveStateSize;
    const snap = await takeSnapshot(net, store, defaultConfig);
    assert.equal(snap.id, '0x1');

    const later = data(2);
    // an offer and a contract entry created, the older ones changed
    await net.closeNextLedger([creating(offer(2n), later, ttl(later)), {
      upgrade: CARRIER,
      apply: (ltx) => {
        const o = ltx.load(ledgerKeyOf(offer(1n).data))!;
        if (o.data.type === 2) ltx.update({ ...o, data: { ...o.data, offer: { ...o.data.offer, amount: 50n } } });
        const t = ltx.load(ledgerKeyOf(ttl(data(1)).data))!;
        if (t.data.type === 9) ltx.update({ ...t, data: { ...t.data, ttl: { ...t.data.ttl, liveUntilLedgerSeq: 3_000_000 } } });
      },
    }]);
    assert.equal(engine(net).orderBook.size, books + 1);
    if (live !== undefined) assert.ok(engine(net).sorobanState!.liveStateSize > live);

    const r = await revert(net, store, defaultConfig, { id: snap.id });
    assert.deepEqual(r.dropped, ['0x1']);
    assert.deepEqual(heard, [snap.ledger]);
    assert.equal(store.latestLedger()?.sequence, snap.ledger);
    assert.equal(store.entry(encodeLedgerKey(ledgerKeyOf(later.data))), undefined);
    assert.equal(engine(net).orderBook.size, books);
    if (live !== undefined) assert.equal(engine(net).sorobanState!.liveStateSize, live);
    // the revert updated the engine from the entries it put back: the same as reading the state again
    const incremental = engineView(net);
    net.reloadState();
    assert.deepEqual(incremental, engineView(net));
    // the next ledger chains on
    assert.equal(await net.closeNextLedger(), snap.ledger + 1);
    // ids go on counting, never reused
    assert.equal((await takeSnapshot(net, store, defaultConfig)).id, '0x2');
  } finally {
    await net.stop();
  }
});

it('the queue: a snapshot\'s comes back with it; a revert to a ledger empties it', async () => {
  const { net, store, seq, submit } = standaloneOnFreshStore();
  try {
    net.setCloseMode('manual');
    const pay = (n: string) => {
      const tx = new TransactionBuilder(new Account(root.publicKey(), n), { fee: '100', networkPassphrase: Networks.STANDALONE })
        .addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' })).setTimeout(0).build();
      tx.sign(root);
      return tx;
    };
    const queued = pay(seq(root));
    assert.equal((await submit(queued)).status, 'PENDING');
    const snap = await takeSnapshot(net, store, defaultConfig);
    assert.equal(net.queueContents().queued.length, 1);
    const r = await revert(net, store, defaultConfig, { id: snap.id });
    assert.equal(r.queued, 1);
    assert.equal(net.queueContents().queued[0].frame.hashHex, Buffer.from(queued.hash()).toString('hex'));
    const r2 = await revert(net, store, defaultConfig, { ledger: snap.ledger });
    assert.equal(r2.queued, 0);
    assert.equal(net.queueContents().queued.length, 0);
    await net.closeNextLedger();
    assert.equal(store.transactionByHash(queued.hash()), undefined);
  } finally {
    await net.stop();
  }
});

it('refusals change nothing: unknown ids, after the latest, history off, publishing', async () => {
  const { net, store } = standaloneOnFreshStore();
  try {
    net.setCloseMode('manual');
    await net.closeNextLedger();
    const snap = await takeSnapshot(net, store, defaultConfig);
    await net.closeNextLedger();
    const latest = store.latestLedger()!.sequence;
    const refuse = (target: Parameters<typeof revert>[3], config = defaultConfig) =>
      assert.rejects(revert(net, store, config, target), RevertRefused);
    await refuse({ id: '0x9' });
    await refuse({ ledger: latest + 1 });
    await refuse({ id: snap.id }, { ...defaultConfig, ledgerEntryHistory: false });
    await refuse({ id: snap.id }, { ...defaultConfig, publishDatastore: '/tmp/somewhere' });
    await refuse({ id: snap.id }, { ...defaultConfig, publishHistoryArchive: '/tmp/somewhere' });
    assert.equal(store.latestLedger()!.sequence, latest);
    // the refusals kept the snapshot: it still works (its id is matched case-insensitively)
    assert.equal((await revert(net, store, defaultConfig, { id: snap.id.toUpperCase().replace('0X', '0x') })).ledger, snap.ledger);
  } finally {
    await net.stop();
  }
});

it('waiters: a transaction reverted out of the queue fails at once; one back in the queue is waited for', async () => {
  const { net, store, seq, submit } = standaloneOnFreshStore();
  try {
    net.setCloseMode('manual');
    const a = Keypair.random(), b = Keypair.random();
    // two funded accounts, so that each may have a transaction queued
    const fund = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '100', networkPassphrase: Networks.STANDALONE })
      .addOperation(Operation.createAccount({ destination: a.publicKey(), startingBalance: '100' }))
      .addOperation(Operation.createAccount({ destination: b.publicKey(), startingBalance: '100' })).setTimeout(0).build();
    fund.sign(root);
    assert.equal((await submit(fund)).status, 'PENDING');
    await net.closeNextLedger();
    const pay = (from: Keypair) => {
      const tx = new TransactionBuilder(new Account(from.publicKey(), (BigInt(store.latestLedger()!.sequence) << 32n).toString()), { fee: '100', networkPassphrase: Networks.STANDALONE })
        .addOperation(Operation.payment({ destination: root.publicKey(), asset: Asset.native(), amount: '1' })).setTimeout(0).build();
      tx.sign(from);
      return tx;
    };
    const kept = pay(a);
    assert.equal((await submit(kept)).status, 'PENDING');
    const snap = await takeSnapshot(net, store, defaultConfig);
    const dropped = pay(b);
    assert.equal((await submit(dropped)).status, 'PENDING');
    const waitKept = net.waitForTransaction(Buffer.from(kept.hash()).toString('hex'));
    const waitDropped = net.waitForTransaction(Buffer.from(dropped.hash()).toString('hex'));
    let keptDone = false;
    void waitKept.then(() => { keptDone = true; });
    await revert(net, store, defaultConfig, { id: snap.id });
    await assert.rejects(waitDropped, /was not included/);
    assert.equal(keptDone, false);
    await net.closeNextLedger();
    await waitKept;
    assert.ok(store.transactionByHash(kept.hash())?.successful);
  } finally {
    await net.stop();
  }
});


it('keeps at most --max-snapshots snapshots holding at most --max-snapshot-queue-entries queue entries, dropping the oldest first', () => {
  const queue = (n: number): QueueContents => ({ queued: [], banned: Array.from({ length: n }, (_, i) => [`h${i}`, 1] as const) });
  const list = new SnapshotList({ count: 3, queueEntries: 10 });
  const hash = new Uint8Array(32);
  for (let i = 0; i < 5; i++) list.add(10 + i, hash, queue(1));
  assert.equal(list.size, 3, 'the count cap');
  assert.equal(list.find('0x1'), undefined);
  assert.ok(list.find('0x3') && list.find('0x5'));
  assert.match(list.whyMissing('0x2'), /snapshot 0x2 was dropped to make room .*--max-snapshots.*the snapshots kept are 3, from 0x3 to 0x5/);
  assert.match(list.whyMissing('0x9'), /unknown snapshot id "0x9"/);

  list.add(20, hash, queue(8));
  assert.equal(list.queueEntries, 10, '1 + 1 + 8: the entries cap holds');
  assert.equal(list.size, 3);
  // 1 + 1 + 8 + 2 = 12: dropping 0x4 and 0x5 leaves 10
  list.add(21, hash, queue(2));
  assert.deepEqual([list.find('0x4'), list.find('0x5'), list.find('0x6'), list.find('0x7')].map((s) => s?.ledger), [undefined, undefined, 20, 21]);
  assert.equal(list.queueEntries, 10);

  // one snapshot bigger than the cap alone is still kept: the newest always stays
  list.add(22, hash, queue(50));
  assert.equal(list.size, 1);
  assert.equal(list.queueEntries, 50);
  assert.equal(list.find('0x8')?.ledger, 22);

  // a revert's drop gives the entries back
  assert.deepEqual(list.dropWhere(() => true), ['0x8']);
  assert.equal(list.queueEntries, 0);
});
