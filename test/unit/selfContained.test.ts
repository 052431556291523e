// Nothing in the repository reads outside it: a user's clone has nothing beside it. This scan is the
// quick guard, over every tracked text file: a path written in it that leaves the repository (a
// relative one, from the file's folder and from the repository's root, as scripts run there) or
// names a folder beside it. The proof is .ci/run, which runs the whole suite in a clone of the
// commit made in an empty temporary folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEXT = /\.(ts|js|mjs|cjs|json|md|sh|toml|py|rs|yml|yaml|txt)$|^\.ci\/run$/;

/** This file: its own examples of ways out are what it looks for. */
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

const tracked = (): string[] =>
  execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => TEXT.test(f) && f !== SELF);

const inside = (path: string): boolean => {
  const rel = relative(ROOT, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep));
};

/** Where `file` writes a path that leaves the repository, with the line. */
function escapes(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    // relative paths in quotes: outside both from the file's folder and from the root
    for (const m of line.matchAll(/['"`]((?:\.\.\/)+[^'"`\s]*)['"`]/g)) {
      if (!inside(resolve(ROOT, dirname(file), m[1])) && !inside(resolve(ROOT, m[1]))) found.push(`${at}: ${m[1]}`);
    }
    // a folder beside the repository, written piece by piece from the root, then up, then down
    const beside = /\b(?:ROOT|root|repoRoot)\s*,\s*['"`]\.\.['"`]\s*,\s*['"`]([^'"`.][^'"`]*)['"`]/.exec(line);
    if (beside) found.push(`${at}: the root's '..', '${beside[1]}'`);
    // this development machine's own folders, by absolute path
    const machine = /['"`](\/work\/[^'"`\s]*)/.exec(line);
    if (machine) found.push(`${at}: ${machine[1]}`);
  });
  return found;
}

test('no tracked file reads a path outside the repository', () => {
  const files = tracked();
  assert.ok(files.length > 500 && files.includes('src/node.ts') && files.includes('.ci/run'), `read ${files.length} files`);
  const found = files.flatMap((f) => escapes(f, readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(found, []);
});

test('the scan finds the ways out it looks for', () => {
  assert.equal(escapes('test/unit/x.test.ts', "readFileSync('../../../beside/fixtures/a.json')").length, 1);
  assert.equal(escapes('bench/x.ts', "join(ROOT, '..', 'beside', 'reference')").length, 1);
  assert.equal(escapes('scripts/x.ts', 'const dir = "/work/beside/notes"').length, 1);
  assert.deepEqual(escapes('src/rpc/methods/dev/x.ts', "import { a } from '../common/a.ts'"), []);
  assert.deepEqual(escapes('scripts/xdr/x.ts', "const root = join(fileURLToPath(import.meta.url), '..', '..', '..')"), []);
  assert.deepEqual(escapes('README.md', '[layout](docs/layout.md), [up](../README.md)'), []);
});
