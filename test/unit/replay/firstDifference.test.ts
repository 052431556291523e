// The first differing field of two decoded XDR values, as a path a person can follow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { describeDifference, firstDifference } from '../../../src/replay/firstDifference.ts';
import { cloneWire } from '../../../src/ledger/ledgerTxn.ts';
import { XLM, accountEntry, accountId } from '../ops/support.ts';

const alice = accountId('alice');
const bob = accountId('bob');

function meta(balance: bigint, changes = 2): xdr.TransactionMetaV4Wire {
  const e = accountEntry(alice, balance);
  const list: xdr.LedgerEntryChangeWire[] = [{ type: 3, state: accountEntry(alice, 10n * XLM) }, { type: 1, updated: e }].slice(0, changes) as xdr.LedgerEntryChangeWire[];
  return { ext: { v: 0 }, txChangesBefore: [], operations: [{ ext: { v: 0 }, changes: list, events: [] }], txChangesAfter: [], sorobanMeta: null, events: [], diagnosticEvents: [] };
}

test('equal values have no difference, however they were built', () => {
  assert.equal(firstDifference(meta(5n), meta(5n)), null);
  assert.equal(firstDifference(meta(5n), cloneWire(meta(5n))), null);
});

test('a differing leaf is reported with its path and both values', () => {
  const d = firstDifference(meta(100n), meta(200n), 'meta');
  assert.deepEqual(d, { path: 'meta.operations[0].changes[1].updated.data.account.balance', ours: '100', real: '200' });
  assert.equal(describeDifference(d!), 'meta.operations[0].changes[1].updated.data.account.balance: ours 100 real 200');
});

test('a list of another length is reported at its length once the common part agrees', () => {
  assert.deepEqual(firstDifference(meta(5n, 1), meta(5n, 2)), { path: 'operations[0].changes.length', ours: '1', real: '2' });
});

test('a union with another arm is reported at its discriminant, not inside the arms', () => {
  const ours = meta(5n);
  const real = meta(5n);
  real.operations[0].changes[1] = { type: 2, removed: { type: 0, account: { accountId: alice } } };
  assert.deepEqual(firstDifference(ours, real), { path: 'operations[0].changes[1].type', ours: '1', real: '2' });
});

test('account keys read as G-addresses, strings as text, other bytes as hex', () => {
  const ours = accountEntry(alice, XLM);
  const real = accountEntry(bob, XLM);
  assert.deepEqual(firstDifference(ours, real), {
    path: 'data.account.accountId.ed25519',
    ours: StrKey.encodeEd25519PublicKey(Buffer.from(alice.ed25519)), real: StrKey.encodeEd25519PublicKey(Buffer.from(bob.ed25519)),
  });
  const named = accountEntry(alice, XLM, { homeDomain: new xdr.XdrString('example.org') });
  assert.deepEqual(firstDifference(ours, named), { path: 'data.account.homeDomain', ours: '""', real: '"example.org"' });
  const thresholds = accountEntry(alice, XLM, { thresholds: new Uint8Array([1, 2, 3, 4]) });
  assert.deepEqual(firstDifference(ours, thresholds), { path: 'data.account.thresholds', ours: '01000000', real: '01020304' });
});

test('a field present on one side only is reported as absent on the other', () => {
  assert.deepEqual(firstDifference({ a: 1 }, { a: 1, b: 2n }), { path: 'b', ours: '(absent)', real: '2' });
});
