// bin/lumen-rpc.js as a new user runs it: with whatever `node` the machine has. One older than the
// node needs (22.15) must hand the command to the project's own Node, not fail on node:sqlite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { delimiter, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';

const root = resolve(import.meta.dirname, '../..');
const launcher = join(root, 'bin/lumen-rpc.js');
const projectBin = join(root, 'node_modules/.bin');

/** The first `node` on the PATH that is not the project's own (the machine's Node), if any. */
function machineNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || resolve(dir) === projectBin) continue;
    const candidate = join(dir, 'node');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function versionOf(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

test('the launcher runs a command under the machine Node, whatever its version', (t) => {
  const node = machineNode() ?? process.execPath;
  t.diagnostic(`machine node: ${node} ${versionOf(node)}`);
  const run = spawnSync(node, [launcher, 'replay', '--help'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /Usage: lumen-rpc replay/);
  assert.doesNotMatch(run.stderr, /node:sqlite|ERR_UNKNOWN_BUILTIN_MODULE/);
});

test('an unknown option exits non-zero through the handed-over process too', () => {
  const node = machineNode() ?? process.execPath;
  const run = spawnSync(node, [launcher, 'start', '--no-such-option'], { encoding: 'utf8', timeout: 60_000 });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /unknown option/);
});
