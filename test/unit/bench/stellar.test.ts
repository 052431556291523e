// The bench assembles its transactions as bytes (bench/stellar.ts); they must be the SDK's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { createAccountsTx, opsTx, paymentTx, viaSdk } from '../../../bench/stellar.ts';

const source = Keypair.random();
const other = Keypair.random();

test('a payment is byte for byte what the SDK builds, hash included', () => {
  for (const [seq, stroops] of [[0n, 1], [123_456_789_012n, 1], [(1n << 62n) + 5n, 987_654_321]] as const) {
    assert.deepEqual(paymentTx(source, seq, other.publicKey(), stroops), viaSdk.paymentTx(source, seq, other.publicKey(), stroops));
  }
});

test('a transaction of several operations is byte for byte what the SDK builds', () => {
  const usd = new Asset('USD', other.publicKey());
  const ops = [
    Operation.manageSellOffer({ selling: Asset.native(), buying: usd, amount: '12.5', price: { n: 10_101, d: 10_000 } }),
    Operation.changeTrust({ asset: usd }),
    Operation.payment({ destination: other.publicKey(), asset: usd, amount: '0.0000003' }),
  ];
  assert.deepEqual(opsTx(source, 77n, ops), viaSdk.opsTx(source, 77n, ops));
  const destinations = [other.publicKey(), Keypair.random().publicKey()];
  assert.deepEqual(createAccountsTx(source, 9n, destinations, '100'),
    viaSdk.opsTx(source, 9n, destinations.map((destination) => Operation.createAccount({ destination, startingBalance: '100' }))));
  assert.throws(() => opsTx(source, 1n, []), /1 to 100 operations/);
});
