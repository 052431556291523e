import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { opHandlers, operationResultOf, supportedOperationTypes } from '../../../src/ledger/ops/index.ts';
import type { OpContext } from '../../../src/ledger/ops/types.ts';
import { MemoryState, XLM, accountEntry, accountId, ledgerContext, muxed } from './support.ts';

const alice = accountId('alice');
const bob = accountId('bob');

function ctxFor(state: MemoryState, source = alice): OpContext {
  return {
    ltx: new LedgerTxn(state, 100).nest(), ledger: ledgerContext(), sourceMuxed: muxed(source), source,
    txMemo: { type: 0 }, events: [], opIndex: 0, txSeqNum: 1n, txSourceId: source,
  };
}

test('registry lists exactly the supported classic and Soroban operations', () => {
  assert.deepEqual(supportedOperationTypes, [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 16, 17, 18, 21, 24, 25, 26]);
  for (const t of [9, 14, 15, 19, 20, 22, 23]) assert.equal(opHandlers[t], undefined);
});

test('operationResultOf maps inner results and top-level codes', () => {
  const tr: xdr.OperationResultTrWire = { type: 1, paymentResult: { code: 0 } };
  assert.deepEqual(operationResultOf({ tr, success: true }), { code: 0, tr });
  assert.deepEqual(operationResultOf({ tr, success: false, code: -4 }), { code: -4 });
});

test('apply answers opNO_ACCOUNT when the source account is gone', () => {
  const state = new MemoryState([accountEntry(bob, 10n * XLM)]);
  const body: xdr.OperationBodyWire = { type: 1, paymentOp: { destination: muxed(bob), asset: { type: 0 }, amount: 1n } };
  const out = opHandlers[1]!.apply(body, ctxFor(state));
  assert.equal(out.success, false);
  assert.deepEqual(operationResultOf(out), { code: -2 });
  // The placeholder tr is still a well-formed result of the right operation type.
  assert.equal(out.tr.type, 1);
});

test('apply re-runs the operation\'s validity checks (as stellar-core does at apply time)', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM), accountEntry(bob, 10n * XLM)]);
  const body: xdr.OperationBodyWire = { type: 1, paymentOp: { destination: muxed(bob), asset: { type: 0 }, amount: 0n } };
  const out = opHandlers[1]!.apply(body, ctxFor(state));
  assert.deepEqual(operationResultOf(out), { code: 0, tr: { type: 1, paymentResult: { code: -1 } } });
});
