#!/usr/bin/env node
// Runs the bundled build when it exists (fast start), else the TypeScript sources (Node >= 22.18).
import module from 'node:module';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// Each running simulation holds one libuv threadpool thread (4 by default, shared with fs, dns and
// crypto) while the host works on its own thread: leave room for the default preflight worker
// count (one per CPU) and the rest. Must be set before anything uses the pool.
process.env.UV_THREADPOOL_SIZE ??= String(availableParallelism() + 4);

module.enableCompileCache?.();
const bundle = new URL('../dist/lumen-rpc.mjs', import.meta.url);
await import(existsSync(bundle) ? bundle.href : new URL('../src/cli/program.ts', import.meta.url).href);
