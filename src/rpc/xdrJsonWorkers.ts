// XDR -> JSON text on worker threads. The JSON rendering of a large XDR value is slow JavaScript (a
// pubnet LedgerCloseMeta takes about a tenth of a second), and the event loop also serves every other
// client: so `xdrFormat: "json"` answers of ledgers and transactions are rendered here, to UTF-8 bytes
// handed over without a copy, and the loop only writes them out between the answer's other pieces (it
// never decodes or measures a large string).
import { Worker } from 'node:worker_threads';

/** The `xdr` types the workers render (what getLedgers and getTransaction(s) carry). */
export type XdrTypeName =
  | 'LedgerCloseMeta' | 'LedgerHeaderHistoryEntry' | 'TransactionEnvelope' | 'TransactionResult'
  | 'TransactionMeta' | 'DiagnosticEvent' | 'TransactionEvent' | 'ContractEvent';

export type XdrJsonItem = readonly [XdrTypeName, Uint8Array];

/**
 * The worker's module: ./xdrJsonWorker.ts from the sources, the bundle's own entry
 * (dist/xdrJsonWorker.mjs, next to dist/lumen-rpc.mjs) from the bundle.
 */
const WORKER_MODULE = new URL(import.meta.url.endsWith('.ts') ? './xdrJsonWorker.ts' : './xdrJsonWorker.mjs', import.meta.url);

/** The workers' niceness (0 normal .. 19 lowest). */
const WORKER_NICENESS = 10;

type Reply = { id: number; encoded?: Uint8Array[]; error?: string };
interface Pending { resolve(encoded: Uint8Array[]): void; reject(e: Error): void }

/** One worker and the jobs it has been given. */
interface Slot { worker: Worker; pending: Map<number, Pending> }

export class XdrJsonWorkers {
  private readonly size: number;
  private readonly heapMb: number;
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  /**
   * `size` workers, started on first use (the XDR module takes a moment to load). Each has its own heap
   * cap: a value too large to render fails that request, never the node.
   */
  constructor(size: number, heapMb = 256) {
    this.size = Math.max(1, size);
    this.heapMb = heapMb;
  }

  /** Starts the workers that are not running (the first request, or one that died). */
  private start(): void {
    while (!this.closed && this.slots.length < this.size) this.slots.push(this.spawn());
  }

  /** The JSON of each item as UTF-8, in order. */
  render(items: readonly XdrJsonItem[]): Promise<Uint8Array[]> {
    if (items.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('XDR JSON workers are closed'));
    this.start();
    // the least busy worker
    let slot = this.slots[0];
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.ref(); // keeps the process alive while a job is out
      slot.worker.postMessage({ id, items });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
    for (const s of slots) this.fail(s, new Error('XDR JSON workers are closed'));
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_MODULE, {
      workerData: { nice: WORKER_NICENESS }, resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (m: Reply) => {
      const p = slot.pending.get(m.id);
      slot.pending.delete(m.id);
      if (slot.pending.size === 0) worker.unref();
      if (m.encoded) p?.resolve(m.encoded);
      else p?.reject(new Error(`XDR to JSON failed: ${m.error}`));
    });
    // A worker that dies (out of its heap) fails its jobs and is replaced on the next request.
    const replace = (e: Error): void => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      this.fail(slot, e);
    };
    worker.on('error', replace);
    worker.on('exit', (code) => replace(new Error(`XDR JSON worker exited (${code})`)));
    worker.unref();
    return slot;
  }

  private fail(slot: Slot, e: Error): void {
    for (const p of slot.pending.values()) p.reject(e);
    slot.pending.clear();
  }
}
