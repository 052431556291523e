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
import { summarizeCpuProfile, type CpuProfile } from './cpuProfileSummary.ts';


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
const profile = JSON.parse(readFileSync(join(outDir, file), 'utf8')) as CpuProfile;
const summary = summarizeCpuProfile(profile, 25, 30);
console.log(`\nprofile: ${join(outDir, file)} (${summary.totalSeconds.toFixed(1)} s of server time)`);
console.log(`\nself time:\n${summary.self}`);
console.log(`\ninclusive time, lumen-rpc code:\n${summary.inclusive}`);
