// A partial bench run replaces only its own rows and detail blocks, dated, and leaves the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spliceSections } from '../../../bench/partialRun.ts';
import type { Report } from '../../../bench/report.ts';

const previous = [
  '# lumen-rpc benchmarks', '', '- Date: 2026-11-01T00:00:00.000Z', '',
  '| Metric | Median | Ratio to baseline | Target | Result |', '|---|---|---|---|---|',
  '| A | 1 ms | — | < 2 ms | PASS |', '| B | 5 /s | — | n/a | n/a |', '',
  '## Details', '', '### Section A', '', 'old a', '', '| Run | x |', '|---|---|', '| 1 | 2 |', '',
  '### Section B', '', 'old b', '', '<!-- events-bench:start -->', 'events', '<!-- events-bench:end -->', '',
].join('\n');

const run = (rows: Report['rows'], details: string[]): Report => ({
  date: '2026-11-25T23:00:00.000Z', durationSec: 12, rows, details, notes: [],
  machine: { cpu: 'cpu', cores: 2, memoryGiB: 23.5, platform: 'linux x64', node: 'v24' } as Report['machine'],
  loadAvg: { start: [1, 1, 1], end: [2, 2, 2] },
});

test('a re-measured row and block replace the old ones; the others stay', () => {
  const out = spliceSections(previous, run([{ metric: 'A', value: '3 ms', target: '< 2 ms', verdict: 'FAIL' }], ['### Section A', '', 'new a', '']), ['a']);
  assert.match(out, /\| A \| 3 ms \| — \| < 2 ms \| FAIL \(2026-11-25 23:00 UTC\) \|/);
  assert.doesNotMatch(out, /\| A \| 1 ms/);
  assert.match(out, /\| B \| 5 \/s \| — \| n\/a \| n\/a \|/);
  assert.match(out, /### Section A\n\n_Measured 2026-11-25 23:00 UTC[^\n]*\n\nnew a\n\n### Section B\n\nold b/);
  assert.doesNotMatch(out, /old a|\| 1 \| 2 \|/);
  assert.match(out, /<!-- events-bench:start -->\nevents/);
  assert.match(out, /- Partial run 2026-11-25T23:00:00.000Z \(a\)/);
});

test('a new metric joins the end of the main table and a new block the end of the details', () => {
  const out = spliceSections(previous, run([{ metric: 'C', value: '7', target: 't', verdict: 'n/a' }], ['### Section C', '', 'c', '']), ['c']);
  const lines = out.split('\n');
  assert.equal(lines[lines.findIndex((l) => l.startsWith('| B |')) + 1].startsWith('| C | 7 |'), true);
  assert.ok(out.indexOf('### Section C') > out.indexOf('old b') && out.indexOf('### Section C') < out.indexOf('<!-- events-bench:start'));
});

test('without a full run\'s table there is nothing to splice into', () => {
  assert.throws(() => spliceSections('# empty\n', run([], []), ['a']), /full bench/);
});
