// Names of operation types and result codes as stellar-core writes them (PAYMENT, txBAD_SEQ,
// opNO_ACCOUNT, MANAGE_SELL_OFFER_UNDERFUNDED), derived from the SDK's XDR enums.
import { xdr } from '@stellar/stellar-sdk';

interface EnumSchema { nameByValue: Map<number, string> }
interface UnionSchema { switchOn: EnumSchema; cases: Record<string, { arm?: { name: string; schema?: UnionSchema } }> }

/** createAccount -> CREATE_ACCOUNT */
const screaming = (camel: string): string => camel.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

const enumNames = (e: unknown): Map<number, string> => (e as { schema: EnumSchema }).schema.nameByValue;

export function operationTypeName(type: number): string {
  const name = enumNames(xdr.OperationType).get(type);
  return name ? screaming(name) : `OPERATION_TYPE_${type}`;
}

/** txBadSeq -> txBAD_SEQ, opNoAccount -> opNO_ACCOUNT */
const prefixed = (prefix: string, camel: string): string => prefix + screaming(camel.slice(prefix.length));

export function transactionCodeName(code: number): string {
  const name = enumNames(xdr.TransactionResultCode).get(code);
  return name ? prefixed('tx', name) : `tx(${code})`;
}

export function operationResultCodeName(code: number): string {
  const name = enumNames(xdr.OperationResultCode).get(code);
  return name ? prefixed('op', name) : `op(${code})`;
}

const trSchema = (xdr.OperationResultTr as unknown as { schema: UnionSchema }).schema;

/** The code of an operation's own result: PAYMENT_UNDERFUNDED, or opNO_ACCOUNT for a bare OperationResult code. */
export function operationOutcomeName(result: xdr.OperationResultWire): string {
  if (result.code !== 0) return operationResultCodeName(result.code);
  const arm = trSchema.cases[String(result.tr.type)]?.arm;
  const inner = arm && (result.tr as unknown as Record<string, { code: number }>)[arm.name];
  const name = inner && arm.schema?.switchOn.nameByValue.get(inner.code);
  return name ? screaming(name) : `${operationTypeName(result.tr.type)}(${inner?.code})`;
}

/** Whether an operation's own result is its type's success. */
export function operationSucceeded(result: xdr.OperationResultWire): boolean {
  if (result.code !== 0) return false;
  const arm = trSchema.cases[String(result.tr.type)]?.arm;
  const inner = arm && (result.tr as unknown as Record<string, { code: number }>)[arm.name];
  return inner?.code === 0;
}
