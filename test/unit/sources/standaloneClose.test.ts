// A standalone ledger close runs in slices: requests served meanwhile see the previous ledger until
// the new one is stored, and stopping the network during a close stores nothing.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { rootKeypair, standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';

/** A real store whose next ingest fails once (a full disk, say), to see a close fail. */
class FailingOnceStore extends SqliteStore {
  failNext = false;
  override ingest(...args: Parameters<SqliteStore['ingest']>): ReturnType<SqliteStore['ingest']> {
    if (this.failNext) { this.failNext = false; throw new Error('disk full'); }
    return super.ingest(...args);
  }
}

async function networkWithQueuedPayment() {
  // slices of 0 ms: the close lets requests in after every step, even for a one-transaction ledger
  const { store, net, seq, submit } = standaloneOnFreshStore({ makeStore: (path) => new FailingOnceStore(path), closeSliceMs: 0 });
  const root = rootKeypair();
  const tx = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '10' })).setTimeout(0).build();
  tx.sign(root);
  assert.equal((await submit(tx)).status, 'PENDING');
  return { store, net, submit, tx, hashHex: Buffer.from(tx.hash()).toString('hex') };
}

it('answers meanwhile from the previous ledger, then stores the new one', async () => {
  const { store, net, hashHex } = await networkWithQueuedPayment();
  const before = store.latestLedger()!.sequence;
  const seenDuring: number[] = [];
  const closing = net.closeLedgerNow();
  // runs in the first turn the close gives the event loop
  setImmediate(() => seenDuring.push(store.latestLedger()!.sequence, store.transactionByHash(Buffer.from(hashHex, 'hex')) ? 1 : 0));
  assert.equal(await closing, before + 1);
  assert.deepEqual(seenDuring, [before, 0], 'the ledger and its transaction appear only once stored');
  assert.equal(store.latestLedger()!.sequence, before + 1);
  assert.ok(store.transactionByHash(Buffer.from(hashHex, 'hex')));
  await net.stop();
  store.close();
});

it('stops during a close without storing the ledger', async () => {
  const { store, net } = await networkWithQueuedPayment();
  const before = store.latestLedger()!.sequence;
  const closing = net.closeLedgerNow();
  await net.stop(); // waits for the close to give up
  assert.equal(await closing, before);
  assert.equal(store.latestLedger()!.sequence, before, 'nothing stored');
  store.close();
});

it('a close that fails drops its transactions (banned), and the next ledger closes', async () => {
  const { store, net, submit, tx, hashHex } = await networkWithQueuedPayment();
  const before = store.latestLedger()!.sequence;
  store.failNext = true;
  assert.equal(await net.closeLedgerNow(), before, 'nothing stored');
  assert.equal(store.transactionByHash(Buffer.from(hashHex, 'hex')), undefined);
  assert.equal((await submit(tx)).status, 'TRY_AGAIN_LATER', 'the dropped transaction is banned');
  assert.equal(await net.closeLedgerNow(), before + 1, 'the network goes on');
  await net.stop();
  store.close();
});
