import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import { MemoryState, XLM, accountEntry, accountId, innerCode, runOp } from './support.ts';
import { bumpSequence } from '../../../src/ledger/ops/bumpSequence.ts';

const alice = accountId('alice');
const bump = (bumpTo: bigint): Extract<xdr.OperationBodyWire, { type: 11 }> => ({ type: 11, bumpSequenceOp: { bumpTo } });

function seqStamp(acc: xdr.AccountEntryWire) {
  if (acc.ext.v !== 1 || acc.ext.v1.ext.v !== 2 || acc.ext.v1.ext.v2.ext.v !== 3) return undefined;
  return acc.ext.v1.ext.v2.ext.v3;
}

test('BumpSequence raises the sequence number and stamps seqLedger/seqTime', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM, { seqNum: 100n })]);
  const r = runOp(state, bump(5000n), alice, { ledger: { ledgerSeq: 321, closeTime: 999n } });
  assert.equal(innerCode(r.outcome), 0);
  const acc = state.account(alice)!;
  assert.equal(acc.seqNum, 5000n);
  assert.deepEqual(seqStamp(acc), { ext: { v: 0 }, seqLedger: 321, seqTime: 999n });
  assert.equal(bumpSequence.threshold(bump(1n)), 'low');
});

test('BumpSequence to a lower or equal number succeeds without changing seqNum (but stamps it)', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM, { seqNum: 100n })]);
  const r = runOp(state, bump(100n), alice, { ledger: { ledgerSeq: 400 } });
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.account(alice)!.seqNum, 100n);
  assert.equal(seqStamp(state.account(alice)!)!.seqLedger, 400);
  assert.equal(innerCode(runOp(state, bump(0n), alice).outcome), 0);
  assert.equal(state.account(alice)!.seqNum, 100n);
});

test('BumpSequence BAD_SEQ for a negative target', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM)]);
  const r = runOp(state, bump(-1n), alice);
  assert.equal(r.stage, 'checkValid');
  assert.equal(innerCode(r.outcome), -1);
});

test('BumpSequence up to INT64_MAX', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM)]);
  assert.equal(innerCode(runOp(state, bump(0x7fff_ffff_ffff_ffffn), alice).outcome), 0);
  assert.equal(state.account(alice)!.seqNum, 0x7fff_ffff_ffff_ffffn);
});
