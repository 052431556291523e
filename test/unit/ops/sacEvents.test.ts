import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import {
  accountAddress, amountData, assetContractId, burnEvent, feeEvent, memoVal, mintEvent, movementEvent,
  muxedAccountAddress, sep11AssetString, transferEvent,
} from '../../../src/ledger/sacEvents.ts';
import { i128Val } from '../../../src/xdr/scVals.ts';
import { sha256 } from '../../../src/xdr/codec.ts';
import { NETWORK_ID, accountId, credit, muxed } from './support.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const sym = (s: string) => ({ type: 15 as const, sym: new xdr.XdrString(s) });

test('i128 encodes negative amounts in two\'s complement (fee refunds)', () => {
  assert.deepEqual(i128Val(-1n), { type: 10, i128: { hi: -1n, lo: 0xffff_ffff_ffff_ffffn } });
  assert.deepEqual(i128Val(-100n), { type: 10, i128: { hi: -1n, lo: (1n << 64n) - 100n } });
  assert.deepEqual(i128Val(0x7fff_ffff_ffff_ffffn), { type: 10, i128: { hi: 0n, lo: 0x7fff_ffff_ffff_ffffn } });
  const refund = feeEvent(NETWORK_ID, alice, -250n);
  const round = xdr.ContractEvent.schema.decode(xdr.ContractEvent.schema.encode(refund));
  assert.deepEqual(round.body.v0.data, i128Val(-250n));
  assert.deepEqual(round.body.v0.topics, [sym('fee'), { type: 18, address: accountAddress(alice) }]);
  assert.deepEqual(round.contractId, assetContractId(NETWORK_ID, { type: 0 }));
  assert.equal(round.type, 1, 'CONTRACT event');
});

test('contract id is sha256 of the HashIdPreimage FROM_ASSET', () => {
  const USD = credit('USD', issuer);
  const preimage = xdr.HashIdPreimage.schema.encode({ type: 8, contractId: { networkId: NETWORK_ID, contractIdPreimage: { type: 1, fromAsset: USD } } });
  assert.deepEqual(assetContractId(NETWORK_ID, USD), sha256(preimage));
  assert.notDeepEqual(assetContractId(NETWORK_ID, USD), assetContractId(NETWORK_ID, credit('USDC', issuer)));
});

test('SEP-11 asset strings', () => {
  assert.equal(sep11AssetString({ type: 0 }), 'native');
  assert.match(sep11AssetString(credit('USD', issuer)), /^USD:G[A-Z2-7]{55}$/);
  assert.match(sep11AssetString(credit('LONGASSET12', issuer)), /^LONGASSET12:G[A-Z2-7]{55}$/);
});

test('to_muxed_id: muxed destination id, else the memo (id/text/hash/return), else a plain amount', () => {
  const toPlain = accountAddress(bob);
  const toMuxed = muxedAccountAddress(muxed(bob, 12n));
  const hash = new Uint8Array(32).fill(9);
  assert.deepEqual(amountData(toPlain, 5n, { type: 0 }), i128Val(5n));
  assert.deepEqual(amountData(toPlain, 5n, null), i128Val(5n));
  assert.deepEqual(amountData(toMuxed, 5n, null), i128Val(5n), 'no mux info where not allowed (e.g. trades)');
  const mapOf = (v: ReturnType<typeof memoVal>) => ({ type: 17, map: [{ key: sym('amount'), val: i128Val(5n) }, { key: sym('to_muxed_id'), val: v }] });
  assert.deepEqual(amountData(toMuxed, 5n, { type: 1, text: new xdr.XdrString('hi') }), mapOf({ type: 5, u64: 12n }), 'muxed id wins over memo');
  assert.deepEqual(amountData(toPlain, 5n, { type: 1, text: new xdr.XdrString('hi') }), mapOf({ type: 14, str: new xdr.XdrString('hi') }));
  assert.deepEqual(amountData(toPlain, 5n, { type: 2, id: 3n }), mapOf({ type: 5, u64: 3n }));
  assert.deepEqual(amountData(toPlain, 5n, { type: 3, hash }), mapOf({ type: 13, bytes: hash }));
  assert.deepEqual(amountData(toPlain, 5n, { type: 4, retHash: hash }), mapOf({ type: 13, bytes: hash }));
});

test('movementEvent picks mint / burn / transfer by issuer involvement; topics drop mux info', () => {
  const USD = credit('USD', issuer);
  const from = muxedAccountAddress(muxed(alice, 1n));
  const to = muxedAccountAddress(muxed(bob, 2n));
  const iss = muxedAccountAddress(muxed(issuer, 3n));
  const t = movementEvent(NETWORK_ID, USD, from, to, 10n, { type: 0 });
  assert.deepEqual(t, transferEvent(NETWORK_ID, USD, from, to, 10n, { type: 0 }));
  assert.deepEqual(t.body.v0.topics.slice(0, 3), [sym('transfer'), { type: 18, address: accountAddress(alice) }, { type: 18, address: accountAddress(bob) }]);
  assert.deepEqual(t.body.v0.topics[3], { type: 14, str: new xdr.XdrString(sep11AssetString(USD)) });
  const m = movementEvent(NETWORK_ID, USD, iss, to, 10n, { type: 0 });
  assert.deepEqual(m, mintEvent(NETWORK_ID, USD, to, 10n, { type: 0 }));
  assert.equal(m.body.v0.topics.length, 3);
  assert.equal(m.body.v0.data.type, 17, 'mint to a muxed account carries its id');
  const b = movementEvent(NETWORK_ID, USD, from, iss, 10n, { type: 2, id: 4n });
  assert.deepEqual(b, burnEvent(NETWORK_ID, USD, from, 10n));
  assert.deepEqual(b.body.v0.data, i128Val(10n), 'burn never carries mux info');
  const self = movementEvent(NETWORK_ID, USD, iss, iss, 10n, { type: 0 });
  assert.deepEqual(self.body.v0.topics[0], sym('transfer'));
  const native = movementEvent(NETWORK_ID, { type: 0 }, from, to, 10n, null);
  assert.deepEqual(native.body.v0.topics[0], sym('transfer'));
});
