// sendTransaction on a followed network: the envelope goes to stellar-core's HTTP `/tx`, and core's
// verdict is mapped as the reference node maps it (reference-node.md section 6).
import { Reader } from '@stellar/js-xdr';
import { xdr } from '../xdr/xdr.ts';
import { SubmitterError, type SubmitResult, type SubmitStatus, type TransactionSubmitter } from './transactionSubmitter.ts';
import { networkIdOf, toBase64, type TransactionEnvelope } from '../xdr/codec.ts';
import { transactionHash } from '../xdr/transactions.ts';
import { SERVICE_ANSWER_CAP, readBodyCapped, textOf } from '../io/inputCaps.ts';

interface CoreTxResponse {
  exception?: string;
  status?: string;
  error?: string;              // base64 TransactionResult, status ERROR
  diagnostic_events?: string;  // base64 of an XDR array of DiagnosticEvent, status ERROR
}

const PASSED_THROUGH = new Set<SubmitStatus>(['PENDING', 'DUPLICATE', 'TRY_AGAIN_LATER']);

export class CoreSubmitter implements TransactionSubmitter {
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly networkId: Uint8Array;

  constructor(opts: { coreUrl: string; timeoutSeconds: number; networkPassphrase: string }) {
    this.url = opts.coreUrl.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutSeconds * 1000;
    this.networkId = networkIdOf(opts.networkPassphrase);
  }

  async submit(envelopeXdr: Uint8Array, envelope: TransactionEnvelope): Promise<SubmitResult> {
    const hash = transactionHash(this.networkId, envelope);
    const res = await fetch(`${this.url}/tx?blob=${encodeURIComponent(toBase64(envelopeXdr))}`, {
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new Error(`stellar-core /tx: HTTP ${res.status}`);
    const body = textOf(await readBodyCapped(res, SERVICE_ANSWER_CAP, 'stellar-core /tx answer'));
    return mapCoreResponse(JSON.parse(body) as CoreTxResponse, hash);
  }
}

export function mapCoreResponse(body: CoreTxResponse, hash: Uint8Array): SubmitResult {
  // core threw while handling the transaction, or answered a status the API does not know
  if (body.exception) throw new SubmitterError('received exception from stellar-core', body.exception);
  const status = body.status as SubmitStatus;
  if (PASSED_THROUGH.has(status)) return { status, hash };
  if (status !== 'ERROR') throw new SubmitterError('invalid status from stellar-core', `stellar-core answered status ${JSON.stringify(body.status)}`);
  return {
    status,
    hash,
    errorResult: body.error ? Buffer.from(body.error, 'base64') : undefined,
    diagnosticEvents: body.diagnostic_events ? splitDiagnosticEvents(Buffer.from(body.diagnostic_events, 'base64')) : [],
  };
}

/** Core sends the events as one XDR array; the API reports each event's XDR on its own. */
export function splitDiagnosticEvents(bytes: Uint8Array): Uint8Array[] {
  const reader = new Reader(bytes);
  const count = reader.readUint32('diagnostic_events');
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const start = reader.offset;
    xdr.DiagnosticEvent.schema._read(reader, `diagnostic_events[${i}]`);
    out.push(bytes.subarray(start, reader.offset));
  }
  if (reader.remaining !== 0) throw new Error(`diagnostic_events: ${reader.remaining} bytes after ${count} events`);
  return out;
}

/** The other direction, for a node that plays core's /tx (the standalone network). */
export function joinDiagnosticEvents(events: Uint8Array[]): Uint8Array {
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, events.length);
  return Buffer.concat([head, ...events]);
}
