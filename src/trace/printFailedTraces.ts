// --print-traces: the standalone network prints the trace of every transaction that fails, as it is
// stored (like Anvil's flag of that name), so a developer sees the failing frame without asking.
import type { Logger } from 'pino';
import type { LedgerListener } from '../ingest/ledgerFeed.ts';
import type { StoreReader } from '../store/types.ts';
import { traceStoredTransaction } from './reexecution.ts';
import { renderTrace } from './renderTrace.ts';
import { tracingOf } from './tracing.ts';

export function printFailedTraces(store: StoreReader, networkId: Uint8Array, write: (text: string) => void, logger: Logger): LedgerListener {
  const { appliers } = tracingOf(store);
  return (ledgers) => {
    for (const l of ledgers) {
      for (const tx of l.transactions) {
        if (tx.successful) continue;
        try {
          write(renderTrace(traceStoredTransaction(store, networkId, tx.hash, appliers)));
        } catch (e) {
          logger.warn({ err: e, ledger: l.ledger.sequence }, 'could not trace a failed transaction');
        }
      }
    }
  };
}
