#!/usr/bin/env node
// package.json's "install": the native addon (the Soroban host), built with cargo unless it is there.
//  - In this repository (`npm ci`): native/build.ts, which cargo keeps up to date (a warm rebuild
//    is a no-op).
//  - In an installed package (node_modules/lumen-rpc): an addon packed with the package for this
//    platform is used as it is; else the bundled build (dist/lumen-rpc-build-native.cjs, since Node
//    does not strip types under node_modules) compiles it, when cargo is there. Without cargo the
//    install goes on and says, in one line, how to get the addon: the node runs without it until a
//    contract needs the host.
// Plain JavaScript that Node 18 parses, as bin/lumen-rpc.js.
const { existsSync } = process.getBuiltinModule('node:fs');
const { spawnSync } = process.getBuiltinModule('node:child_process');
const { dirname, join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');
const { createRequire } = process.getBuiltinModule('node:module');

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bundled = join(root, 'dist', 'lumen-rpc-build-native.cjs');
const addon = join(root, 'native', 'lumen_native.node');

function loads(path) {
  try {
    createRequire(import.meta.url)(path);
    return true;
  } catch {
    return false;
  }
}

if (!existsSync(bundled)) {
  // this repository: the sources
  const r = spawnSync(process.execPath, [join(root, 'native', 'build.ts')], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
if (process.env.LUMEN_SKIP_NATIVE !== '1' && existsSync(addon) && loads(addon)) process.exit(0);
const runs = (command) => {
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return !probe.error && probe.status === 0;
};
if (process.env.LUMEN_SKIP_NATIVE !== '1') {
  // the crates compile C code too (cc): without a compiler cargo would fail after minutes
  const missing = !runs(process.env.CARGO || 'cargo') ? 'cargo (install Rust: https://rustup.rs, rustc >= 1.88)'
    : process.platform !== 'win32' && !runs(process.env.CC || 'cc') ? 'a C compiler (cc: Debian build-essential, macOS xcode-select --install)'
      : undefined;
  if (missing !== undefined) {
    process.stderr.write(`lumen-rpc: no native addon for this platform; building it needs ${missing}: install it, then run \`npm rebuild lumen-rpc\`\n`);
    process.exit(0);
  }
}
const r = spawnSync(process.execPath, [bundled], { stdio: 'inherit' });
process.exit(r.status ?? 1);
