// The folder cargo builds the test-only Rust crates into: the native addon's (native/build.ts),
// outside the clone: $LUMEN_NATIVE_TARGET_DIR, else $CARGO_TARGET_DIR, else
// ${XDG_CACHE_HOME:-~/.cache}/lumen-rpc/target. Shared, so dependencies compile once per machine.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cargoTargetDir(): string {
  const explicit = process.env.LUMEN_NATIVE_TARGET_DIR || process.env.CARGO_TARGET_DIR;
  if (explicit) return explicit;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lumen-rpc', 'target');
}
