// Compares our OpenRPC document with the reference's published one (stellar-docs'
// stellar-rpc.openrpc.json), method by method: params and result members by name, their JSON types
// (integer and number are one JSON type), which are required, and enums. Used by
// scripts/compareOpenRpc.ts and test/integration/openrpc.test.ts.
//
// What is a difference depends on the direction. In a result (what we send) a member the reference
// lists and we lack, a member we add, another JSON type, a member it requires and we may leave out,
// or a value outside its enum, would surprise a client. In params (what we accept) the same holds,
// except that accepting values beyond its enum is harmless. A member we always send where the
// reference's document only may is a note, not a difference. Differences listed in
// knownDifferences.ts are allowed (with their reason); the others fail.
import type { JsonSchema } from '../methods/types.ts';
import { base64Form, type ContentDescriptor, type OpenRpcDocument, type OpenRpcMethod } from './document.ts';
import { KNOWN_DIFFERENCES, type DifferenceKind, type KnownDifference, type Where } from './knownDifferences.ts';

export interface Finding {
  method: string;
  where: Where;
  /** The member: `events[].topic`, `pagination.order`; '' for the method itself. */
  path: string;
  kind: DifferenceKind | 'note';
  detail: string;
  /** For an allowed difference, the known difference that allows it. */
  allowedBy?: KnownDifference;
}

export interface Comparison {
  findings: Finding[];
  /** Differences not allowed: any makes the comparison fail. */
  failures: Finding[];
  /** Known differences that no finding matched (fixed, or not merged yet). */
  unused: KnownDifference[];
}

/** JSON types of a schema, integer counted as number; undefined when it does not say. */
function jsonTypes(schema: JsonSchema): string[] | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  const list = (Array.isArray(t) ? t : [t]) as string[];
  return [...new Set(list.map((x) => (x === 'integer' ? 'number' : x)))].sort();
}

const sameSet = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length && a.every((x) => b.some((y) => JSON.stringify(x) === JSON.stringify(y)));

class Walker {
  readonly findings: Finding[] = [];
  private readonly method: string;
  private readonly where: Where;
  constructor(method: string, where: Where) {
    this.method = method;
    this.where = where;
  }

  add(path: string, kind: Finding['kind'], detail: string): void {
    this.findings.push({ method: this.method, where: this.where, path, kind, detail });
  }

  /** Compares one member's schema (ref: the reference's, ours: ours) at `path`. */
  schema(path: string, ref: JsonSchema, ours: JsonSchema): void {
    const refTypes = jsonTypes(ref);
    const ourTypes = jsonTypes(ours);
    if (refTypes && ourTypes && !sameSet(refTypes, ourTypes)) {
      this.add(path, 'type', `reference ${refTypes.join('|')}, ours ${ourTypes.join('|')}`);
      return;
    }
    this.enums(path, ref.enum as unknown[] | undefined, ours.enum as unknown[] | undefined);
    if (ref.properties !== undefined || ours.properties !== undefined) this.members(path, ref, ours);
    if (ref.items !== undefined && ours.items !== undefined) {
      this.schema(`${path}[]`, ref.items as JsonSchema, ours.items as JsonSchema);
    }
  }

  private enums(path: string, ref: unknown[] | undefined, ours: unknown[] | undefined): void {
    if (ref === undefined) return; // ours may name the values the reference leaves open
    const show = (v: unknown[] | undefined) => (v ? v.map((x) => JSON.stringify(x)).join(', ') : 'any value');
    if (ours !== undefined && sameSet(ref, ours)) return;
    const acceptsMore = ours === undefined || ref.every((x) => ours.some((y) => JSON.stringify(x) === JSON.stringify(y)));
    if (this.where === 'params' && acceptsMore) {
      this.add(path, 'note', `accepts ${show(ours)} where the reference documents ${show(ref)}`);
    } else {
      this.add(path, 'enum', `reference ${show(ref)}, ours ${show(ours)}`);
    }
  }

  private members(path: string, ref: JsonSchema, ours: JsonSchema): void {
    const refProps = (ref.properties ?? {}) as Record<string, JsonSchema>;
    const ourProps = (ours.properties ?? {}) as Record<string, JsonSchema>;
    const refRequired = new Set((ref.required as string[] | undefined) ?? []);
    const ourRequired = new Set((ours.required as string[] | undefined) ?? []);
    const at = (name: string) => (path ? `${path}.${name}` : name);
    for (const [name, refMember] of Object.entries(refProps)) {
      const ourMember = ourProps[name];
      if (ourMember === undefined) {
        this.add(at(name), 'missing', 'the reference lists it, ours does not');
        continue;
      }
      this.required(at(name), refRequired.has(name), ourRequired.has(name));
      this.schema(at(name), refMember, ourMember);
    }
    for (const name of Object.keys(ourProps)) {
      if (!(name in refProps)) this.add(at(name), 'extra', 'ours lists it, the reference does not');
    }
  }

  required(path: string, refRequires: boolean, weRequire: boolean): void {
    if (refRequires === weRequire) return;
    if (this.where === 'result' && weRequire) {
      this.add(path, 'note', 'always sent by us; the reference\'s document does not promise it');
    } else {
      this.add(path, 'required', `reference ${refRequires ? 'required' : 'optional'}, ours ${weRequire ? 'required' : 'optional'}`);
    }
  }
}

function compareParams(method: string, ref: ContentDescriptor[], ours: ContentDescriptor[]): Finding[] {
  const w = new Walker(method, 'params');
  const byName = new Map(ours.map((p) => [p.name, p]));
  for (const p of ref) {
    const o = byName.get(p.name);
    if (o === undefined) {
      w.add(p.name, 'missing', 'the reference takes it, ours does not');
      continue;
    }
    w.required(p.name, p.required === true, o.required === true);
    w.schema(p.name, p.schema, o.schema);
  }
  for (const o of ours) {
    if (!ref.some((p) => p.name === o.name)) w.add(o.name, 'extra', 'ours takes it, the reference does not');
  }
  return w.findings;
}

function compareResult(method: string, ref: ContentDescriptor, ours: ContentDescriptor): Finding[] {
  const w = new Walker(method, 'result');
  w.schema('', base64Form(ref.schema), base64Form(ours.schema));
  return w.findings;
}

function compareMethod(ref: OpenRpcMethod, ours: OpenRpcMethod): Finding[] {
  return [...compareParams(ref.name, ref.params, ours.params), ...compareResult(ref.name, ref.result, ours.result)];
}

const matches = (k: KnownDifference, f: Finding): boolean =>
  k.method === f.method && k.where === f.where && k.path === f.path && k.kind === f.kind;

/** Every finding between the two documents, and which of them fail. */
export function compareDocuments(reference: OpenRpcDocument, ours: OpenRpcDocument,
  known: readonly KnownDifference[] = KNOWN_DIFFERENCES): Comparison {
  const findings: Finding[] = [];
  const ourMethods = new Map(ours.methods.map((m) => [m.name, m]));
  for (const ref of reference.methods) {
    const mine = ourMethods.get(ref.name);
    if (mine === undefined) findings.push({ method: ref.name, where: 'method', path: '', kind: 'missing', detail: 'not served' });
    else findings.push(...compareMethod(ref, mine));
  }
  for (const m of ours.methods) {
    if (!reference.methods.some((r) => r.name === m.name)) {
      findings.push({ method: m.name, where: 'method', path: '', kind: 'extra', detail: 'not in the reference\'s document' });
    }
  }
  const used = new Set<KnownDifference>();
  for (const f of findings) {
    if (f.kind === 'note') continue;
    f.allowedBy = known.find((k) => matches(k, f));
    if (f.allowedBy) used.add(f.allowedBy);
  }
  return {
    findings,
    failures: findings.filter((f) => f.kind !== 'note' && f.allowedBy === undefined),
    unused: known.filter((k) => !used.has(k)),
  };
}

/** The comparison as text, per method: each finding marked DIFFERS, allowed or note. */
export function formatComparison(c: Comparison, methodNames: readonly string[]): string {
  const lines: string[] = [];
  for (const name of methodNames) {
    const own = c.findings.filter((f) => f.method === name);
    const failing = own.filter((f) => c.failures.includes(f)).length;
    lines.push(`${name}: ${own.length === 0 ? 'same' : failing ? `${failing} difference(s)` : 'no difference beyond the allowed ones'}`);
    for (const f of own.filter((x) => x.kind !== 'note')) {
      const where = f.where === 'method' ? 'method' : `${f.where} ${f.path || '(whole)'}`;
      lines.push(`  ${f.allowedBy ? 'allowed' : 'DIFFERS'} ${where}: ${f.kind}: ${f.detail}`
        + (f.allowedBy ? ` [${f.allowedBy.source}: ${f.allowedBy.why}]` : ''));
    }
    // notes that say the same thing of several members: one line
    const notes = new Map<string, string[]>();
    for (const f of own.filter((x) => x.kind === 'note')) {
      const key = `${f.where}: ${f.detail}`;
      notes.set(key, [...(notes.get(key) ?? []), f.path]);
    }
    for (const [key, paths] of notes) lines.push(`  note    ${key}: ${paths.join(', ')}`);
  }
  for (const k of c.unused) lines.push(`unused known difference: ${k.method} ${k.where} ${k.path} ${k.kind} (${k.why})`);
  lines.push(c.failures.length === 0 ? 'OK: no difference beyond the known ones' : `FAILED: ${c.failures.length} difference(s)`);
  return lines.join('\n');
}
