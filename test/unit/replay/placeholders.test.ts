// What the network's result shows it found: the accounts and trustlines the replay may stand in for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import { entriesFound, standIn } from '../../../src/replay/placeholders.ts';
import { frameOf } from '../../../src/ledger/transactionFrame.ts';
import { assetToTrustLineAsset } from '../../../src/ledger/assets.ts';
import { accountKey, dataKey, trustLineKey, type AccountId, type LedgerKey } from '../../../src/xdr/codec.ts';
import { keyId } from '../../../src/xdr/ledgerKeys.ts';
import { NETWORK_ID, accountId, credit, muxed } from '../ops/support.ts';

const source = accountId('source');
const opSource = accountId('op source');
const dest = accountId('dest');
const issuer = accountId('issuer');
const USD = credit('USD', issuer) as Extract<xdr.AssetWire, { type: 1 }>;
const EUR = credit('EUR', issuer) as Extract<xdr.AssetWire, { type: 1 }>;

function frame(ops: Array<{ body: xdr.OperationBodyWire; source?: AccountId }>) {
  const tx: xdr.TransactionWire = {
    sourceAccount: muxed(source), fee: 100 * ops.length, seqNum: 1n, cond: { type: 0 }, memo: { type: 0 },
    operations: ops.map((o) => ({ sourceAccount: o.source ? muxed(o.source) : null, body: o.body })), ext: { v: 0 },
  };
  return frameOf({ type: 2, v1: { tx, signatures: [] } }, NETWORK_ID);
}

const txResult = (code: 0 | -1, results: xdr.OperationResultWire[]): xdr.TransactionResultWire =>
  ({ feeCharged: 100n, result: { code, results } as xdr.TransactionResultResultWire, ext: { v: 0 } });
const paymentResult = (code: number): xdr.OperationResultWire => ({ code: 0, tr: { type: 1, paymentResult: { code } as xdr.PaymentResultWire } });
const offerResult = (code: number): xdr.OperationResultWire => ({ code: 0, tr: { type: 3, manageSellOfferResult: { code } as xdr.ManageSellOfferResultWire } });
const payment = (asset: xdr.AssetWire, to: AccountId): xdr.OperationBodyWire => ({ type: 1, paymentOp: { destination: muxed(to), asset, amount: 1n } });
const sellOffer = (amount: bigint): xdr.OperationBodyWire =>
  ({ type: 3, manageSellOfferOp: { selling: USD, buying: EUR, amount, price: { n: 1, d: 1 }, offerId: 0n } });

const ids = (keys: LedgerKey[]) => keys.map(keyId).sort();
const line = (id: AccountId, asset: Extract<xdr.AssetWire, { type: 1 }>) => trustLineKey(id, assetToTrustLineAsset(asset));

test('a payment that got past its destination check found the destination, and its own source', () => {
  const f = frame([{ body: payment(USD, dest), source: opSource }]);
  assert.deepEqual(ids(entriesFound(f, txResult(0, [paymentResult(0)]))), ids([accountKey(opSource), accountKey(dest)]));
  assert.deepEqual(ids(entriesFound(f, txResult(-1, [paymentResult(-6)]))), ids([accountKey(opSource), accountKey(dest)]), 'NO_TRUST comes after');
  assert.deepEqual(ids(entriesFound(f, txResult(-1, [paymentResult(-5)]))), ids([accountKey(opSource)]), 'NO_DESTINATION');
});

test('paying an asset back to its issuer never looks the issuer up', () => {
  const f = frame([{ body: payment(USD, issuer) }]);
  assert.deepEqual(entriesFound(f, txResult(0, [paymentResult(0)])), []);
});

test('an offer found the lines its result shows it got past', () => {
  const f = frame([{ body: sellOffer(10n) }]);
  const both = ids([line(source, USD), line(source, EUR)]);
  assert.deepEqual(ids(entriesFound(f, txResult(0, [offerResult(0)]))), both);
  assert.deepEqual(ids(entriesFound(f, txResult(-1, [offerResult(-12)]))), both, 'LOW_RESERVE');
  assert.deepEqual(ids(entriesFound(f, txResult(-1, [offerResult(-7)]))), ids([line(source, USD)]), 'UNDERFUNDED: the selling line only');
  assert.deepEqual(entriesFound(f, txResult(-1, [offerResult(-2)])), [], 'SELL_NO_TRUST');
  assert.deepEqual(entriesFound(frame([{ body: sellOffer(0n) }]), txResult(0, [offerResult(0)])), [], 'deleting checks no line');
});

test('nothing is inferred when the results came from validation, or the transaction never got to its operations', () => {
  const f = frame([{ body: payment(USD, dest) }, { body: payment(USD, dest), source: opSource }]);
  assert.deepEqual(entriesFound(f, txResult(-1, [paymentResult(0), { code: -1 }])), [], 'opBAD_AUTH');
  const badSeq: xdr.TransactionResultWire = { feeCharged: 100n, result: { code: -5 } as xdr.TransactionResultResultWire, ext: { v: 0 } };
  assert.deepEqual(entriesFound(f, badSeq), []);
});

test('stand-ins exist for accounts and trustlines only, bare and full, at the floor the known entries set', () => {
  const floor = { subEntries: 3, sponsored: 1, liabilities: { buying: 40n, selling: 25n }, baseReserve: 5_000_000 };
  const bare = standIn(line(source, USD), 'bare', floor);
  const full = standIn(line(source, USD), 'full', floor);
  assert.ok(bare?.data.type === 1 && full?.data.type === 1);
  assert.notDeepEqual(bare, full);
  const bareLine = bare.data.trustLine;
  assert.equal(bareLine.balance, 25n, 'holds what its offers sell');
  assert.equal(bareLine.limit, 65n, 'and room for what they buy');
  assert.equal(bareLine.flags, 2, 'authorized to maintain its liabilities, no more');
  assert.deepEqual(bareLine.ext, { v: 1, v1: { liabilities: { buying: 40n, selling: 25n }, ext: { v: 0 } } });

  const account = standIn(accountKey(source), 'bare', floor);
  assert.ok(account?.data.type === 0);
  const acc = account.data.account;
  assert.equal(acc.numSubEntries, 3);
  assert.equal(acc.balance, (2n + 3n - 1n) * 5_000_000n + 25n, 'the reserve of what it owns, and what its offers sell');
  assert.ok(acc.ext.v === 1 && acc.ext.v1.ext.v === 2 && acc.ext.v1.ext.v2.numSponsored === 1);
  const plain = standIn(accountKey(source), 'bare', { subEntries: 0, sponsored: 0, liabilities: { buying: 0n, selling: 0n }, baseReserve: 5_000_000 });
  assert.ok(plain?.data.type === 0 && plain.data.account.ext.v === 0 && plain.data.account.balance === 10_000_000n);
  assert.equal(standIn(dataKey(source, 'x'), 'bare', floor), undefined);
});
