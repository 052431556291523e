// The engine section (bench/engineClose.ts) in a process of its own. A node closes ledgers in its own
// process, whose heap holds its state; by the time the bench reaches this section, its own process
// holds what the sections before it left (run.ts logs how much), and every
// collection during a timed close marks all of that. Forked by bench/run.ts; its lines go to the
// same output with the run's clock.
import { serveParent } from './ipcChild.ts';
import { runEngineBench, type EngineBenchOptions } from './engineClose.ts';

serveParent(async (m) => {
  if (m.type !== 'run') return undefined;
  const startedAt = m.startedAt as number;
  const log = (line: string) => process.stdout.write(`[bench +${Math.round((Date.now() - startedAt) / 1000)}s] ${line}\n`);
  const { rows, details } = await runEngineBench(m.options as EngineBenchOptions, log);
  return { type: 'result', rows, details };
});
