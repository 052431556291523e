// Bundles the server into one ESM file. Loading the SDK's ~600 modules one by one costs most of a
// second at start-up (resolution and compilation, not execution); one file loads in a fraction of it.
// Run by `npm start`, `npm test` and the install; the TypeScript sources stay runnable directly.
import { build } from 'esbuild';
import { staleGeneratedFiles } from './xdr/generate.ts';

const started = performance.now();
// the generated XDR module must be what the generator makes of the vendored definitions
const stale = staleGeneratedFiles();
if (stale) {
  console.error(stale);
  process.exit(1);
}
await build({
  // the second: the thread datastore batches are walked on (src/sources/datastore/batchWalker.ts)
  entryPoints: { 'lumen-rpc': 'src/cli/program.ts', 'lumen-rpc-batch-walker': 'src/sources/datastore/batchWalkWorker.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: 'linked',
  logLevel: 'warning',
  // native addons are loaded from their own files at run time
  external: ['*.node'],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins
  banner: { js: "import { createRequire as __lumenCreateRequire } from 'node:module'; const require = __lumenCreateRequire(import.meta.url);" },
});
if (!process.argv.includes('--quiet')) console.log(`built dist/lumen-rpc.mjs in ${Math.round(performance.now() - started)} ms`);
