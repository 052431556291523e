// getHealth: "healthy" plus the stored range, or -32603 when nothing is stored or the latest ledger
// is too old. The reference returns these errors as jrpc2.Error values, which puts the code in
// brackets inside the message; reproduced here. Close times are strings (go-stellar-sdk v0.7.0 tags
// the v27.1 fields `,string`).
import { ErrorCode, RpcError } from '../errors.ts';
import type { Method } from './types.ts';
import { formatGoDuration, roundToSeconds } from './shared/go.ts';
import { DB_EMPTY } from './shared/ledgerRange.ts';
import { ledgerSequence, object, unixTimeString, uint32 } from './shared/schemas.ts';

const unhealthy = (message: string): RpcError =>
  new RpcError(ErrorCode.internalError, `[${ErrorCode.internalError}] ${message}`);

export const getHealth: Method = {
  name: 'getHealth',
  light: true,
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'Whether the node is healthy, and the ledgers it stores',
    description: 'Answers -32603 when no ledger is stored yet or the latest one closed too long ago '
      + '(--max-healthy-ledger-latency).',
    result: {
      name: 'getHealthResult',
      schema: object({
        status: { type: 'string', enum: ['healthy'] },
        latestLedger: ledgerSequence,
        latestLedgerCloseTime: unixTimeString,
        oldestLedger: ledgerSequence,
        oldestLedgerCloseTime: unixTimeString,
        ledgerRetentionWindow: { ...uint32, description: 'ledgers kept (--history-retention-window)' },
      }),
    },
  },
  handler(_params, ctx) {
    const range = ctx.store.ledgerRange();
    if (!range || range.latest.sequence < 1) throw unhealthy(`data stores are not initialized: ${DB_EMPTY}`);

    const maxLatency = ctx.config.maxHealthyLedgerLatency;
    const latencyMs = Date.now() - range.latest.closeTime * 1000;
    if (latencyMs > maxLatency * 1000) {
      throw unhealthy(`latency (${formatGoDuration(roundToSeconds(latencyMs))}) since last known ledger closed `
        + `is too high (>${formatGoDuration(maxLatency)})`);
    }
    return {
      status: 'healthy',
      latestLedger: range.latest.sequence,
      latestLedgerCloseTime: String(range.latest.closeTime),
      oldestLedger: range.oldest.sequence,
      oldestLedgerCloseTime: String(range.oldest.closeTime),
      ledgerRetentionWindow: ctx.config.historyRetentionWindow,
    };
  },
};
