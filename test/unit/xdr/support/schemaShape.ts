// A js-xdr schema as text: its kind, names, bounds and arms, with the named types it uses as
// references. Two schemas with the same shape read and write the same bytes as the same wire values.
import type { AnySchema, XdrType } from '@stellar/js-xdr';

const unwrap = (schema: XdrType<unknown>): AnySchema => {
  let s = schema as AnySchema;
  while (s.kind === 'lazy') s = s.getSchema() as AnySchema;
  return s;
};

export function schemaShape(schema: XdrType<unknown>, top = true): string {
  const s = unwrap(schema);
  switch (s.kind) {
    case 'enum':
      if (!top) return `${s.name}`;
      return `enum ${s.name} {${[...s.nameByValue].map(([v, n]) => `${n}=${v}`).join(', ')}} prefix ${(s as { memberPrefix?: string }).memberPrefix}`;
    case 'struct':
      return top ? `struct ${s.name} {${s.entries.map(([k, f]) => `${k}: ${schemaShape(f, false)}`).join('; ')}}` : `${s.name}`;
    case 'union': {
      if (!top) return `${s.name}`;
      const cases = s.cases.map((c) => {
        const arm = 'schema' in c.arm ? `${(c.arm as { name: string }).name}: ${schemaShape((c.arm as { schema: XdrType<unknown> }).schema, false)}` : 'void';
        return `${c.name}=${String(c.discriminant)} ${arm}`;
      });
      return `union ${s.name} switch (${s.switchKey}: ${schemaShape(s.switchOn, false)}) {${cases.join('; ')}}${s.defaultArm ? ' +default' : ''}`;
    }
    case 'opaque': return `opaque[${s.length}]${s.name ? ` ${s.name}` : ''}`;
    case 'varOpaque': return `opaque<${s.maxLength}>${s.name ? ` ${s.name}` : ''}`;
    case 'string': return `string<${s.maxLength}>`;
    case 'array': return `${schemaShape(s.element, false)}<${s.maxLength}>`;
    case 'fixedArray': return `${schemaShape(s.element, false)}[${s.length}]`;
    case 'option': return `${schemaShape(s.element, false)}*`;
    default: return s.kind;
  }
}

/** The named types a schema uses, at any depth (itself included). */
export function namedTypesUsed(schema: XdrType<unknown>, into = new Set<string>()): Set<string> {
  const s = unwrap(schema);
  if (s.name !== undefined) {
    if (into.has(s.name)) return into;
    into.add(s.name);
  }
  switch (s.kind) {
    case 'struct': for (const [, f] of s.entries) namedTypesUsed(f, into); break;
    case 'union':
      namedTypesUsed(s.switchOn, into);
      for (const c of s.cases) if ('schema' in c.arm) namedTypesUsed((c.arm as { schema: XdrType<unknown> }).schema, into);
      break;
    case 'array': case 'fixedArray': case 'option': namedTypesUsed(s.element, into); break;
    default: break;
  }
  return into;
}
