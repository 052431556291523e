// The per-transaction fields getTransaction and getTransactions share (the reference's
// TransactionDetails), in the reference's field order and omitempty rules.
import { xdr } from '@stellar/stellar-sdk';
import type { StoredTransaction } from '../../../store/types.ts';
import { toBase64, toHex } from '../../../xdr/codec.ts';
import { xdrJson, type XdrFormat } from './xdrFormat.ts';

export type TransactionStatus = 'SUCCESS' | 'FAILED' | 'NOT_FOUND';

export const statusOf = (tx: StoredTransaction): TransactionStatus => (tx.successful ? 'SUCCESS' : 'FAILED');

const fromBase64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));
const eventJson = (cls: typeof xdr.ContractEvent | typeof xdr.TransactionEvent | typeof xdr.DiagnosticEvent) =>
  (b64: string): unknown => xdrJson(cls, fromBase64(b64));

/** XDR (or JSON) fields of a found transaction: envelope, result, meta, diagnostic events, events. */
export function transactionXdrFields(tx: StoredTransaction, format: XdrFormat): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { diagnosticEventsXdr, transactionEventsXdr, contractEventsXdr } = tx.events;
  const events: Record<string, unknown> = {};
  if (format === 'json') {
    out.envelopeJson = xdrJson(xdr.TransactionEnvelope, tx.envelope);
    out.resultJson = xdrJson(xdr.TransactionResult, tx.result);
    out.resultMetaJson = xdrJson(xdr.TransactionMeta, tx.meta);
    if (diagnosticEventsXdr.length) out.diagnosticEventsJson = diagnosticEventsXdr.map(eventJson(xdr.DiagnosticEvent));
    if (transactionEventsXdr.length) events.transactionEventsJson = transactionEventsXdr.map(eventJson(xdr.TransactionEvent));
    if (contractEventsXdr.length) events.contractEventsJson = contractEventsXdr.map((op) => op.map(eventJson(xdr.ContractEvent)));
  } else {
    out.envelopeXdr = toBase64(tx.envelope);
    out.resultXdr = toBase64(tx.result);
    out.resultMetaXdr = toBase64(tx.meta);
    if (diagnosticEventsXdr.length) out.diagnosticEventsXdr = diagnosticEventsXdr;
    if (transactionEventsXdr.length) events.transactionEventsXdr = transactionEventsXdr;
    if (contractEventsXdr.length) events.contractEventsXdr = contractEventsXdr;
  }
  out.events = events;
  return out;
}

/** One getTransactions item. `createdAt` is a number here (a string in getTransaction). */
export function transactionInfo(tx: StoredTransaction, format: XdrFormat): Record<string, unknown> {
  return {
    status: statusOf(tx),
    txHash: toHex(tx.hash),
    applicationOrder: tx.applicationOrder,
    feeBump: tx.feeBump,
    ...transactionXdrFields(tx, format),
    ledger: tx.ledgerSequence,
    createdAt: tx.closeTime,
  };
}
