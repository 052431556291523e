// The docs stay reachable and complete: README.md is a front door and the reference lives in docs/,
// so a moved section or a renamed heading must not leave a link pointing nowhere, and a flag added to
// src/config/options.ts must get its row in docs/configuration.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { options } from '../../src/config/options.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function* markdownFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* markdownFiles(path);
    else if (e.name.endsWith('.md')) yield path;
  }
}

/** The lines of a markdown file outside fenced code blocks (where `#` and `[x](y)` mean nothing). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6} (.+?)\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Every inline link target of a markdown file that points into the repository. */
function localLinks(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) targets.push(m[1]);
    }
  }
  return targets;
}

const docs = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

test('every local link in README.md and docs/ names a file that exists, and a heading it has', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of docs) {
    const text = readFileSync(file, 'utf8');
    for (const target of localLinks(text)) {
      checked++;
      const [path, anchor] = target.split('#', 2);
      const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(ROOT, file)}: (${target})`;
      if (!existsSync(resolved)) { broken.push(`${where}: no such file`); continue; }
      if (anchor === undefined) continue;
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) { broken.push(`${where}: an anchor into a file that has no headings`); continue; }
      if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${where}: no heading with that anchor`);
    }
  }
  assert.ok(docs.length > 10 && checked > 50, `the links were read (${docs.length} files, ${checked} links)`);
  assert.deepEqual(broken, []);
});

test('the anchors follow GitHub: punctuation dropped, each space a hyphen, repeats numbered', () => {
  const anchors = headingAnchors('# A fork (`--fork-ledger N`)\n```\n# not a heading\n```\n## Notes\n## Notes\n#### `lumen_snapshot`\n');
  assert.deepEqual([...anchors], ['a-fork---fork-ledger-n', 'notes', 'notes-1', 'lumen_snapshot']);
});

test('every command-line flag has its row in docs/configuration.md', () => {
  const table = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8').split('\n').filter((l) => l.startsWith('| `--'));
  const firstCells = table.map((row) => row.split('|')[1]);
  const missing = options.map((o) => o.flag).filter((flag) => !firstCells.some((cell) => cell.includes(`\`--${flag}\``)));
  assert.ok(options.length > 50 && table.length > 40, 'the options and the table were read');
  assert.deepEqual(missing, []);
});
