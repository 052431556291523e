// The OpenRPC 1.3.2 document of a list of methods (what rpc.discover answers), built from the method
// definitions alone: each method's params from its validation schema plus its doc's additions, its
// result schema as written beside the method, and, for methods whose answers carry XDR, the result
// under xdrFormat "json" as a second form (anyOf).
import type { JsonSchema, Method } from '../methods/types.ts';
import { xdrJsonForm } from './xdrJsonForm.ts';

export const OPENRPC_VERSION = '1.3.2';

export interface ContentDescriptor {
  name: string;
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface OpenRpcMethod {
  name: string;
  summary?: string;
  description?: string;
  paramStructure?: 'by-name' | 'by-position' | 'either';
  params: ContentDescriptor[];
  result: ContentDescriptor;
}

export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description?: string };
  methods: OpenRpcMethod[];
}

/** Titles of the two forms of a result that carries XDR. */
export const BASE64_FORM_TITLE = 'xdrFormat base64 (default)';
export const JSON_FORM_TITLE = 'xdrFormat json';

function paramsOf(method: Method): ContentDescriptor[] {
  const schema = method.paramsSchema as { type?: unknown; properties?: Record<string, JsonSchema> };
  if (schema.type !== 'object') throw new Error(`${method.name}: params schema is not an object schema`);
  const docs = method.doc?.params ?? {};
  for (const name of Object.keys(docs)) {
    if (!schema.properties?.[name]) throw new Error(`${method.name}: doc describes param ${name}, which its params schema lacks`);
  }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = { ...property, ...docs[name]?.schema };
    return {
      name,
      ...(typeof description === 'string' ? { description } : {}),
      required: docs[name]?.required === true,
      schema: rest,
    };
  });
}

/** A method's result: one schema, or its base64 and json forms. */
function resultOf(method: Method): ContentDescriptor {
  const result = method.doc?.result;
  if (!result) throw new Error(`${method.name} has no result schema (doc.result)`);
  const json = xdrJsonForm(result.schema);
  const schema = json === undefined ? result.schema : {
    anyOf: [{ title: BASE64_FORM_TITLE, ...result.schema }, { title: JSON_FORM_TITLE, ...json }],
  };
  return { name: result.name, schema };
}

export function openRpcDocument(methods: readonly Method[], version: string): OpenRpcDocument {
  const doc: OpenRpcDocument = {
    openrpc: OPENRPC_VERSION,
    info: {
      title: 'lumen-rpc',
      version,
      description: 'Stellar smart-contract (Soroban) JSON-RPC API, wire-compatible with stellar-rpc, with an '
        + 'embedded standalone network. Members and params marked "lumen-rpc extension" go beyond the reference.',
    },
    methods: methods.map((m) => ({
      name: m.name,
      ...(m.doc?.summary ? { summary: m.doc.summary } : {}),
      ...(m.doc?.description ? { description: m.doc.description } : {}),
      paramStructure: 'by-name',
      params: paramsOf(m),
      result: resultOf(m),
    })),
  };
  // plain JSON: no shared objects, no marks (symbols) left
  return JSON.parse(JSON.stringify(doc)) as OpenRpcDocument;
}

/** The schema of a method's result in its default (base64) form. */
export function base64Form(result: JsonSchema): JsonSchema {
  const forms = result.anyOf as JsonSchema[] | undefined;
  return forms?.find((f) => f.title === BASE64_FORM_TITLE) ?? result;
}
