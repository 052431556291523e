// Turns the measurements into BENCHMARKS.md and a console summary. Every figure is a median over
// runs; the raw per-run values are kept in the details so a reader can judge the spread.
import type { Machine } from './machine.ts';
import { fmt } from './stats.ts';

export type Verdict = 'PASS' | 'FAIL' | 'n/a' | 'NOT RUN';

/**
 * The run's log: each line says how far into the run (started at `startedAt`, Date.now()) it was
 * written, so a section's time can be read step by step; a section in a process of its own logs
 * on the same clock.
 */
export const runLog = (startedAt: number) => (msg: string): void => {
  process.stdout.write(`[bench +${Math.round((Date.now() - startedAt) / 1000)}s] ${msg}\n`);
};

export interface Row {
  metric: string;
  value: string;           // the median, with its unit
  ratio?: string;          // to the node:http baseline of the same run
  target: string;
  verdict: Verdict;
}

export interface Report {
  date: string;
  machine: Machine;
  durationSec: number;
  loadAvg: { start: number[]; end: number[] }; // 1/5/15-minute load averages: how busy the shared machine was
  rows: Row[];
  details: string[];       // markdown paragraphs/lists
  notes: string[];
}

export const verdict = (ok: boolean | undefined): Verdict => (ok === undefined ? 'NOT RUN' : ok ? 'PASS' : 'FAIL');

export function toMarkdown(r: Report): string {
  const m = r.machine;
  const lines = [
    '# lumen-rpc benchmarks',
    '',
    'Written by `npm run bench` (`bench/run.ts`); do not edit by hand.',
    '',
    `- Date: ${r.date}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, ${m.platform}`,
    `- Node: ${m.node}`,
    `- Bench duration: ${fmt(r.durationSec, 0)} s`,
    `- Load average (1/5/15 min) before: ${r.loadAvg.start.map((x) => x.toFixed(2)).join(' / ')}, after: ${r.loadAvg.end.map((x) => x.toFixed(2)).join(' / ')} (the bench itself adds about 2; more means other work shared the cores)`,
    '',
    '| Metric | Median | Ratio to baseline | Target | Result |',
    '|---|---|---|---|---|',
    ...r.rows.map((row) => `| ${row.metric} | ${row.value} | ${row.ratio ?? '—'} | ${row.target} | ${row.verdict} |`),
    '',
    '## How it was measured',
    '',
    ...r.notes.map((n) => `- ${n}`),
    '',
    '## Details',
    '',
    ...r.details,
    '',
  ];
  return lines.join('\n');
}

export function toConsole(r: Report): string {
  const w = [0, 0, 0, 0, 0];
  const cells = r.rows.map((row) => [row.metric, row.value, row.ratio ?? '', row.target, row.verdict]);
  const header = ['metric', 'median', 'ratio', 'target', 'result'];
  for (const c of [header, ...cells]) c.forEach((s, i) => { w[i] = Math.max(w[i], s.length); });
  const line = (c: string[]) => c.map((s, i) => s.padEnd(w[i])).join('  ');
  return [line(header), ...cells.map(line)].join('\n');
}
