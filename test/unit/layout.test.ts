// The layout is the architecture: dependencies between the folders of src/ point one way. This reads
// every relative import and fails on any cycle of folders, a pair that import each other or a longer
// ring (a -> b -> c -> a), naming an import of each step.
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

/**
 * A cycle of folders (a -> b -> ... -> a) if the imports have one, else undefined: a depth-first walk
 * that meets a folder still on its path has found one, of any length.
 */
function findCycle(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (folder: string): string[] | undefined => {
    if (onPath.has(folder)) return [...path.slice(path.indexOf(folder)), folder];
    if (done.has(folder)) return undefined;
    path.push(folder);
    onPath.add(folder);
    for (const to of edges.get(folder)?.keys() ?? []) {
      const cycle = visit(to);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(folder);
    done.add(folder);
    return undefined;
  };
  for (const folder of edges.keys()) {
    const cycle = visit(folder);
    if (cycle) return cycle;
  }
  return undefined;
}

test('the folders of src/ import each other in no cycle, of any length', () => {
  const edges = folderImports();
  assert.ok((edges.get('.')?.size ?? 0) > 3 && edges.has('rpc') && edges.has('transport'), 'the imports were read');
  const cycle = findCycle(edges);
  const explained = cycle?.slice(1).map((to, i) => edges.get(cycle[i])!.get(to)!);
  assert.equal(cycle, undefined, `${cycle?.join(' -> ')}: ${explained?.join('; ')}`);
});

test('the cycle finder finds long cycles and passes a layered graph', () => {
  const graph = (pairs: string[]) => {
    const g = new Map<string, Map<string, string>>();
    for (const p of pairs) {
      const [a, b] = p.split('>');
      if (!g.has(a)) g.set(a, new Map());
      g.get(a)!.set(b, p);
    }
    return g;
  };
  assert.deepEqual(findCycle(graph(['a>b', 'b>c', 'c>d', 'd>b', 'a>d'])), ['b', 'c', 'd', 'b']);
  assert.deepEqual(findCycle(graph(['a>b', 'b>a'])), ['a', 'b', 'a']);
  assert.equal(findCycle(graph(['a>b', 'a>c', 'b>d', 'c>d', 'd>e'])), undefined);
});
