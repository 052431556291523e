// The worker thread of XdrJsonWorkers (./xdrJsonWorkers.ts): renders XDR values as JSON text, as
// UTF-8 bytes handed back without a copy. Runs as its own module: from the sources this file, from
// the bundle dist/xdrJsonWorker.mjs (scripts/build.ts).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { xdr } from '../xdr/xdr.ts';
import { jsonTextOf } from '../xdr/runtime/jsonText.ts';
import type { XdrJsonItem } from './xdrJsonWorkers.ts';

const types = xdr as unknown as Record<string, xdr.XdrTypeOf<unknown>>;

// Rendering is background work: on Linux a thread can lower its own priority, so that the event
// loop's thread wins the CPU when both want it (2 cores serve the loop, the workers and SQLite).
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), (workerData as { nice: number }).nice);
} catch { /* not Linux: normal priority */ }

parentPort!.on('message', ({ id, items }: { id: number; items: XdrJsonItem[] }) => {
  try {
    const encoded = items.map(([type, bytes]) => {
      // straight from the bytes: a 17 MB ledger renders in a few seconds within the worker's heap cap
      const utf8 = jsonTextOf(types[type].schema, bytes);
      // a Buffer may share a pooled ArrayBuffer: copy small ones into their own, so each can move
      return utf8.byteOffset === 0 && utf8.byteLength === utf8.buffer.byteLength ? utf8 : new Uint8Array(utf8);
    });
    parentPort!.postMessage({ id, encoded }, encoded.map((u) => u.buffer as ArrayBuffer));
  } catch (e) {
    parentPort!.postMessage({ id, error: String((e as Error)?.message ?? e) });
  }
});
