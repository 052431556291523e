// The bundle's start-up code cache (bin/runBundle.js): made by the first run of a build in Node's
// compile cache folder, tied to the bundle's bytes, and never trusted blindly: a cache of another
// build, or one V8 refuses, is replaced, and the command's output is the same as without a cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const launcher = join(root, 'bin/lumen-rpc.js');
const bundle = join(root, 'dist/lumen-rpc.cjs');
const ARGS = ['gen-config', '--friendbot', 'false'];

function run(env: Record<string, string>): string {
  const r = spawnSync(process.execPath, [launcher, ...ARGS], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The cache files under a compile cache folder (Node puts a folder per Node version in it). */
function cacheFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /lumen-rpc-[0-9a-f]+\.v8cache$/.test(f)).map((f) => join(dir, f));
}

test('the bundle keeps a code cache of its own build, and replaces one it cannot use', { skip: !existsSync(bundle) && 'no bundle (node scripts/build.ts)' }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bundle-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { NODE_COMPILE_CACHE: dir };
  const uncached = run({ NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: dir });
  assert.deepEqual(cacheFiles(dir), [], 'with Node\'s cache off, none is made');

  assert.equal(run(env), uncached);
  const files = cacheFiles(dir);
  assert.equal(files.length, 1);
  const [file] = files;
  const bundleHash = createHash('sha1').update(readFileSync(bundle)).digest();
  const made = readFileSync(file);
  assert.deepEqual(made.subarray(0, 20), bundleHash, 'the cache names the bundle it was made from');
  assert.ok(made.length > 100_000, `the cache holds compiled code (${made.length} bytes)`);

  assert.equal(run(env), uncached, 'a run with the cache answers the same');

  // another build's cache (its hash differs): not used, replaced
  writeFileSync(file, Buffer.concat([Buffer.alloc(20, 7), made.subarray(20)]));
  assert.equal(run(env), uncached);
  const replaced = readFileSync(file);
  assert.deepEqual(replaced.subarray(0, 20), bundleHash);
  assert.ok(replaced.length > 100_000);

  // this build's hash on data V8 refuses: replaced too
  writeFileSync(file, Buffer.concat([bundleHash, Buffer.alloc(4096, 1)]));
  assert.equal(run(env), uncached);
  const remade = readFileSync(file);
  assert.deepEqual(remade.subarray(0, 20), bundleHash);
  assert.ok(remade.length > 100_000, 'V8\'s refusal made a new cache');
});
