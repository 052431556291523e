// A result schema as answered under xdrFormat "json", derived from its base64 form: every member
// marked by xdrValue/xdrList (methods/shared/schemas.ts) is renamed (`envelopeXdr` to
// `envelopeJson`, getLedgerEntries' `xdr` to `dataJson`, ...) and holds the XDR value's JSON
// instead of base64, lists staying lists. Derived rather than written twice, so the two forms of a
// method cannot drift apart.
import type { JsonSchema } from '../methods/types.ts';
import { xdrJsonMark } from '../methods/shared/schemas.ts';

/** A base64 member's value as JSON: any JSON value, nested in as many lists as the base64 one. */
function asJson(schema: JsonSchema, xdrType: string): JsonSchema {
  if (schema.type === 'array') return { type: 'array', items: asJson(schema.items as JsonSchema, xdrType) };
  return { description: `${xdrType} as JSON` };
}

/** The "json" form of `schema`, or undefined when no member of it changes under xdrFormat "json". */
export function xdrJsonForm(schema: JsonSchema): JsonSchema | undefined {
  if (schema.type === 'array' && schema.items !== undefined) {
    const items = xdrJsonForm(schema.items as JsonSchema);
    return items && { ...schema, items };
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type !== 'object' || properties === undefined) return undefined;

  const required = new Set((schema.required as string[] | undefined) ?? []);
  const outProperties: Record<string, JsonSchema> = {};
  const outRequired: string[] = [];
  let changed = false;
  for (const [name, member] of Object.entries(properties)) {
    const mark = xdrJsonMark(member);
    if (mark === undefined) {
      const inner = xdrJsonForm(member);
      if (inner) changed = true;
      outProperties[name] = inner ?? member;
      if (required.has(name)) outRequired.push(name);
      continue;
    }
    changed = true;
    if (mark.keepAs) {
      outProperties[name] = mark.keepAs;
      if (required.has(name)) outRequired.push(name);
    }
    outProperties[mark.name] = asJson(member, mark.xdrType);
    if (required.has(name) && !mark.optional) outRequired.push(mark.name);
  }
  if (!changed) return undefined;
  const form: JsonSchema = { ...schema, required: outRequired, properties: outProperties };
  if (outRequired.length === 0) delete form.required;
  return form;
}
