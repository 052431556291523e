// Params schemas are compiled by ajv on first use, not at start. Compiling every method's schema at
// start, each first checked against JSON Schema's meta-schema (itself compiled for that, ~100 ms),
// was a third of a fresh node's time to its first answer, for methods most runs never call.
// The schemas are constants of the code: the meta-schema check is a unit test's job
// (test/unit/rpc/paramsSchemas.test.ts compiles every served method's), not each start's.
import { Ajv, type Options, type ValidateFunction } from 'ajv';

/**
 * An ajv for params, made when it first compiles a schema (making one costs a millisecond or two of
 * a start, whose first calls may need none): no meta-schema check of the (constant) schemas it
 * compiles, so without the meta-schema itself.
 */
export function paramsAjv(options: Options): () => Ajv {
  let ajv: Ajv | undefined;
  return () => (ajv ??= new Ajv({ ...options, validateSchema: false, meta: false }));
}

/**
 * A schema's validator, compiled the first time it is asked for (a bad schema throws then). The
 * schema of methods without params, `{ type: 'object' }`, needs no compiling: its validator is a
 * type check (compiling it cost the first call of getLatestLedger, getNetwork, ... a few ms).
 */
export function lazyValidator(ajv: () => Ajv, schema: object): () => ValidateFunction {
  if (isAnyObjectSchema(schema)) return () => anyObject;
  let validate: ValidateFunction | undefined;
  return () => (validate ??= ajv().compile(schema));
}

const isAnyObjectSchema = (schema: object): boolean =>
  Object.keys(schema).length === 1 && (schema as { type?: unknown }).type === 'object';

/** What ajv compiles `{ type: 'object' }` to: a type check, with ajv's error for a wrong type. */
const anyObject = ((): ValidateFunction => {
  const check = ((data: unknown): boolean => {
    const ok = typeof data === 'object' && data !== null && !Array.isArray(data);
    check.errors = ok ? null : [{ instancePath: '', schemaPath: '#/type', keyword: 'type', params: { type: 'object' }, message: 'must be object' }];
    return ok;
  }) as unknown as ValidateFunction;
  check.errors = null;
  return check;
})();
