// The bench builds its transactions from the node's own XDR values (bench/stellar.ts); they must be
// the bytes the SDK's TransactionBuilder makes, with the options the bench used to give it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { createAccountsTx, opsTx, PASSPHRASE, paymentTx, signFast, type SignedTx } from '../../../bench/stellar.ts';

const source = Keypair.random();
const other = Keypair.random();

/** The SDK's own build: fee per operation BASE_FEE x operations, no time bounds (setTimeout(0)). */
function viaSdk(kp: Keypair, seq: bigint, ops: readonly xdr.Operation[]): SignedTx {
  const b = new TransactionBuilder(new Account(kp.publicKey(), seq.toString()), { fee: String(100 * ops.length), networkPassphrase: PASSPHRASE }).setTimeout(0);
  for (const op of ops) b.addOperation(op);
  const tx = b.build();
  signFast(tx, kp);
  return { envelope: tx.toXDR(), hash: Buffer.from(tx.hash()).toString('hex') };
}

test('a payment is byte for byte what the SDK builds, hash included', () => {
  for (const [seq, stroops] of [[0n, 1], [123_456_789_012n, 1], [(1n << 62n) + 5n, 987_654_321]] as const) {
    const payment = Operation.payment({ destination: other.publicKey(), asset: Asset.native(), amount: (stroops / 1e7).toFixed(7) });
    assert.deepEqual(paymentTx(source, seq, other.publicKey(), stroops), viaSdk(source, seq, [payment]));
  }
});

test('a transaction of several operations is byte for byte what the SDK builds', () => {
  const usd = new Asset('USD', other.publicKey());
  const ops = [
    Operation.manageSellOffer({ selling: Asset.native(), buying: usd, amount: '12.5', price: { n: 10_101, d: 10_000 } }),
    Operation.changeTrust({ asset: usd }),
    Operation.payment({ destination: other.publicKey(), asset: usd, amount: '0.0000003' }),
  ];
  assert.deepEqual(opsTx(source, 77n, ops), viaSdk(source, 77n, ops));
  const destinations = [other.publicKey(), Keypair.random().publicKey()];
  assert.deepEqual(createAccountsTx(source, 9n, destinations, '100'),
    viaSdk(source, 9n, destinations.map((destination) => Operation.createAccount({ destination, startingBalance: '100' }))));
  assert.throws(() => opsTx(source, 1n, []), /1 to 100 operations/);
});
