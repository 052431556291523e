// process.nextTick is cheap (tens of nanoseconds) only while V8 keeps the object shapes of its queue
// entries alive. A full garbage collection that runs while no nextTick callback is queued frees them
// (only weak references hold a shape no object has), and process.nextTick, optimized afterwards, adds
// its entries' properties the slow, generic way: 0.7 to 1 µs per call instead of 0.05 to 0.1 (Node 24;
// bench/nextTickCost.ts shows it). The node's start-up always runs such a collection, and a JSON-RPC
// request over HTTP makes about six calls in Node's HTTP and stream code: several microseconds each.
//
// Holding one queue entry for the life of the process keeps the shapes alive. Imported first by the
// command line (cli/program.ts), this queues a callback at once, whose entry is alive while it waits,
// and keeps the entry the callback runs in (Node reports it as the current async resource).
import { executionAsyncResource } from 'node:async_hooks';

let kept: object | undefined;
process.nextTick(() => { kept = executionAsyncResource(); });

/** The queue entry held (tests). */
export function keptTickEntry(): object | undefined { return kept; }
