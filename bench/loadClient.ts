// The load generator's own process: autocannon must not share an event loop with the server (or
// with the orchestrator), or it would measure its own scheduling. Input is one JSON argument, the
// output one JSON line on stdout.
import autocannon from 'autocannon';

export interface LoadRequest { url: string; body: string; connections: number; durationSec: number }
export interface LoadResult {
  requests: number; rps: number; p50: number; p99: number;
  errors: number; timeouts: number; non2xx: number; rpcErrors: number;
}

const req = JSON.parse(process.argv[2]!) as LoadRequest;
let rpcErrors = 0;
autocannon({
  url: req.url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: req.body,
  connections: req.connections,
  duration: req.durationSec,
  // A JSON-RPC error still comes back as HTTP 200: without looking at the body a server that only
  // answered errors would look fast. A substring check keeps the generator's own cost small.
  requests: [{ onResponse: (_status, body) => { if (body.includes('"error"')) rpcErrors++; } }],
}, (err, r) => {
  if (err) throw err;
  const out: LoadResult = {
    requests: r.requests.total,
    rps: r.requests.total / (r.duration || req.durationSec),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx, rpcErrors,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
});
