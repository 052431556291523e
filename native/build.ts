// Builds the native addon (native/ -> native/lumen_native.node) with plain cargo: no download step,
// no napi CLI. Runs from `npm ci` / `npm install` (package.json "install", through
// bin/installNative.js) and `npm run build:native`.
//
// Cargo's target folder lives outside the clone so repeated CI runs and several clones on one
// machine share compiled dependencies: $LUMEN_NATIVE_TARGET_DIR, else $CARGO_TARGET_DIR, else
// ${XDG_CACHE_HOME:-~/.cache}/lumen-rpc/target. A warm rebuild is a cargo no-op (about a second).
//
// LUMEN_SKIP_NATIVE=1 skips the build (machines that never run the Soroban host);
// LUMEN_NATIVE_PROFILE=dev builds unoptimized (faster to compile, much slower to run).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// this file's folder (run from source), or the package's native/ beside dist/ (run as the bundle an
// installed package carries: bin/installNative.js)
const here = dirname(fileURLToPath(import.meta.url));
const nativeDir = existsSync(join(here, 'Cargo.toml')) ? here : join(dirname(here), 'native');
const output = join(nativeDir, 'lumen_native.node');

function log(msg: string): void {
  process.stderr.write(`[native] ${msg}\n`);
}

function targetDir(): string {
  const explicit = process.env.LUMEN_NATIVE_TARGET_DIR || process.env.CARGO_TARGET_DIR;
  if (explicit) return explicit;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'lumen-rpc', 'target');
}

function libraryName(): string {
  switch (process.platform) {
    case 'win32': return 'lumen_native.dll';
    case 'darwin': return 'liblumen_native.dylib';
    default: return 'liblumen_native.so';
  }
}

function main(): number {
  if (process.env.LUMEN_SKIP_NATIVE === '1') {
    log('LUMEN_SKIP_NATIVE=1: not building the native addon (the Soroban host will be unavailable)');
    return 0;
  }
  const cargo = process.env.CARGO || 'cargo';
  const probe = spawnSync(cargo, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    log(`cannot run '${cargo}': the native addon needs a Rust toolchain (rustc >= 1.88, https://rustup.rs).`);
    log('Install it and run `npm run build:native`, or set LUMEN_SKIP_NATIVE=1 to install without the Soroban host.');
    return 1;
  }
  const profile = process.env.LUMEN_NATIVE_PROFILE === 'dev' ? 'dev' : 'release';
  const target = targetDir();
  log(`${probe.stdout.trim()}; profile ${profile}; target dir ${target}`);
  const started = Date.now();
  const args = ['build', '--locked', '--manifest-path', join(nativeDir, 'Cargo.toml'), '--profile', profile];
  // (napi-build's build.rs adds the link flags macOS needs for Node's napi_* symbols.)
  const env = { ...process.env, CARGO_TARGET_DIR: target };
  const build = spawnSync(cargo, args, { stdio: 'inherit', env });
  if (build.error || build.status !== 0) {
    log(`cargo build failed (${build.error?.message ?? `exit ${build.status}`})`);
    return 1;
  }
  const artifact = join(target, profile === 'dev' ? 'debug' : 'release', libraryName());
  if (!existsSync(artifact)) {
    log(`cargo succeeded but ${artifact} is missing`);
    return 1;
  }
  // Copy then rename: a process that has the old addon loaded keeps its (unlinked) file intact.
  const tmp = `${output}.${process.pid}.tmp`;
  try {
    copyFileSync(artifact, tmp);
    renameSync(tmp, output);
  } finally {
    rmSync(tmp, { force: true });
  }
  log(`built ${output} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

process.exitCode = main();
