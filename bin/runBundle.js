// Runs the bundled build (dist/lumen-rpc.cjs, made by scripts/build.ts) with a V8 code cache of what
// a run compiled in its first seconds.
//
// Node's compile cache (module.enableCompileCache) is made when a module is compiled, before it runs:
// it holds the bundle's top level, not the module bodies and functions that start-up then calls,
// which V8 compiles lazily, again on every start (about a quarter of a fresh node's time to its first
// answer). A vm.Script's cache can be made after the script ran (createCachedData), and holds those.
// It is kept in Node's compile cache folder (which names Node's version, and is off when Node's
// cache is off), one file per checkout and command, made once: by the first run of a build, a few
// seconds in or at its exit. V8 refuses a cache of another V8 or other flags; the bundle's hash,
// stored in the file, refuses one of another build. Files are written whole, then renamed.
// (built-ins taken as bin/lumen-rpc.js takes them, see there)
const { createHash } = process.getBuiltinModule('node:crypto');
const { readFileSync, renameSync, unlinkSync, writeFileSync } = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');
const { dirname, join } = process.getBuiltinModule('node:path');
const vm = process.getBuiltinModule('node:vm');

/** The cache is made this long after the bundle started (or at exit, if sooner): start-up is over. */
const SAVE_AFTER_MS = 3000;
const HASH_BYTES = 20; // sha1

/** Runs the CommonJS bundle at `file` as node would require it, with the cache when there is one. */
export function runBundle(file) {
  const bytes = readFileSync(file);
  const source = bytes.toString('utf8');
  const cacheFile = cacheFileOf(file);
  const hash = cacheFile && createHash('sha1').update(bytes).digest();
  const cachedData = cacheFile && readCache(cacheFile, hash);
  const script = new vm.Script(module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      writeCache(cacheFile, hash, script.createCachedData());
    };
    setTimeout(save, SAVE_AFTER_MS).unref();
    process.once('exit', save);
  }
  const exports = {};
  const bundleModule = { exports };
  script.runInThisContext().call(exports, exports, module.createRequire(file), bundleModule, file, dirname(file));
}

/** Where this checkout's cache for this command lives; undefined when Node's compile cache is off. */
function cacheFileOf(file) {
  const dir = module.getCompileCacheDir?.();
  if (!dir) return undefined;
  const command = /^[a-z][a-z-]*$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
  return join(dir, `lumen-rpc-${createHash('sha1').update(`${file}\0${command}`).digest('hex').slice(0, 16)}.v8cache`);
}

/** The stored V8 cache when it was made from these bundle bytes. */
function readCache(cacheFile, hash) {
  let stored;
  try { stored = readFileSync(cacheFile); } catch { return undefined; }
  return stored.length > HASH_BYTES && hash.equals(stored.subarray(0, HASH_BYTES)) ? stored.subarray(HASH_BYTES) : undefined;
}

function writeCache(cacheFile, hash, data) {
  const partial = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, Buffer.concat([hash, data]));
    renameSync(partial, cacheFile);
  } catch {
    // a folder this user cannot write: the next start compiles as this one did
    try { unlinkSync(partial); } catch { /* never written */ }
  }
}
