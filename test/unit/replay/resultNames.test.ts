// Operation types and result codes named as stellar-core writes them, from the XDR's own member names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationOutcomeName, operationResultCodeName, operationSucceeded, operationTypeName, transactionCodeName } from '../../../src/replay/resultNames.ts';
import type { xdr } from '../../../src/xdr/xdr.ts';

test('operation types and transaction and operation codes by their XDR names; unknown ones by number', () => {
  assert.equal(operationTypeName(1), 'PAYMENT');
  assert.equal(operationTypeName(25), 'EXTEND_FOOTPRINT_TTL');
  assert.equal(operationTypeName(99), 'OPERATION_TYPE_99');
  assert.equal(transactionCodeName(-5), 'txBAD_SEQ');
  assert.equal(transactionCodeName(1), 'txFEE_BUMP_INNER_SUCCESS');
  assert.equal(transactionCodeName(-99), 'tx(-99)');
  assert.equal(operationResultCodeName(-2), 'opNO_ACCOUNT');
  assert.equal(operationResultCodeName(-99), 'op(-99)');
});

test('an operation\'s outcome is its own result code, or the bare OperationResult code', () => {
  const payment = (code: number) => ({ code: 0, tr: { type: 1, paymentResult: { code } } }) as unknown as xdr.OperationResultWire;
  assert.equal(operationOutcomeName(payment(-2)), 'PAYMENT_UNDERFUNDED');
  assert.equal(operationSucceeded(payment(0)), true);
  assert.equal(operationSucceeded(payment(-2)), false);
  assert.equal(operationOutcomeName(payment(-77)), 'PAYMENT(-77)');
  const invoke = { code: 0, tr: { type: 24, invokeHostFunctionResult: { code: -2 } } } as unknown as xdr.OperationResultWire;
  assert.equal(operationOutcomeName(invoke), 'INVOKE_HOST_FUNCTION_TRAPPED');
  const noAccount = { code: -2 } as unknown as xdr.OperationResultWire;
  assert.equal(operationOutcomeName(noAccount), 'opNO_ACCOUNT');
  assert.equal(operationSucceeded(noAccount), false);
});
