// Drives one fixed JSON-RPC request at a server for a while and reports requests/s and latency.
// autocannon runs in its own process (loadClient.ts): sharing the orchestrator's event loop would
// distort both. On this 2-core machine client and server still share the CPUs, which caps every
// figure below what a dedicated client host would show; the ratio to the baseline (measured the
// same way, in the same run) is the number to compare.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult } from './loadClient.ts';

const CLIENT = fileURLToPath(new URL('./loadClient.ts', import.meta.url));

export type { LoadResult };

export async function runLoad(req: LoadRequest): Promise<LoadResult> {
  const child = spawn(process.execPath, [CLIENT, JSON.stringify(req)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  // bounded: a hung client must not hang the whole bench
  const limit = setTimeout(() => child.kill('SIGKILL'), (req.durationSec + 30) * 1000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(limit);
  const line = out.trim().split('\n').pop();
  if (code !== 0 || !line) throw new Error(`load client failed (exit ${code}): ${err.trim()}`);
  return JSON.parse(line) as LoadResult;
}

/** A JSON-RPC 2.0 request body, the same bytes for every request of a run. */
export function rpcBody(method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
}
