// Ed25519 verification on worker threads. Verifying is the costliest part of admitting a payment
// (about 0.2 ms here), and the main thread also closes ledgers and serves every request; at
// submission the candidate signatures are checked off-thread and the results fill the
// verification cache that the (synchronous) validation then reads.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

// CommonJS source evaluated in the worker: it works the same from the sources and from the bundle.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createPublicKey, verify } = require('node:crypto');
const PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
parentPort.on('message', ({ id, items }) => {
  const results = items.map(([pub, msg, sig]) => {
    try {
      const key = createPublicKey({ key: Buffer.concat([PREFIX, pub]), format: 'der', type: 'spki' });
      return verify(null, msg, key, sig);
    } catch { return false; }
  });
  parentPort.postMessage({ id, results });
});
`;

export interface SignatureToCheck { publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array }

export class SignatureVerifierPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, (r: boolean[]) => void>();
  private readonly size: number;
  private nextId = 1;
  private next = 0;
  private closed = false;

  /** `size` workers, started at the first verification: a thread's start is CPU a node's start can use. */
  constructor(size = Math.max(1, availableParallelism() - 1)) {
    this.size = size;
  }

  private start(): void {
    for (let i = 0; i < this.size; i++) {
      const w = new Worker(WORKER_SOURCE, { eval: true });
      w.on('message', ({ id, results }: { id: number; results: boolean[] }) => {
        this.pending.get(id)?.(results);
        this.pending.delete(id);
      });
      w.unref();
      this.workers.push(w);
    }
  }

  verify(items: SignatureToCheck[]): Promise<boolean[]> {
    if (items.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.resolve([]); // as close() answers the pending ones
    if (this.workers.length === 0) this.start();
    const id = this.nextId++;
    const worker = this.workers[this.next++ % this.workers.length];
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, items: items.map((i) => [i.publicKey, i.message, i.signature]) });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    for (const resolve of this.pending.values()) resolve([]);
  }
}
