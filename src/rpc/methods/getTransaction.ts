// getTransaction: one transaction by hash (inner or outer hash of a fee bump). `txHash` echoes the
// request; close times and `createdAt` are strings. An unknown hash is a result with status
// NOT_FOUND that still carries the reference's zero-valued detail fields.
import { JsonChunks } from '../rawJson.ts';
import type { Method } from './types.ts';
import { parseTransactionHash } from './shared/transactionHash.ts';
import { requireLedgerRange } from './shared/ledgerRange.ts';
import {
  statusOf, transactionStatusSchema, transactionXdrMembers, withTransactionFields,
} from './shared/transactionInfo.ts';
import { parseXdrFormat } from './shared/xdrFormat.ts';
import {
  described, ledgerSequence, object, uint32, unixTimeString, xdrFormatParam,
} from './shared/schemas.ts';

export const getTransaction: Method = {
  name: 'getTransaction',
  light: true,
  paramsSchema: {
    type: 'object',
    properties: {
      hash: { type: 'string', description: 'hex hash of the transaction (inner or outer hash of a fee bump)' },
      xdrFormat: xdrFormatParam,
    },
  },
  doc: {
    summary: 'One transaction by hash, or NOT_FOUND',
    description: 'A transaction outside the stored window is NOT_FOUND; the detail members then hold zero values.',
    params: { hash: { required: true } },
    result: {
      name: 'getTransactionResult',
      schema: object({
        latestLedger: ledgerSequence,
        latestLedgerCloseTime: unixTimeString,
        oldestLedger: ledgerSequence,
        oldestLedgerCloseTime: unixTimeString,
        status: transactionStatusSchema,
        txHash: { type: 'string', pattern: '^[0-9a-fA-F]{64}$', description: 'the hash asked for, as sent' },
        applicationOrder: described(uint32, '1-based position of the transaction in its ledger; 0 when NOT_FOUND'),
        feeBump: { type: 'boolean' },
        ...transactionXdrMembers(false),
        ledger: described(ledgerSequence, 'its ledger; 0 when NOT_FOUND'),
        createdAt: described(unixTimeString, 'close time of its ledger; "0" when NOT_FOUND'),
      }),
    },
  },
  handler(params, ctx) {
    const format = parseXdrFormat(params.xdrFormat);
    const requested = typeof params.hash === 'string' ? params.hash : '';
    const hash = parseTransactionHash(requested);

    // The transaction first, then the range, so that latestLedger >= ledger.
    const tx = ctx.store.transactionByHash(hash);
    const range = requireLedgerRange(ctx.store, 'unable to get ledger range: ');
    const head = {
      latestLedger: range.latest.sequence,
      latestLedgerCloseTime: String(range.latest.closeTime),
      oldestLedger: range.oldest.sequence,
      oldestLedgerCloseTime: String(range.oldest.closeTime),
    };
    if (!tx) {
      return {
        ...head, status: 'NOT_FOUND', txHash: requested, applicationOrder: 0, feeBump: false,
        events: {}, ledger: 0, createdAt: '0',
      };
    }
    const answer = withTransactionFields(tx, format, ctx.heavy, (fields) => ({
      ...head,
      status: statusOf(tx),
      txHash: requested,
      applicationOrder: tx.applicationOrder,
      feeBump: tx.feeBump,
      ...fields,
      ledger: tx.ledgerSequence,
      createdAt: String(tx.closeTime),
    }));
    return answer instanceof Promise ? answer.then((parts) => new JsonChunks(parts)) : answer;
  },
};
