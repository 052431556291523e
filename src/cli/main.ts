// Entry point. Node's compile cache must be on before the (large) dependency graph loads, so the
// program is imported only after enabling it. The bundled build (dist/, made by scripts/build.ts)
// is what `npm start` runs; this file runs the TypeScript sources directly, for development.
import module from 'node:module';
import { availableParallelism } from 'node:os';

// As bin/lumen-rpc.js: room in libuv's threadpool for the simulations (see src/host/simulator.ts).
process.env.UV_THREADPOOL_SIZE ??= String(availableParallelism() + 4);
module.enableCompileCache?.();
await import('./program.ts');
