// The shape of the stellar-xdr crate's `xdr-definitions-json/xdr.json` (format version 1), as the
// generator reads it. Every definition keeps its XDR spelling (`SCAddress`, `AccountID`, `uint32`);
// anonymous nested structs and unions are already hoisted to named definitions, `default` union arms
// are already expanded into explicit cases, and array bounds are already numbers.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type XdrTypeRef =
  | { kind: 'ref'; name: string }
  | { kind: 'int' | 'unsigned_int' | 'hyper' | 'unsigned_hyper' | 'bool' | 'float' | 'double' }
  | { kind: 'opaque_fixed'; size: number }
  | { kind: 'opaque_var'; max_size?: number }
  | { kind: 'string'; max_size?: number }
  | { kind: 'array'; element: XdrTypeRef; count: number }
  | { kind: 'var_array'; element: XdrTypeRef; max_count?: number }
  | { kind: 'optional'; element: XdrTypeRef };

export interface StructDef { kind: 'struct'; name: string; fields: { name: string; type: XdrTypeRef }[] }
export interface EnumDef { kind: 'enum'; name: string; member_prefix: string; members: { name: string; value: number }[] }
export interface UnionArmDef { cases: { value: number; name?: string }[]; name: string | null; type?: XdrTypeRef }
export interface UnionDef { kind: 'union'; name: string; discriminant: { name: string; type: XdrTypeRef }; arms: UnionArmDef[] }
export interface TypedefDef { kind: 'typedef'; name: string; type: XdrTypeRef }
export interface ConstDef { kind: 'const'; name: string; value: number }
export type Definition = StructDef | EnumDef | UnionDef | TypedefDef | ConstDef;

export interface XdrDefinitions {
  version: number;
  files: { name: string; sha256: string }[];
  resolved_features: string[];
  definitions: Definition[];
}

export interface LoadedDefinitions {
  path: string;
  sha256: string;
  spec: XdrDefinitions;
  byName: Map<string, Definition>;
}

export function loadDefinitions(path: string): LoadedDefinitions {
  const bytes = readFileSync(path);
  const spec = JSON.parse(bytes.toString('utf8')) as XdrDefinitions;
  if (spec.version !== 1) throw new Error(`${path}: xdr.json format version ${spec.version}, the generator reads version 1`);
  const byName = new Map<string, Definition>();
  for (const d of spec.definitions) {
    if (byName.has(d.name)) throw new Error(`${path}: ${d.name} is defined twice`);
    byName.set(d.name, d);
  }
  return { path, sha256: createHash('sha256').update(bytes).digest('hex'), spec, byName };
}
