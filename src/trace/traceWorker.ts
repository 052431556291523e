// The thread traceWorkers.ts hands re-executions to: the ledger's meta decoded, the engine and the
// host run, the trace built, all off the node's event loop. It has no store: the state it reads is
// what the main thread gathered (the transaction's read set, readSetOf). A read of anything else
// sends the transaction back, to be re-executed on the main thread, where the store is.
import { parentPort } from 'node:worker_threads';
import { NotTraceable, reexecute, type ReexecutionInput } from './reexecution.ts';
import { TraceAppliers } from './appliers.ts';
import type { TransactionTrace } from './types.ts';

export interface TraceRequest {
  id: number;
  input: ReexecutionInput;
  /** The read set's entries at the end of the previous ledger, by base64 key (null: none). */
  base: Array<[string, Uint8Array | null]>;
}

export interface TraceReply {
  id: number;
  trace?: TransactionTrace;
  /** A key outside the read set was read: re-execute where the store is. */
  missing?: boolean;
  error?: string;
  notTraceable?: boolean;
}

const appliers = new TraceAppliers();

parentPort?.on('message', ({ id, input, base }: TraceRequest) => {
  const known = new Map(base);
  let missing = false;
  const reader = (_keyXdr: Uint8Array, key: string): Uint8Array | undefined => {
    const entry = known.get(key);
    if (entry === undefined) missing = true; // the engine may catch what it throws: noted, not thrown
    return entry ?? undefined;
  };
  let reply: TraceReply;
  try {
    const trace = reexecute(input, reader, appliers);
    reply = missing ? { id, missing } : { id, trace };
  } catch (e) {
    reply = missing ? { id, missing } : { id, error: (e as Error).message, notTraceable: e instanceof NotTraceable };
  }
  parentPort!.postMessage(reply);
});
