// A store's tracing resources, made at the first trace and shared by everything that traces on it
// (lumen_traceTransaction, lumen_resourceReport, simulateTransaction's `trace`, --print-traces): the
// hosts with their module caches (appliers.ts) and the trace worker (traceWorkers.ts). A node has one
// store; tests may run several in one process.
import type { StoreReader } from '../store/types.ts';
import { TraceAppliers } from './appliers.ts';
import { TraceWorkers } from './traceWorkers.ts';

export interface Tracing { appliers: TraceAppliers; workers: TraceWorkers }

const byStore = new WeakMap<StoreReader, Tracing>();

export function tracingOf(store: StoreReader): Tracing {
  let tracing = byStore.get(store);
  if (!tracing) { tracing = { appliers: new TraceAppliers(), workers: new TraceWorkers() }; byStore.set(store, tracing); }
  return tracing;
}
