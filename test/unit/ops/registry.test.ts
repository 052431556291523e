import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { opHandlers, operationResultOf, retiredOperationTypes, supportedOperationTypes, validResultOf } from '../../../src/ledger/ops/index.ts';
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
  assert.deepEqual(supportedOperationTypes, [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]);
  for (const t of [9]) assert.equal(opHandlers[t], undefined);
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

test('Inflation is retired (core: supported before protocol 12 only) and deliberately has no handler', () => {
  assert.deepEqual(retiredOperationTypes.get(9), { name: 'INFLATION', supportedBefore: 12 });
  assert.equal(opHandlers[9], undefined);
});

test('a valid operation of a refused transaction carries its success placeholder; CreateClaimableBalance a zero balance id', () => {
  assert.deepEqual(validResultOf(14), { type: 14, createClaimableBalanceResult: { code: 0, balanceId: { type: 0, v0: new Uint8Array(32) } } });
  assert.deepEqual(validResultOf(15), { type: 15, claimClaimableBalanceResult: { code: 0 } });
  assert.deepEqual(validResultOf(19), { type: 19, clawbackResult: { code: 0 } });
  assert.deepEqual(validResultOf(20), { type: 20, clawbackClaimableBalanceResult: { code: 0 } });
  // each encodes as its XDR union arm
  for (const t of [14, 15, 19, 20]) xdr.OperationResult.schema.encode({ code: 0, tr: validResultOf(t) });
});
