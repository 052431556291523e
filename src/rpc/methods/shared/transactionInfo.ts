// The per-transaction fields getTransaction and getTransactions share (the reference's
// TransactionDetails), in the reference's field order and omitempty rules. With xdrFormat "json" the
// XDR is rendered off the event loop (src/rpc/xdrJson.ts; a transaction's meta can be large).
import type { StoredTransaction } from '../../../store/types.ts';
import { toBase64, toHex } from '../../../xdr/codec.ts';
import type { HeavyWork } from '../../heavyWork.ts';
import { EncodedJson, jsonParts, type JsonPart } from '../../rawJson.ts';
import type { XdrJsonItem } from '../../xdrJson.ts';
import type { XdrFormat } from './xdrFormat.ts';
import type { JsonSchema } from '../types.ts';
import {
  described, hexHash, ledgerSequence, object, optional, uint32, unixTime, xdrList, xdrValue,
} from './schemas.ts';

export type TransactionStatus = 'SUCCESS' | 'FAILED' | 'NOT_FOUND';

export const statusOf = (tx: StoredTransaction): TransactionStatus => (tx.successful ? 'SUCCESS' : 'FAILED');

const fromBase64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

/** XDR fields of a found transaction as base64: envelope, result, meta, diagnostic events, events. */
function base64Fields(tx: StoredTransaction): Record<string, unknown> {
  const { diagnosticEventsXdr, transactionEventsXdr, contractEventsXdr } = tx.events;
  const out: Record<string, unknown> = {
    envelopeXdr: toBase64(tx.envelope),
    resultXdr: toBase64(tx.result),
    resultMetaXdr: toBase64(tx.meta),
  };
  if (diagnosticEventsXdr.length) out.diagnosticEventsXdr = diagnosticEventsXdr;
  const events: Record<string, unknown> = {};
  if (transactionEventsXdr.length) events.transactionEventsXdr = transactionEventsXdr;
  if (contractEventsXdr.length) events.contractEventsXdr = contractEventsXdr;
  out.events = events;
  return out;
}

/** The same fields as JSON (…Json instead of …Xdr), their values rendered off the event loop. */
async function jsonFields(tx: StoredTransaction, heavy: HeavyWork): Promise<Record<string, unknown>> {
  const { diagnosticEventsXdr, transactionEventsXdr, contractEventsXdr } = tx.events;
  const items: XdrJsonItem[] = [
    ['TransactionEnvelope', tx.envelope], ['TransactionResult', tx.result], ['TransactionMeta', tx.meta],
    ...diagnosticEventsXdr.map((e): XdrJsonItem => ['DiagnosticEvent', fromBase64(e)]),
    ...transactionEventsXdr.map((e): XdrJsonItem => ['TransactionEvent', fromBase64(e)]),
    ...contractEventsXdr.flat().map((e): XdrJsonItem => ['ContractEvent', fromBase64(e)]),
  ];
  const rendered = (await heavy.renderJson(items)).map((bytes) => new EncodedJson(bytes));
  let i = 3;
  const take = (n: number): EncodedJson[] => rendered.slice(i, (i += n));
  const out: Record<string, unknown> = { envelopeJson: rendered[0], resultJson: rendered[1], resultMetaJson: rendered[2] };
  const diagnostic = take(diagnosticEventsXdr.length);
  if (diagnostic.length) out.diagnosticEventsJson = diagnostic;
  const events: Record<string, unknown> = {};
  const transactionEvents = take(transactionEventsXdr.length);
  if (transactionEvents.length) events.transactionEventsJson = transactionEvents;
  if (contractEventsXdr.length) events.contractEventsJson = contractEventsXdr.map((op) => take(op.length));
  out.events = events;
  return out;
}

/**
 * An answer built around a found transaction's XDR fields (envelope, result, meta, diagnostic
 * events, events) by `build`. As base64 it is a plain value, made at once (getTransaction is polled:
 * its hot path stays synchronous and JSON.stringify'd); as JSON the fields are rendered off the
 * event loop and the answer comes as pieces with them spliced in.
 */
export function withTransactionFields<T>(tx: StoredTransaction, format: XdrFormat, heavy: HeavyWork,
  build: (fields: Record<string, unknown>) => T): T | Promise<JsonPart[]> {
  if (format !== 'json') return build(base64Fields(tx));
  return jsonFields(tx, heavy).then((fields) => jsonParts(build(fields)));
}

/** One getTransactions item. `createdAt` is a number here (a string in getTransaction). */
export function transactionInfo(tx: StoredTransaction, format: XdrFormat, heavy: HeavyWork): string | Promise<JsonPart[]> {
  const item = withTransactionFields(tx, format, heavy, (fields) => ({
    status: statusOf(tx),
    txHash: toHex(tx.hash),
    applicationOrder: tx.applicationOrder,
    feeBump: tx.feeBump,
    ...fields,
    ledger: tx.ledgerSequence,
    createdAt: tx.closeTime,
  }));
  return item instanceof Promise ? item : JSON.stringify(item);
}

// ---- schemas (rpc.discover) -------------------------------------------------------------------

export const transactionStatusSchema: JsonSchema = { type: 'string', enum: ['SUCCESS', 'FAILED', 'NOT_FOUND'] };

/** The XDR members of a found transaction (TransactionDetails), in wire order. */
export function transactionXdrMembers(required: boolean): Record<string, JsonSchema> {
  const present = (s: JsonSchema): JsonSchema => (required ? s : optional(s));
  return {
    envelopeXdr: present(xdrValue('TransactionEnvelope', 'envelopeJson')),
    resultXdr: present(xdrValue('TransactionResult', 'resultJson')),
    resultMetaXdr: present(xdrValue('TransactionMeta', 'resultMetaJson')),
    diagnosticEventsXdr: optional(xdrList('DiagnosticEvent', 'diagnosticEventsJson')),
    events: object({
      transactionEventsXdr: optional(xdrList('TransactionEvent', 'transactionEventsJson')),
      contractEventsXdr: optional(xdrList('ContractEvent', 'contractEventsJson', 2)),
    }, 'the transaction\'s events (CAP-67): transaction-level ones, and contract events per operation; empty kinds are left out'),
  };
}

/** One getTransactions item: `createdAt` is a number here. */
export const transactionInfoSchema: JsonSchema = object({
  status: transactionStatusSchema,
  txHash: hexHash,
  applicationOrder: described(uint32, '1-based position of the transaction in its ledger'),
  feeBump: { type: 'boolean' },
  ...transactionXdrMembers(true),
  ledger: ledgerSequence,
  createdAt: unixTime,
});
