// Params schemas are compiled by ajv on first use, not at start. Compiling every method's schema at
// start, each first checked against JSON Schema's meta-schema (itself compiled for that, ~100 ms),
// was a third of a fresh node's time to its first answer, for methods most runs never call.
// The schemas are constants of the code: the meta-schema check is a unit test's job
// (test/unit/rpc/paramsSchemas.test.ts compiles every served method's), not each start's.
import { Ajv, type Options, type ValidateFunction } from 'ajv';

/** An ajv for params: no meta-schema check of the (constant) schemas it compiles. */
export const paramsAjv = (options: Options): Ajv => new Ajv({ ...options, validateSchema: false });

/** A schema's validator, compiled the first time it is asked for (a bad schema throws then). */
export function lazyValidator(ajv: Ajv, schema: object): () => ValidateFunction {
  let validate: ValidateFunction | undefined;
  return () => (validate ??= ajv.compile(schema));
}
