#!/usr/bin/env node
// Runs the bundled build when it exists (fast start: runBundle.js), else the TypeScript sources (Node >= 22.18).
//
// The node needs Node >= 22.15 (node:sqlite, the SDK); `npm ci` installs Node 24 into node_modules
// for exactly that. A machine's older `node` running this file (`node bin/lumen-rpc.js`, or a PATH
// without node_modules/.bin) hands the whole command to the project's own Node instead of failing
// on the first import it lacks. This file therefore sticks to syntax Node 18 parses.
//
// Node's built-ins are taken with process.getBuiltinModule, not imported: an ES import of one reads
// all its exports, whose lazy ones load more of Node (node:fs's ReadStream loads its streams), and
// node:child_process loads node:net; a few ms of every start, for nothing this path uses.

const MIN_MAJOR = 22, MIN_MINOR = 15;
const [major, minor] = process.versions.node.split('.').map(Number);

if (major < MIN_MAJOR || (major === MIN_MAJOR && minor < MIN_MINOR)) {
  const { spawn } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
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
  process.getBuiltinModule('node:module').enableCompileCache?.();
  const { existsSync } = process.getBuiltinModule('node:fs');
  const bundle = process.getBuiltinModule('node:url').fileURLToPath(new URL('../dist/lumen-rpc.cjs', import.meta.url));
  if (existsSync(bundle)) (await import('./runBundle.js')).runBundle(bundle);
  else await import(new URL('../src/cli/program.ts', import.meta.url).href);
}
