import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, accountId, innerCode, runOp } from './support.ts';

const alice = accountId('alice');
const md = (name: string | Uint8Array, value: Uint8Array | null): xdr.OperationBodyWire =>
  ({ type: 10, manageDataOp: { dataName: new xdr.XdrString(name), dataValue: value } });

test('ManageData creates, replaces and deletes an entry, tracking the sub-entry', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(state, md('config', new Uint8Array([1, 2, 3])), alice).outcome), 0);
  assert.deepEqual([...state.data(alice, 'config')!.dataValue], [1, 2, 3]);
  assert.equal(state.account(alice)!.numSubEntries, 1);

  assert.equal(innerCode(runOp(state, md('config', new Uint8Array([9])), alice).outcome), 0);
  assert.deepEqual([...state.data(alice, 'config')!.dataValue], [9]);
  assert.equal(state.account(alice)!.numSubEntries, 1, 'replacing takes no new sub-entry');

  assert.equal(innerCode(runOp(state, md('config', null), alice).outcome), 0);
  assert.equal(state.data(alice, 'config'), undefined);
  assert.equal(state.account(alice)!.numSubEntries, 0);
});

test('ManageData NAME_NOT_FOUND when deleting a missing entry', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  const r = runOp(state, md('nope', null), alice);
  assert.equal(r.outcome.success, false);
  assert.equal(innerCode(r.outcome), -2);
});

test('ManageData LOW_RESERVE at the reserve edge', () => {
  const state = new MemoryState([accountEntry(alice, 3n * BigInt(BASE_RESERVE) - 1n)]);
  assert.equal(innerCode(runOp(state, md('k', new Uint8Array([1])), alice).outcome), -3);
  assert.equal(state.account(alice)!.numSubEntries, 0);
  state.put(accountEntry(alice, 3n * BigInt(BASE_RESERVE)));
  assert.equal(innerCode(runOp(state, md('k', new Uint8Array([1])), alice).outcome), 0);
});

test('ManageData INVALID_NAME: empty or non-printable names', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  for (const name of ['', 'tab\there', new Uint8Array([0x61, 0x80])]) {
    const r = runOp(state, md(name, new Uint8Array([1])), alice);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -4);
  }
});
