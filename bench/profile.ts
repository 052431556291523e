// Where the server's time goes: `node bench/profile.ts payments|latest|entries|simulate|simulate16 [outDir]` runs one
// bench workload against a server started with --cpu-prof and prints its hottest functions (self
// time) and the heaviest call paths (inclusive time). Open the .cpuprofile in Chrome DevTools for
// the full picture. Not part of `npm run bench`: a profiled server is slower than a real one.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, rpcBody } from './httpLoad.ts';
import { createAccounts, runPayments } from './payments.ts';
import { startServer } from './serverProcess.ts';
import { accountKey, rootKeypair } from './stellar.ts';
import { deployCounter } from './counter.ts';
import { drive, incrementTx } from './simulate.ts';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const workload = process.argv[2] ?? 'payments';
const outDir = process.argv[3] ?? join(tmpdir(), `lumen-profile-${workload}-${Date.now()}`);
mkdirSync(outDir, { recursive: true });

// The server inherits NODE_OPTIONS; only its spawn should see the flag, not the load client's.
process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${outDir}`;
const node = await startServer(workload.startsWith('simulate') ? { closeMode: 'instant', extra: ['--preflight-worker-queue-size', '16'] } : {});
delete process.env.NODE_OPTIONS;
try {
  if (workload === 'payments') {
    console.log(await runPayments(node.url, await createAccounts(node.url, 2000), 2));
  } else if (workload === 'latest' || workload === 'entries') {
    const body = workload === 'latest' ? rpcBody('getLatestLedger') : rpcBody('getLedgerEntries', { keys: [accountKey(rootKeypair().publicKey())] });
    console.log(await runLoad({ url: `${node.url}/`, body, connections: 64, durationSec: 8 }));
  } else if (workload === 'simulate' || workload === 'simulate16') {
    // the counter's increment, 1 sequential client (or 16 concurrent ones)
    const tx = incrementTx(await deployCounter(node.url));
    const body = rpcBody('simulateTransaction', { transaction: tx.toXdr() });
    const clients = workload === 'simulate' ? 1 : 16;
    console.log(await drive(node.url, body, clients, clients === 1 ? 5000 : 10000));
  } else {
    throw new Error(`unknown workload "${workload}": payments, latest, entries, simulate or simulate16`);
  }
} finally {
  await node.stop(); // the profile is written when the server exits
}

const file = readdirSync(outDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${outDir}`);
const profile = JSON.parse(readFileSync(join(outDir, file), 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const timeOf = new Map<number, number>();
profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...timeOf.values()].reduce((a, b) => a + b, 0);
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, t] of timeOf) {
  const l = label(byId.get(id)!);
  self.set(l, (self.get(l) ?? 0) + t);
  const seen = new Set<string>(); // recursion must not count a sample twice
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = label(byId.get(cur)!);
    if (!seen.has(k)) { seen.add(k); inclusive.set(k, (inclusive.get(k) ?? 0) + t); }
  }
}
const top = (m: Map<string, number>, n: number, filter: (k: string) => boolean = () => true) =>
  [...m].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([k, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');

console.log(`\nprofile: ${join(outDir, file)} (${(total / 1e6).toFixed(1)} s of server time)`);
console.log(`\nself time:\n${top(self, 25)}`);
console.log(`\ninclusive time, lumen-rpc code:\n${top(inclusive, 30, (k) => k.includes(' src/'))}`);
