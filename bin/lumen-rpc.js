#!/usr/bin/env node
// Runs the bundled build when it exists (fast start: runBundle.js), else the TypeScript sources (Node >= 22.18).
//
// The node needs Node >= 22.15 (node:sqlite, the SDK); `npm ci` installs Node 24 into node_modules
// for exactly that. A machine's older `node` running this file (`node bin/lumen-rpc.js`, or a PATH
// without node_modules/.bin) hands the whole command to the project's own Node instead of failing
// on the first import it lacks. This file therefore sticks to syntax Node 18 parses.
import module from 'node:module';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22, MIN_MINOR = 15;
const [major, minor] = process.versions.node.split('.').map(Number);

if (major < MIN_MAJOR || (major === MIN_MAJOR && minor < MIN_MINOR)) {
  const ownNode = fileURLToPath(new URL(`../node_modules/node/bin/node${process.platform === 'win32' ? '.exe' : ''}`, import.meta.url));
  if (!existsSync(ownNode)) {
    process.stderr.write(`lumen-rpc needs Node >= ${MIN_MAJOR}.${MIN_MINOR} (this is ${process.version}). `
      + 'Run `npm ci` in the project first: it installs Node 24 into node_modules, which this command then uses.\n');
    process.exit(1);
  }
  const child = spawn(ownNode, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl-C reaches both processes from the terminal; a signal sent to this pid alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
    else process.exit(code ?? 1);
  });
} else {
  module.enableCompileCache?.();
  const bundle = fileURLToPath(new URL('../dist/lumen-rpc.cjs', import.meta.url));
  if (existsSync(bundle)) (await import('./runBundle.js')).runBundle(bundle);
  else await import(new URL('../src/cli/program.ts', import.meta.url).href);
}
