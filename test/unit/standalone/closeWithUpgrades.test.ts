// Upgrades a standalone close applies after its transactions (the developer network's edits and
// settings): their entry changes are the meta's UpgradeEntryMeta and reach storage through ingestion,
// header values change, the upgrade is in the StellarValue; a refused upgrade stores nothing and
// leaves the queue as it was; developer operations never overlap a close.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Keypair, Networks, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { accountKey } from '../../../src/xdr/codec.ts';
import type { LedgerUpgradeStep } from '../../../src/ledger/closeLedger.ts';
import { rootKeypair, standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';

const root = rootKeypair();
const rootKey = () => xdr.LedgerKey.schema.encode({ type: 0, account: { accountId: { type: 0, ed25519: root.rawPublicKey() } } });

function storedMeta(store: ReturnType<typeof standaloneOnFreshStore>['store'], seq: number) {
  const row = store.ledger(seq);
  assert.ok(row, `ledger ${seq} stored`);
  const meta = xdr.LedgerCloseMeta.schema.decode(row.meta);
  assert.equal(meta.v, 2);
  return meta.v2;
}

/** An upgrade that raises the base reserve and moves `amount` stroops from the root's balance to the fee pool's record. */
const reserveAndBalance = (baseReserve: number, balanceDelta: bigint): LedgerUpgradeStep => ({
  upgrade: { type: 4, newBaseReserve: baseReserve },
  apply(ltx, header) {
    header.baseReserve = baseReserve;
    const entry = ltx.load(accountKey({ type: 0, ed25519: root.rawPublicKey() }));
    assert.ok(entry && entry.data.type === 0);
    entry.data.account.balance += balanceDelta;
    ltx.update(entry);
  },
});

it('an upgrade edits entries after the transactions, through the meta, and changes the header', async () => {
  const { store, net, seq, submit } = standaloneOnFreshStore();
  const payee = Keypair.random();
  const tx = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.createAccount({ destination: payee.publicKey(), startingBalance: '10' })).setTimeout(0).build();
  tx.sign(root);
  assert.equal((await submit(tx)).status, 'PENDING');
  const before = xdr.LedgerEntry.schema.decode(store.entry(rootKey())!.entry);
  assert.ok(before.data.type === 0);

  const closed = await net.closeNextLedger([reserveAndBalance(7_000_000, 12_345n)]);
  const meta = storedMeta(store, closed);
  assert.equal(meta.txProcessing.length, 1, 'the queued transaction applied in the same ledger');
  assert.equal(meta.ledgerHeader.header.baseReserve, 7_000_000);
  assert.equal(meta.upgradesProcessing.length, 1);
  const [upgrade] = meta.upgradesProcessing;
  assert.deepEqual(upgrade.upgrade, { type: 4, newBaseReserve: 7_000_000 });
  assert.deepEqual(meta.ledgerHeader.header.scpValue.upgrades.map((u) => xdr.LedgerUpgrade.schema.decode(u)), [upgrade.upgrade]);
  // STATE then UPDATED, the state being what the transaction left (fee and starting balance taken)
  assert.deepEqual(upgrade.changes.map((c) => c.type), [3, 1]);
  const state = upgrade.changes[0];
  assert.ok(state.type === 3 && state.state.data.type === 0);
  assert.equal(state.state.data.account.balance, before.data.account.balance - 100n - 100_000_000n);
  const after = xdr.LedgerEntry.schema.decode(store.entry(rootKey())!.entry);
  assert.ok(after.data.type === 0);
  assert.equal(after.data.account.balance, state.state.data.account.balance + 12_345n, 'storage holds the upgraded entry');
  assert.equal(after.lastModifiedLedgerSeq, closed);
  // the next ledger keeps the upgraded header value and carries no upgrade
  const next = await net.closeNextLedger();
  assert.equal(storedMeta(store, next).ledgerHeader.header.baseReserve, 7_000_000);
  assert.equal(storedMeta(store, next).upgradesProcessing.length, 0);
  await net.stop();
});

it('a refused upgrade stores nothing and the queued transactions close in the next ledger', async () => {
  const { store, net, seq, submit } = standaloneOnFreshStore();
  const tx = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.bumpSequence({ bumpTo: '0' })).setTimeout(0).build();
  tx.sign(root);
  assert.equal((await submit(tx)).status, 'PENDING');
  const latest = store.latestLedger()!.sequence;
  const refused: LedgerUpgradeStep = { upgrade: { type: 1, newLedgerVersion: 28 }, apply() { throw new Error('not this one'); } };
  await assert.rejects(net.closeNextLedger([refused]), /could not be closed|not this one/);
  assert.equal(store.latestLedger()!.sequence, latest, 'nothing stored');
  const closed = await net.closeNextLedger();
  assert.equal(storedMeta(store, closed).txProcessing.length, 1, 'the transaction was kept for the next ledger');
  await net.stop();
});

it('a developer operation and closes never overlap', async () => {
  const { store, net } = standaloneOnFreshStore();
  const start = store.latestLedger()!.sequence;
  let release!: () => void;
  const seen: number[] = [];
  const op = net.exclusive(async () => {
    seen.push(store.latestLedger()!.sequence);
    await new Promise<void>((r) => { release = r; });
    seen.push(store.latestLedger()!.sequence);
    return 'done';
  });
  await new Promise((r) => setImmediate(r));
  // a close asked for during the operation waits for it
  const closing = net.closeNextLedger();
  void net.closeLedgerNow();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(store.latestLedger()!.sequence, start, 'no close during the operation');
  release();
  assert.equal(await op, 'done');
  assert.deepEqual(seen, [start, start]);
  assert.equal(await closing, start + 1);
  await net.stop();
});
