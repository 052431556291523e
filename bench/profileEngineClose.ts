// Where an engine close and store of a ledger of payments goes: `node bench/profileEngineClose.ts
// [payments] [samples] [--prof dir]` sets up `payments` lanes (payments only: no trustlines to trade,
// no book) through bench/engineClose.ts's EngineLedgers, then closes and stores `samples` ledgers of
// one payment per lane, printing each step's time and the medians. With --prof, the measured
// ledgers alone are profiled (node:inspector) and the hottest functions printed; open the
// .cpuprofile in Chrome DevTools for the full picture. A development aid, not part of `npm run bench`.
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineLedgers, closeAndStorePayments, type StoreStepsMs } from './engineClose.ts';
import { Market } from './market.ts';
import { fmt, median } from './stats.ts';
import { summarizeCpuProfile, type CpuProfile } from './cpuProfileSummary.ts';


const args = process.argv.slice(2);
const profIdx = args.indexOf('--prof');
const profDir = profIdx >= 0 ? args.splice(profIdx, 2)[1] : undefined;
const payments = Number(args[0] ?? 10_000);
const samples = Number(args[1] ?? 5);
const log = (m: string) => process.stdout.write(`${m}\n`);

const market = new Market({ lanes: payments, tradingLanes: 0, makers: 0, offersPerMaker: 0 });
const engine = new EngineLedgers();
try {
  const t0 = performance.now();
  for (const step of market.steps()) engine.runStep(step);
  log(`setup: ${payments} lanes in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  closeAndStorePayments(engine, market, payments, 1, (m) => log(`warm-up${m}`));
  const session = profDir ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const ms = closeAndStorePayments(engine, market, payments, samples, log);
  const med = (k: keyof StoreStepsMs) => fmt(median(ms.map((m) => m[k])));
  log(`medians of ${samples}: total ${med('total')} ms (close ${med('close')}, encode ${med('encode')}, convert ${med('convert')}, write ${med('write')}; CPU ${med('cpu')})`);
  if (session && profDir) {
    const { profile } = await session.post('Profiler.stop') as unknown as { profile: CpuProfile };
    mkdirSync(profDir, { recursive: true });
    const file = join(profDir, `engineClose-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    summarize(profile, file);
  }
} finally {
  engine.dispose();
}

function summarize(profile: CpuProfile, file: string): void {
  const summary = summarizeCpuProfile(profile, 40, 50);
  log(`\nprofile: ${file} (${summary.totalSeconds.toFixed(1)} s)`);
  log(`\nself time:\n${summary.self}`);
  log(`\ninclusive time, lumen-rpc code:\n${summary.inclusive}`);
}
