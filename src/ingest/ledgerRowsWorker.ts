// The native LedgerCloseMeta-to-rows conversion on a worker thread, so that while the main thread
// writes one ledger to SQLite the next one is already being converted on the other core. The worker
// only calls the addon; the packed rows come back and are unpacked here (tens of milliseconds for a
// ledger of thousands of transactions, in slices).
import { Worker } from 'node:worker_threads';
import { addonPath, nativeAvailable, type NativeLedgerRows } from '../host/native.ts';
import type { IngestBatch } from '../store/types.ts';
import { batchStepsFromNativeRows } from './nativeLedgerToBatch.ts';
import { SlicedWork } from '../work/slicedWork.ts';
import { fastLedgerToBatch } from './ledgerToBatch.ts';

// CommonJS evaluated in the worker: works the same from the sources and from the bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const addon = require(workerData.addon);
parentPort.on('message', ({ id, bytes, networkId }) => {
  try {
    parentPort.postMessage({ id, rows: addon.ledgerToRows(bytes, networkId) });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});
`;

type Reply = { id: number; rows?: NativeLedgerRows; error?: string };

export class LedgerRowsWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (r: NativeLedgerRows) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  constructor() {
    // Without the addon there is nothing to move off the main thread: convert in place.
    if (!nativeAvailable()) return;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { addon: addonPath() } });
    this.worker.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.rows) p?.resolve(m.rows);
      else p?.reject(new Error(m.error));
    });
    this.worker.on('error', (e) => { for (const p of this.pending.values()) p.reject(e); this.pending.clear(); });
    this.worker.unref();
  }

  /** The rows of one ledger's LedgerCloseMeta (throws what the conversion throws). */
  async convert(bytes: Uint8Array, networkId: Uint8Array): Promise<IngestBatch> {
    if (!this.worker) return fastLedgerToBatch(bytes, networkId);
    const id = this.nextId++;
    const rows = await new Promise<NativeLedgerRows>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // posted as it is, a view would take its whole ArrayBuffer along (a walked batch's every
      // ledger, a meta stream's decompressed chunk): the ledger's bytes alone are copied and moved
      const own = new Uint8Array(bytes);
      this.worker!.postMessage({ id, bytes: own, networkId }, [own.buffer]);
    });
    // unpacked a slice at a time: requests are answered in between
    return (await new SlicedWork(() => false).run(batchStepsFromNativeRows(rows, bytes)))!;
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    for (const p of this.pending.values()) p.reject(new Error('closed'));
    this.pending.clear();
  }
}
