// Entry point. Node's compile cache must be on before the (large) dependency graph loads, so the
// program itself is imported only after enabling it; repeated starts then skip most parsing.
import module from 'node:module';

module.enableCompileCache?.();
await import('./program.ts');
