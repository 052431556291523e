// The examples (examples/): each test suite, run by its own runner as its README says, passes. They
// import lumen-rpc by name (package.json's exports, so the bundles `npm test` builds first).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from './support/commands.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');

/** Runs `command` in the repository with its tools first on PATH; its status and output. */
function run(command: string, args: string[], env: Record<string, string> = {}): { status: number | null; output: string } {
  const r = runCommand(command, args, { cwd: ROOT, pathFirst: BIN, env });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

it('node:test example', () => {
  const r = run(process.execPath, ['--test', 'examples/node-test/*.test.mjs']);
  assert.equal(r.status, 0, r.output);
  assert.match(r.output, /pass 2\n.*fail 0/);
});

it('vitest example', () => {
  const r = run(join(BIN, 'vitest'), ['run', '--root', 'examples/vitest']);
  assert.equal(r.status, 0, r.output);
  assert.match(r.output, /2 passed/);
});

it('jest example (CommonJS)', () => {
  // the JS SDK 17's CommonJS build requires an ES module (uint8array-extras): jest loads that only
  // with Node's VM modules on, as the example's README says
  const r = run(join(BIN, 'jest'), ['--rootDir', 'examples/jest', '--config', 'examples/jest/jest.config.cjs'],
    { NODE_OPTIONS: '--experimental-vm-modules --no-warnings=ExperimentalWarning' });
  assert.equal(r.status, 0, r.output);
  assert.match(r.output, /Tests:\s+2 passed/);
});
