// The ceiling every JSON-RPC number is compared with: a bare node:http server answering a fixed
// JSON-RPC body. It reads the request body like a real server must, but does no routing, parsing
// or validation, so "ratio to baseline" isolates what lumen-rpc adds on top of Node's HTTP stack.
//
// Run directly (`node bench/baselineServer.ts`) it serves and prints its port; imported, it offers
// startBaselineServer(), which runs it as a separate process like the server under test.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const DEFAULT_RESPONSE = JSON.stringify({
  jsonrpc: '2.0', id: 1,
  result: { id: 'c6b3ff0cd61e4e8b5c5e0ae9d4f7a1c0b2e2cf1d7c2bb9f0e0a4a3d8c7e6f5a4', protocolVersion: 23, sequence: 1234 },
});

/** Answers every request with `RESPONSE` (argv[2] when given: a caller's canned answer). */
function serve(): void {
  const RESPONSE = process.argv[2] ?? DEFAULT_RESPONSE;
  const RESPONSE_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(RESPONSE) };
  const server = createServer((req, res) => {
    req.resume(); // drain the body: answering before reading it would be cheaper than any real server
    req.on('end', () => { res.writeHead(200, RESPONSE_HEADERS); res.end(RESPONSE); });
  });
  // keep-alive like Fastify's default, so both servers are measured over reused connections
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

export interface BaselineServer { url: string; stop(): Promise<void> }

/** `response`: the JSON text to answer with (default: a small getLatestLedger-like result). */
export async function startBaselineServer(response?: string): Promise<BaselineServer> {
  const args = [fileURLToPath(import.meta.url), ...(response === undefined ? [] : [response])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('baseline server did not start in 10 s')), 10_000);
    lines.on('line', (l) => { const m = /^listening (\d+)/.exec(l); if (m) { clearTimeout(t); resolve(Number(m[1])); } });
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve();
