// Names of operation types and result codes as stellar-core writes them (PAYMENT, txBAD_SEQ,
// opNO_ACCOUNT, MANAGE_SELL_OFFER_UNDERFUNDED): the XDR enums' own member names.
import type { UnionSchema } from '@stellar/js-xdr';
import { xdr } from '../xdr/xdr.ts';

export const operationTypeName = (type: number): string => xdr.OperationType.xdrNames.get(type) ?? `OPERATION_TYPE_${type}`;

export const transactionCodeName = (code: number): string => xdr.TransactionResultCode.xdrNames.get(code) ?? `tx(${code})`;

export const operationResultCodeName = (code: number): string => xdr.OperationResultCode.xdrNames.get(code) ?? `op(${code})`;

/** Per operation type: the OperationResultTr arm holding its own result, and that result's code names. */
const operationResults = new Map((xdr.OperationResultTr.schema as unknown as UnionSchema<unknown>).cases.map((c) => {
  const arm = c.arm as unknown as { name: string; schema: UnionSchema<unknown> };
  return [c.discriminant as number, { arm: arm.name, codes: xdr.xdrEnumNames(arm.schema.switchOn) }];
}));

/** The code of an operation's own result (its type's XxxResultCode), when it has one. */
function ownCode(result: xdr.OperationResultWire): number | undefined {
  if (result.code !== 0) return undefined;
  const arm = operationResults.get(result.tr.type)?.arm;
  return arm === undefined ? undefined : (result.tr as unknown as Record<string, { code: number }>)[arm]?.code;
}

/** The code of an operation's own result: PAYMENT_UNDERFUNDED, or opNO_ACCOUNT for a bare OperationResult code. */
export function operationOutcomeName(result: xdr.OperationResultWire): string {
  if (result.code !== 0) return operationResultCodeName(result.code);
  const code = ownCode(result);
  const name = code === undefined ? undefined : operationResults.get(result.tr.type)?.codes?.get(code);
  return name ?? `${operationTypeName(result.tr.type)}(${code})`;
}

/** Whether an operation's own result is its type's success. */
export const operationSucceeded = (result: xdr.OperationResultWire): boolean => ownCode(result) === 0;
