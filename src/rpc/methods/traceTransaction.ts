// lumen_traceTransaction: re-executes a transaction the node holds, on the state before it, with the
// Soroban host's trace on, and answers its trace (src/trace/types.ts): the invocation tree with each
// frame's metered cost, storage calls, events and authorizations, the state diff of each operation,
// and the fee in parts. `reproduced` says whether the re-executed result and meta equal the stored
// ones byte for byte. Needs the state at the ledger before the transaction's: the entry history.
// Read-only, so open to every caller, as simulateTransaction is; heavy work (rpc/heavyWork.ts).
import { invalidParams } from '../errors.ts';
import type { Method } from './types.ts';
import { parseTransactionHash } from './shared/transactionHash.ts';
import { networkIdOf } from '../../xdr/codec.ts';
import { NotTraceable } from '../../trace/reexecution.ts';
import { tracingOf } from '../../trace/tracing.ts';
import { transactionTraceSchema } from './shared/traceSchema.ts';

export const traceTransaction: Method = {
  name: 'lumen_traceTransaction',
  strictParams: true,
  paramsSchema: {
    type: 'object',
    properties: { hash: { type: 'string', description: 'hex hash of a transaction this node holds' } },
    required: ['hash'],
  },
  doc: {
    summary: 'Re-executes a stored transaction with the host\'s trace on: call tree, costs, state diffs, auth, fee parts',
    description: 'The trace is of a re-execution on the state before the transaction (the previous ledger\'s, from the entry history, '
      + 'plus its own ledger\'s earlier changes); `reproduced` says whether the result and meta equal the stored ones byte for byte. '
      + 'See docs/tracing.md.',
    params: { hash: { required: true } },
    result: { name: 'TransactionTrace', schema: transactionTraceSchema },
  },
  handler(params, ctx, call) {
    const hash = parseTransactionHash(params.hash as string); // the schema made it a string
    // a re-execution is heavy work: it takes a slot shared fairly between clients, as getLedgers does
    return ctx.heavy.run(call, async () => {
      try {
        // re-executed on a worker thread (the main thread only reads the store for it)
        const { workers, appliers } = tracingOf(ctx.store);
        return await workers.trace(ctx.store, networkIdOf(ctx.config.networkPassphrase), hash, appliers);
      } catch (e) {
        if (e instanceof NotTraceable) throw invalidParams(e.message);
        throw e;
      }
    });
  },
};
