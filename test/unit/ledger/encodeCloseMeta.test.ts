// The standalone network assembles each LedgerCloseMeta from separately encoded parts; the result
// must be exactly what the XDR schema encodes, and the stored transaction rows must be those parts.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { rootKeypair, standaloneOnFreshStore } from './standaloneSupport.ts';

it('assembled metas equal the schema encoding, across successes, failures, fee bumps and multi-op transactions', async () => {
  const { store, net, seq, submit } = standaloneOnFreshStore();
  const root = rootKeypair();
  const send = async (tx: { toXDR(): string }) => assert.equal((await submit(tx)).status, 'PENDING');
  const [a, b] = [Keypair.random(), Keypair.random()];
  const create = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.createAccount({ destination: a.publicKey(), startingBalance: '100' }))
    .addOperation(Operation.createAccount({ destination: b.publicKey(), startingBalance: '100' })).setTimeout(0).build();
  create.sign(root);
  await send(create);
  await net.closeLedgerNow();

  const pay = new TransactionBuilder(new Account(a.publicKey(), seq(a)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.payment({ destination: b.publicKey(), asset: Asset.native(), amount: '1' })).setTimeout(0).build();
  pay.sign(a);
  const failing = new TransactionBuilder(new Account(b.publicKey(), seq(b)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' })).setTimeout(0).build();
  failing.sign(b);
  const inner = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.manageData({ name: 'k', value: 'v' })).setTimeout(0).build();
  inner.sign(root);
  const bump = TransactionBuilder.buildFeeBumpTransaction(a, '1000', inner, Networks.STANDALONE);
  bump.sign(a);
  for (const tx of [pay, failing, bump]) await send(tx);
  await net.closeLedgerNow();

  const ledgers = store.ledgers(1, 10);
  assert.equal(ledgers.length, 3);
  let txCount = 0;
  for (const l of ledgers) {
    const decoded = xdr.LedgerCloseMeta.schema.decode(l.meta);
    assert.deepEqual(Buffer.from(xdr.LedgerCloseMeta.schema.encode(decoded)), Buffer.from(l.meta), `ledger ${l.sequence}`);
    if (decoded.v !== 2) throw new Error('V2 expected');
    for (const [i, p] of decoded.v2.txProcessing.entries()) {
      const row = store.transactionsFrom(BigInt(l.sequence) << 32n, 100)[i];
      assert.deepEqual(Buffer.from(row.result), Buffer.from(xdr.TransactionResult.schema.encode(p.result.result)));
      assert.deepEqual(Buffer.from(row.meta), Buffer.from(xdr.TransactionMeta.schema.encode(p.txApplyProcessing)));
      txCount++;
    }
  }
  assert.equal(txCount, 4);
  assert.deepEqual(store.transactionsFrom(0n, 10).map((t) => t.successful), [true, true, false, true]);
  await net.stop();
  store.close();
});
