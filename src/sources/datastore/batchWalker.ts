// Batch walks off the event loop: a worker thread (batchWalkWorker.ts), started at the first batch
// that needs one and kept, idle and unreferenced, for the next. Bytes the caller gives up are moved
// to the worker and back (transferred, not copied), so a walk costs the main thread two messages
// however big the file; others are copied there.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RawLedger } from '../ledgerSource.ts';
import type { WalkReply, WalkRequest } from './batchWalkWorker.ts';

/**
 * The worker's code: next to this module when run from the sources, the bundle's own entry
 * (scripts/build.ts) when run from dist/.
 */
function workerUrl(): URL {
  const source = new URL('./batchWalkWorker.ts', import.meta.url);
  return existsSync(fileURLToPath(source)) ? source : new URL('./lumen-rpc-batch-walker.cjs', import.meta.url);
}

class BatchWalker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (r: WalkReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  /**
   * The ledgers of a decompressed batch; rejects with what the walk threw (naming `name`). `giveUp`:
   * the bytes (their whole ArrayBuffer) may be moved away, leaving the caller's views empty.
   */
  async walk(bytes: Uint8Array, name: string, verify: 'header' | 'full', giveUp: boolean): Promise<RawLedger[]> {
    const worker = this.started();
    const id = this.nextId++;
    // Node allocates small Buffers from a shared pool (an ArrayBuffer of Buffer.poolSize, 64 KiB in
    // Node 24): only a bigger ArrayBuffer is surely these bytes' alone, to move
    const owned = giveUp && bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength > Buffer.poolSize;
    // a copy of the bytes alone: a Buffer's own slice() is a view of the caller's whole ArrayBuffer
    const buffer = owned ? bytes.buffer as ArrayBuffer : new Uint8Array(bytes).buffer;
    const offset = owned ? bytes.byteOffset : 0;
    const reply = await new Promise<WalkReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref(); // a walk under way keeps the process up
      const request: WalkRequest = { id, buffer, offset, length: bytes.length, name, verify };
      try {
        worker.postMessage(request, [buffer]);
      } catch (e) {
        // not sent (bytes that cannot be moved): the walk fails alone, and the thread keeps nothing up
        this.pending.delete(id);
        if (this.pending.size === 0) worker.unref();
        reject(e);
      }
    });
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.spans!.map(([sequence, at, length]) => ({ sequence, bytes: new Uint8Array(reply.buffer, offset + at, length) }));
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerUrl());
    worker.on('message', (reply: WalkReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      p?.resolve(reply);
    });
    const fail = (e: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(new Error(`the batch walker thread failed: ${e.message}`));
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`it exited with code ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

export const batchWalker = new BatchWalker();
