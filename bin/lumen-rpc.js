#!/usr/bin/env node
// Runs the bundled build when it exists (fast start), else the TypeScript sources (Node >= 22.18).
import module from 'node:module';
import { existsSync } from 'node:fs';

module.enableCompileCache?.();
const bundle = new URL('../dist/lumen-rpc.mjs', import.meta.url);
await import(existsSync(bundle) ? bundle.href : new URL('../src/cli/program.ts', import.meta.url).href);
