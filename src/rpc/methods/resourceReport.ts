// lumen_resourceReport: per contract and function, what the network applied from a ledger (or since
// a snapshot of the standalone network) to the latest: calls with the host's instructions and
// memory (min/median/max), storage calls, events; and, for the functions transactions called at the
// top, entries and bytes read and written, events size, rent and fees charged (to the stroop, from
// the stored results). JSON, and Markdown for a CI diff. Read-only: it re-executes stored
// transactions (src/trace/resourceReport.ts) and writes nothing.
import { invalidParams } from '../errors.ts';
import type { Method } from './types.ts';
import { networkIdOf } from '../../xdr/codec.ts';
import { MAX_REPORTED_TRANSACTIONS, reportMarkdown, resourceReport as buildReport } from '../../trace/resourceReport.ts';
import { NotTraceable } from '../../trace/reexecution.ts';
import { snapshotLedgerOf } from '../../standalone/snapshots.ts';
import { tracingOf } from '../../trace/tracing.ts';
import { arrayOf, object, optional, uint32 } from './shared/schemas.ts';
import type { JsonSchema } from './types.ts';

const count: JsonSchema = { type: 'integer', minimum: 0 };
const stroops: JsonSchema = { type: 'string', pattern: '^[0-9]+$' };
const spread = object({ min: count, median: count, max: count });

const reportSchema = object({
  fromLedger: uint32, toLedger: uint32, transactions: count, reproduced: count, totalFeeCharged: stroops, totalRentCharged: stroops,
  functions: arrayOf(object({
    contract: { type: 'string' }, function: { type: 'string' }, calls: count, cpuInstructions: spread, memoryBytes: spread,
    storageReads: count, storageWrites: count, events: count, transactions: count, failedTransactions: count,
    entriesRead: count, entriesWritten: count, bytesRead: count, bytesWritten: count, eventsSizeBytes: count,
    rentCharged: stroops, feeCharged: stroops,
  })),
});

export const resourceReport: Method = {
  name: 'lumen_resourceReport',
  strictParams: true,
  paramsSchema: {
    type: 'object',
    properties: {
      startLedger: { type: 'integer', minimum: 1, description: 'the first ledger reported' },
      endLedger: { type: 'integer', minimum: 1, description: 'the last ledger reported (default: the latest)' },
      snapshotId: { type: 'string', description: 'standalone network: report what was applied since this snapshot (lumen_snapshot)' },
      format: { enum: ['json', 'markdown'], description: 'markdown: also a Markdown table (default json)' },
    },
  },
  doc: {
    summary: 'Per contract and function: calls, host-metered CPU and memory, reads, writes, events, rent and fees charged since a ledger or a snapshot',
    description: `Re-executes every Soroban transaction in the range with the host's trace on (at most ${MAX_REPORTED_TRANSACTIONS}). `
      + 'Transaction-level resources and fees go to the function the transaction called at the top. See docs/tracing.md.',
    result: { name: 'ResourceReport', schema: object({ report: reportSchema, markdown: optional({ type: 'string' }) }) },
  },
  async handler(params, ctx, call) {
    const latest = ctx.store.latestLedger()?.sequence;
    if (latest === undefined) throw invalidParams('the node holds no ledger yet');
    let from: number;
    if (typeof params.snapshotId === 'string') {
      if (params.startLedger !== undefined) throw invalidParams('give startLedger or snapshotId, not both');
      const at = ctx.dev ? snapshotLedgerOf(ctx.dev, ctx.config, params.snapshotId) : undefined;
      if (at === undefined) throw invalidParams(ctx.dev ? `no snapshot ${params.snapshotId} is kept` : 'snapshots exist only on a standalone network');
      from = at + 1;
    } else if (typeof params.startLedger === 'number') {
      from = params.startLedger;
    } else {
      throw invalidParams('give startLedger or snapshotId');
    }
    const to = typeof params.endLedger === 'number' ? Math.min(params.endLedger, latest) : latest;
    const oldest = ctx.store.entryHistoryOldest() ?? latest;
    if (from - 1 < oldest) throw invalidParams(`startLedger must be above ${oldest}: tracing needs the state of the ledger before it (the entry history starts at ${oldest})`);
    if (from > to + 1) throw invalidParams(`startLedger ${from} is after ledger ${to}`);
    return ctx.heavy.run(call, async () => {
      try {
        const report = await buildReport(ctx.store, networkIdOf(ctx.config.networkPassphrase), { fromLedger: from, toLedger: to },
          tracingOf(ctx.store).appliers, () => call.checkpoint());
        return params.format === 'markdown' ? { report, markdown: reportMarkdown(report) } : { report };
      } catch (e) {
        if (e instanceof RangeError || e instanceof NotTraceable) throw invalidParams(e.message);
        throw e;
      }
    });
  },
};
