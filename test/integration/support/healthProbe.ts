// getHealth over HTTP every 50 ms, from a process of its own: the latencies are then the node's,
// not those of a test process busy reading hundreds of streaming connections. The child prints
// one line per call (the latency in ms, or `fail <what>`) and stops when its stdin closes.
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ProbeResult {
  latencies: number[];
  failures: string[];
}

export function startHealthProbe(url: string): { stop(): Promise<ProbeResult> } {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.stdin!.end();
      await exited;
      const latencies: number[] = [];
      const failures: string[] = [];
      for (const line of out.split('\n').filter(Boolean)) {
        if (line.startsWith('fail ')) failures.push(line.slice(5));
        else latencies.push(Number(line));
      }
      return { latencies, failures };
    },
  };
}

async function probe(url: string): Promise<void> {
  let stopped = false;
  process.stdin.on('end', () => { stopped = true; });
  process.stdin.resume();
  while (!stopped) {
    const t = performance.now();
    try {
      const res = await fetch(url, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}',
      });
      const r = await res.json() as { result?: { status?: string } };
      if (r.result?.status === 'healthy') process.stdout.write(`${performance.now() - t}\n`);
      else process.stdout.write(`fail ${JSON.stringify(r)}\n`);
    } catch (e) {
      process.stdout.write(`fail ${String(e)}\n`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await probe(process.argv[2]);
