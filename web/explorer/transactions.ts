// Reading a transaction in the crate's JSON form: its envelope's parts, its operations in a few
// words, its result code.
import { arm, words } from './values.ts';
import { encodeStrkey, hexToBytes } from './strkey.ts';

export interface EnvelopeParts {
  /** The (inner) Transaction body: source_account, fee, seq_num, cond, memo, operations, ext. */
  tx: any;
  signatures: unknown[];
  /** A fee bump's outer part. */
  feeBump?: { feeSource: string; fee: string; signatures: unknown[] };
}

export function envelopeParts(envelope: any): EnvelopeParts {
  const [kind, value] = arm(envelope);
  if (kind === 'tx_fee_bump') {
    const inner = value.tx.inner_tx;
    const [, innerValue] = arm(inner);
    return { tx: innerValue.tx, signatures: innerValue.signatures ?? [], feeBump: { feeSource: value.tx.fee_source, fee: String(value.tx.fee), signatures: value.signatures ?? [] } };
  }
  if (kind === 'tx_v0') {
    // a v0 envelope names its source by its ed25519 key
    const tx = { ...value.tx, source_account: encodeStrkey('account', hexToBytes(value.tx.source_account_ed25519)) };
    return { tx, signatures: value.signatures ?? [] };
  }
  return { tx: value?.tx ?? {}, signatures: value?.signatures ?? [] };
}

/** An operation's type and, for a contract call, what it calls. */
export function operationSummary(op: any): string {
  const [type, body] = arm(op?.body);
  if (type === 'invoke_host_function') {
    const [fnType, fn] = arm(body.host_function);
    if (fnType === 'invoke_contract') return `call ${fn.function_name}`;
    return words(fnType);
  }
  return words(type);
}

/** The operations of a transaction in a few words: "payment", "call increment", "3 operations: …". */
export function operationsSummary(tx: any): string {
  const ops: any[] = tx?.operations ?? [];
  if (ops.length === 1) return operationSummary(ops[0]);
  const kinds = [...new Set(ops.map(operationSummary))];
  return `${ops.length} operations: ${kinds.slice(0, 3).join(', ')}${kinds.length > 3 ? ', …' : ''}`;
}

/** The result code of a TransactionResult (tx_success, tx_failed, tx_bad_seq, a fee bump's inner code). */
export function resultCode(result: any): string {
  const [code, value] = arm(result?.result);
  if (code === 'tx_fee_bump_inner_success' || code === 'tx_fee_bump_inner_failed') {
    const [inner] = arm(value?.result?.result);
    return `${code} (${inner})`;
  }
  return code;
}

/** The operation results of a TransactionResult, when it has them. */
export function operationResults(result: any): unknown[] {
  let [code, value] = arm(result?.result);
  if (code === 'tx_fee_bump_inner_success' || code === 'tx_fee_bump_inner_failed') [code, value] = arm(value?.result?.result);
  return Array.isArray(value) ? value : [];
}

/** An operation result's path to its innermost code: "invoke host function: success". */
export function operationResultCode(r: unknown): string {
  const path: string[] = [];
  let v: unknown = r;
  for (let depth = 0; depth < 3; depth++) {
    const [name, inner] = arm(v);
    if (name === '') break;
    if (name !== 'op_inner') path.push(words(name));
    // a code without a value ends the path ("underfunded"); a success's value (a hash, a list) does not belong in it
    if (typeof inner === 'string' && /^[a-z_]+$/.test(inner)) path.push(words(inner));
    if (inner === undefined || inner === null || typeof inner !== 'object') break;
    v = inner;
  }
  return path.join(': ');
}

export interface TxSummary {
  hash: string;
  ledger: number;
  applicationOrder: number;
  status: string;
  source: string;
  operations: string;
  feeCharged: string;
  createdAt: number;
}

/** The few fields a list shows, out of a getTransactions item (xdrFormat json). */
export function summarize(item: any): TxSummary {
  const parts = envelopeParts(item.envelopeJson);
  return {
    hash: item.txHash, ledger: item.ledger, applicationOrder: item.applicationOrder, status: item.status,
    source: parts.feeBump?.feeSource ?? parts.tx.source_account ?? '',
    operations: operationsSummary(parts.tx), feeCharged: String(item.resultJson?.fee_charged ?? ''), createdAt: Number(item.createdAt),
  };
}
