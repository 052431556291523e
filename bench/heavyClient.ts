// One heavy client for the "serving while heavy requests run" benchmark, run as its own process: it
// sends the heaviest requests the limits allow, in rotation, back to back until its time is up, and
// reads every answer without decoding it (a client on another machine would cost the server's cores
// nothing). Prints one JSON line: answers, bytes, statuses.
//   node bench/heavyClient.ts <url> <durationMs> <offset> <first> <last> [localAddress]
// With localAddress (a loopback address such as 127.0.0.10) the client connects from it: the node
// keeps its limits per client address, and each client of the benchmark stands for another machine.
import { request } from 'node:http';

const [url, durationText, offsetText, firstText, lastText, localAddress] = process.argv.slice(2);
const duration = Number(durationText);
const first = Number(firstText);
const last = Number(lastText);

const call = (method: string, params: unknown, id = 1) => ({ jsonrpc: '2.0', id, method, params });
/** The heaviest requests the limits allow (max page sizes, JSON rendering, big batches). */
const REQUESTS: string[] = ([
  call('getLedgers', { startLedger: first, xdrFormat: 'json', pagination: { limit: 200 } }),
  call('getLedgers', { startLedger: first, pagination: { limit: 200 } }),
  call('getTransactions', { startLedger: first, xdrFormat: 'json', pagination: { limit: 200 } }),
  call('getEvents', { startLedger: first, xdrFormat: 'json', pagination: { limit: 10_000 } }),
  Array.from({ length: 60 }, (_, i) => call('getLedgers', { startLedger: first + (i % (last - first + 1)), xdrFormat: 'json', pagination: { limit: 200 } }, i)),
  Array.from({ length: 1000 }, (_, i) => call('getEvents', { startLedger: first, pagination: { limit: 10_000 } }, i)),
  Array.from({ length: 1000 }, (_, i) => call('getTransactions', { startLedger: first, pagination: { limit: 200 } }, i)),
] as unknown[]).map((r) => JSON.stringify(r));

const { hostname, port } = new URL(url);
function send(payload: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, localAddress, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const end = performance.now() + duration;
const statuses: Record<string, number> = {};
let answers = 0;
let bytes = 0;
for (let i = Number(offsetText); performance.now() < end; i++) {
  try {
    const r = await send(REQUESTS[i % REQUESTS.length]);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    answers++;
    bytes += r.bytes;
  } catch (e) {
    statuses.error = (statuses.error ?? 0) + 1;
  }
}
process.stdout.write(JSON.stringify({ answers, bytes, statuses }) + '\n');
