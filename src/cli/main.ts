// Entry point. Node's compile cache must be on before the (large) dependency graph loads, so the
// program is imported only after enabling it. The bundled build (dist/, made by scripts/build.ts)
// is what `npm start` runs; this file runs the TypeScript sources directly, for development.
import module from 'node:module';

module.enableCompileCache?.();
await import('./program.ts');
