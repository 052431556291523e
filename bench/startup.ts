// Start-to-first-response: what a developer waits for after `lumen-rpc start` on a new database
// (module loading, schema creation, genesis ledger, listening). Measured from spawn() until the
// first getLatestLedger that returns a result — "listening" alone is not "usable".
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './serverProcess.ts';
import { sleep } from './stats.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestLedger' });
const POLL_MS = 5;     // the measurement's resolution; a refused connection costs next to nothing
const GIVE_UP_MS = 20_000;

/** One probe on a fresh connection: true only when a JSON-RPC result came back. */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': BODY.length }, timeout: 2000 }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { try { resolve(JSON.parse(text).result !== undefined); } catch { resolve(false); } });
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => { req.destroy(); resolve(false); });
    req.end(BODY);
  });
}

/** Milliseconds from spawn to the first getLatestLedger result, on a fresh database. */
export async function measureStartup(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bench-start-'));
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['bin/lumen-rpc.js', 'start', '--endpoint', `127.0.0.1:${port}`,
    '--db-path', join(dir, 'x.sqlite'), '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  try {
    while (!(await probe(port))) {
      if (child.exitCode !== null) throw new Error(`lumen-rpc exited with ${child.exitCode}: ${stderr.trim()}`);
      if (performance.now() - t0 > GIVE_UP_MS) throw new Error(`no getLatestLedger answer in ${GIVE_UP_MS} ms`);
      await sleep(POLL_MS);
    }
    return performance.now() - t0;
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
