// sendTransaction: decode the envelope, hand it to the submitter (the standalone queue or a core
// node), and report the submitter's verdict with the latest ledger. It does not wait for inclusion.
// An undecodable or oversized envelope is -32602 "invalid_xdr".
import { internalError, invalidParams } from '../errors.ts';
import { decodeBase64Std, toBase64, toHex, type TransactionEnvelope } from '../../xdr/codec.ts';
import { decodeEnvelope } from '../../xdr/transactions.ts';
import type { Method } from './types.ts';
import { MAX_ENVELOPE_BYTES, SubmitterError, type SubmitResult } from '../../submit/transactionSubmitter.ts';
import { parseXdrFormat, xdrJson, type XdrFormat } from './shared/xdrFormat.ts';
import {
  hexHash, ledgerSequence, object, optional, unixTimeString, xdrFormatParam, xdrList, xdrValue,
} from './shared/schemas.ts';

const STATUS_NAMES = ['PENDING', 'DUPLICATE', 'TRY_AGAIN_LATER', 'ERROR'];
const STATUSES = new Set(STATUS_NAMES);

function decodeTransaction(text: unknown): { bytes: Uint8Array; envelope: TransactionEnvelope } {
  const bytes = typeof text === 'string' ? decodeBase64Std(text) : undefined;
  if (bytes && bytes.length > 0 && bytes.length <= MAX_ENVELOPE_BYTES) {
    try {
      return { bytes, envelope: decodeEnvelope(bytes) };
    } catch { /* fall through */ }
  }
  throw invalidParams('invalid_xdr');
}

function errorFields(result: SubmitResult, format: XdrFormat): Record<string, unknown> {
  const events = result.diagnosticEvents ?? [];
  const out: Record<string, unknown> = {};
  if (format === 'json') {
    if (result.errorResult) out.errorResultJson = xdrJson('TransactionResult', result.errorResult);
    if (events.length) out.diagnosticEventsJson = events.map((e) => xdrJson('DiagnosticEvent', e));
  } else {
    if (result.errorResult) out.errorResultXdr = toBase64(result.errorResult);
    if (events.length) out.diagnosticEventsXdr = events.map(toBase64);
  }
  return out;
}

export const sendTransaction: Method = {
  name: 'sendTransaction',
  light: true,
  paramsSchema: {
    type: 'object',
    properties: {
      transaction: { type: 'string', description: 'a signed TransactionEnvelope (base64 XDR)' },
      xdrFormat: xdrFormatParam,
    },
  },
  doc: {
    summary: 'Submits a transaction; does not wait for it to be applied',
    description: 'Poll getTransaction with the hash for the outcome. ERROR carries the TransactionResult and, '
      + 'for a refused Soroban transaction, the diagnostic events.',
    params: { transaction: { required: true } },
    result: {
      name: 'sendTransactionResult',
      schema: object({
        errorResultXdr: optional(xdrValue('TransactionResult', 'errorResultJson')),
        diagnosticEventsXdr: optional(xdrList('DiagnosticEvent', 'diagnosticEventsJson')),
        status: { type: 'string', enum: STATUS_NAMES },
        hash: { ...hexHash, description: 'the network hash of the envelope (outer hash of a fee bump)' },
        latestLedger: ledgerSequence,
        latestLedgerCloseTime: unixTimeString,
      }),
    },
  },
  async handler(params, ctx) {
    const format = parseXdrFormat(params.xdrFormat);
    const { bytes, envelope } = decodeTransaction(params.transaction);
    // Read before submitting, as the reference does; an empty store reports ledger 0.
    const latest = ctx.store.ledgerRange()?.latest ?? { sequence: 0, closeTime: 0 };

    let result: SubmitResult;
    try {
      result = await ctx.submitter.submit(bytes, envelope);
    } catch (e) {
      if (e instanceof SubmitterError) throw internalError(e.answer);
      throw internalError('could not submit transaction to stellar-core');
    }
    if (!STATUSES.has(result.status)) throw internalError('invalid status from stellar-core');

    return {
      ...(result.status === 'ERROR' ? errorFields(result, format) : {}),
      status: result.status,
      hash: toHex(result.hash),
      latestLedger: latest.sequence,
      latestLedgerCloseTime: String(latest.closeTime),
    };
  },
};
