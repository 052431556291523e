// The events a ledger's metas carry, cut out of them: per transaction the lists getTransaction
// serves, and per ledger the rows getEvents' index keeps.
import { xdr } from '../xdr/xdr.ts';
import { toBase64 } from '../xdr/codec.ts';
import { ledgerEventRows } from './eventRows.ts';
import type { EventRow, TransactionEvents } from './types.ts';

type TxResultMeta = xdr.TransactionResultMetaWire | xdr.TransactionResultMetaV1Wire;

const b64 = <T>(schema: { encode(v: T): Uint8Array }) => (v: T): string => toBase64(schema.encode(v));
const contractEventB64 = b64(xdr.ContractEvent.schema);
const diagnosticEventB64 = b64(xdr.DiagnosticEvent.schema);
const transactionEventB64 = b64(xdr.TransactionEvent.schema);

/** The event lists getTransaction serves, cut out once at ingest so reads never decode meta. */
export function eventsOf(m: xdr.TransactionMetaWire): TransactionEvents {
  if (m.v === 4) {
    return {
      transactionEventsXdr: m.v4.events.map(transactionEventB64),
      contractEventsXdr: m.v4.operations.map((o) => o.events.map(contractEventB64)),
      diagnosticEventsXdr: m.v4.diagnosticEvents.map(diagnosticEventB64),
    };
  }
  if (m.v === 3 && m.v3.sorobanMeta) {
    return {
      transactionEventsXdr: [],
      contractEventsXdr: [m.v3.sorobanMeta.events.map(contractEventB64)],
      diagnosticEventsXdr: m.v3.sorobanMeta.diagnosticEvents.map(diagnosticEventB64),
    };
  }
  return { transactionEventsXdr: [], contractEventsXdr: [], diagnosticEventsXdr: [] };
}

/**
 * The events of a stored LedgerCloseMeta, for filling the events table of ledgers ingested before
 * it existed. Needs no envelopes: events come from the metas, in application order.
 */
export function ledgerEventsFromMeta(bytes: Uint8Array): EventRow[] {
  const lcm = xdr.LedgerCloseMeta.schema.decode(bytes);
  const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
  const processing: TxResultMeta[] = body.txProcessing;
  return ledgerEventRows(processing.map((p, i) => ({ applicationOrder: i + 1, events: eventsOf(p.txApplyProcessing) })));
}
