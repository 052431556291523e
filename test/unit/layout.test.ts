// The layout is the architecture: dependencies between the folders of src/ point one way. This reads
// every relative import and fails on a pair of folders that import each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function* sourceFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(path);
    else if (e.name.endsWith('.ts')) yield path;
  }
}

/** The top folder of src/ a file is in ('.' for files directly in src/). */
const folderOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0] : '.';
};

function folderImports(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>(); // from -> to -> an example import
  for (const file of sourceFiles(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = resolve(dirname(file), m[1]);
      if (!target.startsWith(SRC)) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(to, `${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return edges;
}

test('no two folders of src/ import each other', () => {
  const edges = folderImports();
  assert.ok((edges.get('.')?.size ?? 0) > 3 && edges.has('rpc') && edges.has('transport'), 'the imports were read');
  const loops: string[] = [];
  for (const [from, tos] of edges) {
    for (const [to, example] of tos) {
      const back = edges.get(to)?.get(from);
      if (from < to && back) loops.push(`${from} <-> ${to}: ${example}; ${back}`);
    }
  }
  assert.deepEqual(loops, []);
});
