// CPU time per answer, server by server: `node bench/cpuPerRequest.ts [rounds] [seconds]` loads the
// node:http baseline and a lumen-rpc node with getLatestLedger (64 connections, as the HTTP throughput
// section does), round after round, and reads each server process's CPU time (/proc/<pid>/task/*/stat)
// around every run. The client shares the 2 cores with the server, so req/s says how the CPU was
// shared as much as what each answer costs; microseconds per answer, and the main thread's share of
// them, say where a ratio comes from (they too grow when other processes crowd the caches: compare
// servers within a round). Also prints the node's CPU while idle (ledger closes, timers). Not part of
// `npm run bench`: a diagnostic.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runLoad, rpcBody } from './httpLoad.ts';
import { startServer } from './serverProcess.ts';
import { fmt, median } from './stats.ts';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 5);
const TICK_US = 10_000; // /proc's clock ticks are 1/100 s (USER_HZ)

interface Cpu { mainUs: number; mainSystemUs: number; otherUs: number }

/** CPU microseconds of `pid`'s main thread (and its kernel part) and of its other threads. */
function cpuOf(pid: number): Cpu {
  const cpu: Cpu = { mainUs: 0, mainSystemUs: 0, otherUs: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try { stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); } catch { continue; } // a thread that just ended
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]) * TICK_US, system = Number(fields[12]) * TICK_US;
    if (tid === String(pid)) { cpu.mainUs += user + system; cpu.mainSystemUs += system; } else cpu.otherUs += user + system;
  }
  return cpu;
}

const since = (a: Cpu, b: Cpu): Cpu => ({ mainUs: b.mainUs - a.mainUs, mainSystemUs: b.mainSystemUs - a.mainSystemUs, otherUs: b.otherUs - a.otherUs });

/** The baseline server as its own process (bench/baselineServer.ts), with its pid. */
async function startBaseline(answer: string): Promise<{ url: string; pid: number; stop(): void }> {
  const file = fileURLToPath(new URL('./baselineServer.ts', import.meta.url));
  const child = spawn(process.execPath, [file, answer], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve) => lines.on('line', (l) => { const m = /^listening (\d+)/.exec(l); if (m) resolve(Number(m[1])); }));
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

const node = await startServer();
try {
  const latest = await node.rpc('getLatestLedger');
  const baseline = await startBaseline(JSON.stringify({ jsonrpc: '2.0', id: 1, result: latest.result }));
  try {
    const body = rpcBody('getLatestLedger');
    const targets = [
      { name: 'baseline', url: baseline.url, pid: baseline.pid },
      { name: 'lumen-rpc', url: `${node.url}/`, pid: node.child.pid! },
    ];
    const before = cpuOf(node.child.pid!);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const idle = since(before, cpuOf(node.child.pid!));
    console.log(`lumen-rpc idle: ${fmt((idle.mainUs + idle.otherUs) / SECONDS / 1000, 1)} ms CPU per s`);
    for (const t of targets) await runLoad({ url: t.url, body, connections: 64, durationSec: 2 }); // warm-up
    const perAnswer = targets.map(() => [] as number[]);
    const rps = targets.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      const parts: string[] = [];
      for (let i = 0; i < targets.length; i++) {
        const a = cpuOf(targets[i].pid);
        const r = await runLoad({ url: targets[i].url, body, connections: 64, durationSec: SECONDS });
        const d = since(a, cpuOf(targets[i].pid));
        const us = (d.mainUs + d.otherUs) / r.requests;
        perAnswer[i].push(us);
        rps[i].push(r.rps);
        parts.push(`${targets[i].name} ${fmt(r.rps)} req/s p99 ${r.p99} ms, ${fmt(us, 1)} µs CPU per answer `
          + `(main thread ${fmt(d.mainUs / r.requests, 1)}, of it kernel ${fmt(d.mainSystemUs / r.requests, 1)}; other threads ${fmt(d.otherUs / r.requests, 1)})`);
      }
      console.log(`round ${round + 1}: ${parts.join(' | ')} | ratio ${(rps[1][round] / rps[0][round]).toFixed(2)} | load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
    }
    for (let i = 0; i < targets.length; i++) {
      console.log(`${targets[i].name}: median ${fmt(median(rps[i]))} req/s, ${fmt(median(perAnswer[i]), 1)} µs CPU per answer`);
    }
  } finally {
    baseline.stop();
  }
} finally {
  await node.stop();
}
