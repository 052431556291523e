// The node process's memory, for a per-connection figure: its RSS from /proc/<pid>/status and its
// JavaScript heap, both after a full garbage collection. The node runs with
// `--inspect=127.0.0.1:0` (the bench's own option, no server code involved): through the inspector
// protocol the bench forces the collection (HeapProfiler.collectGarbage) and reads the heap
// (Runtime.getHeapUsage). No inspector session is open while latencies are measured.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { sleep } from './stats.ts';

export const INSPECT_ARG = '--inspect=127.0.0.1:0';

export interface Memory { rssBytes: number; heapUsedBytes: number; heapTotalBytes: number }

/** The inspector's WebSocket address from the node's output ("Debugger listening on ws://..."). */
export function inspectorUrl(output: string): string {
  const m = /Debugger listening on (ws:\/\/\S+)/.exec(output);
  if (!m) throw new Error('the node printed no inspector address (was it started with --inspect?)');
  return m[1];
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Collects garbage twice (what survives one collection may die in the next), then reads. */
export async function settledMemory(inspector: string, pid: number): Promise<Memory> {
  const ws = new WebSocket(inspector, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  let id = 0;
  const call = (method: string): Promise<any> => new Promise((resolve, reject) => {
    const mine = ++id;
    const onMessage = (data: Buffer) => {
      const msg = JSON.parse(String(data));
      if (msg.id !== mine) return;
      ws.off('message', onMessage);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg.result);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id: mine, method }));
  });
  try {
    await call('HeapProfiler.collectGarbage');
    await sleep(500);
    await call('HeapProfiler.collectGarbage');
    await sleep(500);
    const heap = await call('Runtime.getHeapUsage') as { usedSize: number; totalSize: number };
    return { rssBytes: rssBytes(pid), heapUsedBytes: heap.usedSize, heapTotalBytes: heap.totalSize };
  } finally {
    ws.close();
  }
}

/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime: fields 14 and 15 of the line
}
