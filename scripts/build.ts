// Bundles the server into one file. Loading the SDK's ~600 modules one by one costs most of a
// second at start-up (resolution and compilation, not execution); one file loads in a fraction of it.
// The file is CommonJS, run by bin/runBundle.js as a vm.Script: that keeps a code cache of what
// start-up compiled, which Node's cache of an ES module cannot (see there).
// Run by `npm start`, `npm test` and the install; the TypeScript sources stay runnable directly.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { staleGeneratedFiles } from './xdr/generate.ts';
import { writeLibraryTypes } from './libraryTypes.ts';

const started = performance.now();
// the generated XDR module must be what the generator makes of the vendored definitions
const stale = staleGeneratedFiles();
if (stale) {
  console.error(stale);
  process.exit(1);
}
// fastify's routes (src/transport/webRoutes.ts) are built at the first request for one: in a file of
// their own, with fastify, so the start reads, hashes and decodes a third less (bin/runBundle.js)
const webRoutesApart: Plugin = {
  name: 'web-routes-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/webRoutes\.ts$/ }, (args) => (args.importer.endsWith('httpServer.ts') ? { path: './webRoutes.cjs', external: true } : undefined));
  },
};
/** What every bundle shares: Node 22 and later, native addons loaded from their own files at run time. */
const NODE_BUNDLE: BuildOptions = { bundle: true, platform: 'node', target: 'node22', logLevel: 'warning', external: ['*.node'] };
/**
 * A CommonJS bundle: the sources find the addon and package.json from their own URL, which in
 * CommonJS is the bundle's file.
 */
const COMMONJS: BuildOptions = {
  ...NODE_BUNDLE, format: 'cjs',
  define: { 'import.meta.url': '__lumenBundleUrl' },
  banner: { js: "var __lumenBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
};
await build({
  ...COMMONJS,
  // the others: fastify's routes (loaded at the first request for one), the thread datastore
  // batches are walked on (src/sources/datastore/batchWalker.ts) and the one traces run on
  // (src/trace/traceWorkers.ts)
  entryPoints: {
    'lumen-rpc': 'src/cli/program.ts', webRoutes: 'src/transport/webRoutes.ts', 'lumen-rpc-batch-walker': 'src/sources/datastore/batchWalkWorker.ts',
    'lumen-rpc-trace-worker': 'src/trace/traceWorker.ts',
  },
  plugins: [webRoutesApart],
  // import() of that file as require(): a vm.Script's own import() is experimental in Node
  supported: { 'dynamic-import': false },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  sourcemap: 'linked',
});
// the block explorer the node serves at /explorer (src/explorer/routes.ts): the browser code of
// web/explorer/ as one script and one style sheet, named by a hash of their content (served as
// immutable), and the page that loads them. `npm start` serves it too, so --cli-only builds it.
await buildExplorer();
// lumen-rpc as a library (package.json's exports): src/library/startNetwork.ts in one file for
// `import` and one for `require` (jest's default), each holding fastify's routes (a test's network
// starts once, so splitting them off would save nothing); the batch walker's thread is the file
// above. Bundled CommonJS dependencies call require, which an ES module gets from createRequire.
const library: BuildOptions = { entryPoints: ['src/library/startNetwork.ts'], sourcemap: 'linked' };
// `npm start` (--cli-only) needs only the command line's files
if (!process.argv.includes('--cli-only')) await Promise.all([
  build({
    ...NODE_BUNDLE, ...library, format: 'esm', outfile: 'dist/library.mjs',
    banner: { js: "import { createRequire as __lumenCreateRequire } from 'node:module'; const require = __lumenCreateRequire(import.meta.url);" },
  }),
  build({ ...COMMONJS, ...library, outfile: 'dist/library.cjs' }),
  Promise.resolve().then(writeLibraryTypes),
  // the addon's build as an installed package runs it (bin/installNative.js): Node does not strip
  // types under node_modules
  build({ ...COMMONJS, entryPoints: ['native/build.ts'], outfile: 'dist/lumen-rpc-build-native.cjs' }),
]);
// the ES module bundle earlier builds made
rmSync('dist/lumen-rpc.mjs', { force: true });
rmSync('dist/lumen-rpc.mjs.map', { force: true });
if (!process.argv.includes('--quiet')) console.log(`built dist/lumen-rpc.cjs, dist/webRoutes.cjs, dist/lumen-rpc-batch-walker.cjs, dist/explorer/ and dist/library.{mjs,cjs,d.ts} in ${Math.round(performance.now() - started)} ms`);

async function buildExplorer(): Promise<void> {
  const out = 'dist/explorer';
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: ['web/explorer/explorer.ts', 'web/explorer/explorer.css'],
    bundle: true, platform: 'browser', format: 'esm', target: ['es2022', 'chrome111', 'firefox115', 'safari16'],
    minify: true, legalComments: 'none', logLevel: 'warning', metafile: true,
    outdir: out, entryNames: '[name]-[hash]',
  });
  const named = (ext: string): string => {
    const file = Object.keys(result.metafile.outputs).find((f) => f.endsWith(ext));
    if (file === undefined) throw new Error(`the explorer's build made no ${ext} file`);
    return `/explorer/${basename(file)}`;
  };
  const page = readFileSync('web/explorer/index.html', 'utf8').replace('%SCRIPT%', named('.js')).replace('%STYLE%', named('.css'));
  writeFileSync(`${out}/index.html`, page);
}
