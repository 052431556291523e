// The engine section (bench/engineClose.ts) in a process of its own, as a node closes ledgers in its
// own process: no earlier section's heap, JIT state or pending collection enters the timed closes,
// whatever sections come before. In the run of 2026-11-29 the bench process held 115 MiB of heap
// at this point (run.ts logs it), and the figures were within their noise of the in-process ones;
// the separation keeps them so. Forked by bench/run.ts; its lines go to the same output with the
// run's clock.
import { serveParent } from './ipcChild.ts';
import { runEngineBench, type EngineBenchOptions } from './engineClose.ts';
import { runLog } from './report.ts';

serveParent(async (m) => {
  if (m.type !== 'run') return undefined;
  const { rows, details } = await runEngineBench(m.options as EngineBenchOptions, runLog(m.startedAt as number));
  return { type: 'result', rows, details };
});
