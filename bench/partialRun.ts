// `--only <words> --write`: re-measures some sections and splices them into the BENCHMARKS.md a
// full run wrote, so a new section (or one whose code changed) gets measured without the whole
// 45-minute bench. Each spliced row and detail block keeps the date of its own run, and the file's
// header lists every partial run, so no figure's provenance is lost.
import type { Report } from './report.ts';

const TABLE_ROW = /^\| (.+?) \| /;

/** The index just after the last row of the main table (the first table, under `| Metric`). */
function mainTableEnd(lines: readonly string[]): number {
  let i = lines.findIndex((l) => l.startsWith('| Metric'));
  while (i < lines.length && lines[i].startsWith('|')) i++;
  return i;
}

/** The `### ` blocks of a details list (text before the first heading is dropped). */
function detailBlocks(lines: string[]): Array<{ heading: string; lines: string[] }> {
  const blocks: Array<{ heading: string; lines: string[] }> = [];
  for (const line of lines) {
    if (line.startsWith('### ')) blocks.push({ heading: line, lines: [line] });
    else if (blocks.length > 0) blocks[blocks.length - 1].lines.push(line);
  }
  return blocks;
}

/**
 * `previous` with the partial run's rows replacing those of the same metric (new metrics are added
 * at the end of the table), its detail blocks replacing those of the same heading (new ones added
 * at the end of the details), and a header line naming the run.
 */
export function spliceSections(previous: string, run: Report, sections: readonly string[]): string {
  const day = run.date.slice(0, 16).replace('T', ' ');
  const lines = previous.split('\n');
  if (!lines.some((l) => l.startsWith('| Metric'))) throw new Error('BENCHMARKS.md has no table to splice into: run the full bench first');
  for (const row of run.rows) {
    const text = `| ${row.metric} | ${row.value} | ${row.ratio ?? '—'} | ${row.target} | ${row.verdict} (${day} UTC) |`;
    const at = lines.findIndex((l) => TABLE_ROW.exec(l)?.[1] === row.metric);
    if (at >= 0) lines[at] = text;
    else lines.splice(mainTableEnd(lines), 0, text);
  }
  let out = lines.join('\n');
  for (const block of detailBlocks(run.details)) {
    const stamped = [block.heading, '', `_Measured ${day} UTC by a partial run (\`--only\`)._`, ...block.lines.slice(1)].join('\n').trimEnd() + '\n\n';
    const at = out.indexOf(`\n${block.heading}\n`);
    if (at >= 0) {
      const next = out.indexOf('\n### ', at + 1);
      const marker = out.indexOf('\n<!--', at + 1);
      const ends = [next, marker].filter((i) => i > at);
      const end = ends.length ? Math.min(...ends) : out.length;
      out = out.slice(0, at + 1) + stamped + out.slice(end + 1);
    } else {
      const marker = out.indexOf('\n<!--');
      const end = marker >= 0 ? marker + 1 : out.length;
      out = out.slice(0, end).trimEnd() + '\n\n' + stamped + out.slice(end);
    }
  }
  const m = run.machine;
  const note = `- Partial run ${run.date} (${sections.join(', ')}): ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${Math.round(run.durationSec)} s, `
    + `load average before ${run.loadAvg.start.map((x) => x.toFixed(2)).join(' / ')}, after ${run.loadAvg.end.map((x) => x.toFixed(2)).join(' / ')}`;
  const header = out.indexOf('\n| Metric');
  return header >= 0 ? `${out.slice(0, header).trimEnd()}\n${note}\n${out.slice(header)}` : `${out}\n${note}\n`;
}
