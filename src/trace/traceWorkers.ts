// Re-executions of stored transactions off the event loop: the main thread gathers what one needs
// from the store (reexecutionInput, and the entries of the transaction's read set at the previous
// ledger) and a worker thread (traceWorker.ts) decodes, re-executes and builds the trace. A trace
// costs the main thread a few store reads and two messages, so traces use the second core and the
// event loop keeps serving meanwhile. A classic transaction (which may read anything), a worker
// that reads outside the read set, or a build without workers re-execute on the main thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StoreReader } from '../store/types.ts';
import { toBase64 } from '../xdr/codec.ts';
import { nativeAvailable } from '../host/native.ts';
import { NotTraceable, readSetOf, reexecute, reexecutionInput } from './reexecution.ts';
import { baseFromStore } from './stateBeforeTransaction.ts';
import type { TraceAppliers } from './appliers.ts';
import type { TraceReply, TraceRequest } from './traceWorker.ts';
import type { TransactionTrace } from './types.ts';

/**
 * The worker's code: next to this module when run from the sources, the bundle's own entry
 * (scripts/build.ts) when run from dist/.
 */
function workerUrl(): URL {
  const source = new URL('./traceWorker.ts', import.meta.url);
  return existsSync(fileURLToPath(source)) ? source : new URL('./lumen-rpc-trace-worker.cjs', import.meta.url);
}

export class TraceWorkers {
  private worker: Worker | undefined;
  private broken = false;
  private readonly pending = new Map<number, { resolve: (r: TraceReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  async trace(store: StoreReader, networkId: Uint8Array, hash: Uint8Array, appliers: TraceAppliers): Promise<TransactionTrace> {
    const input = reexecutionInput(store, networkId, hash, appliers);
    const base = baseFromStore(store, input.sequence - 1);
    const keys = readSetOf(input.envelope);
    const worker = keys ? this.started() : undefined;
    if (keys && worker) {
      const entries = keys.map((k): [string, Uint8Array | null] => { const id = toBase64(k); return [id, base(k, id) ?? null]; });
      const reply = await this.send(worker, { id: this.nextId++, input, base: entries });
      if (reply.trace) return reply.trace;
      if (reply.error !== undefined) throw reply.notTraceable ? new NotTraceable(reply.error) : new Error(reply.error);
    }
    return reexecute(input, base, appliers);
  }

  private send(worker: Worker, request: TraceRequest): Promise<TraceReply> {
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** The worker, started at the first trace and kept (unreferenced while idle); none without the addon. */
  private started(): Worker | undefined {
    if (this.worker || this.broken || !nativeAvailable()) return this.worker;
    const worker = new Worker(workerUrl());
    worker.on('message', (reply: TraceReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      p?.resolve(reply);
    });
    // a worker that dies takes its pending traces with it; later ones run on the main thread
    worker.on('error', (e) => this.fail(e));
    worker.on('exit', (code) => this.fail(new Error(`the trace worker exited (${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private fail(e: Error): void {
    this.broken = true;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
