// The generated XDR module (src/xdr) against the Rust stellar-xdr crate, the decoder behind
// stellar-rpc's `xdrFormat: "json"` (test/run-all.sh runs this). This folder's crate renders base64
// XDR as the crate's serde JSON; every fixture value and every protocol-30 sample must render the
// same from src/xdr. And the generator's inputs and names are the crate's: the vendored definitions
// are the crate's file, the JSON name tables match the crate's JSON schemas (xdr-json/).
//
// Cargo builds into the addon's shared target folder (../cargoTarget.ts): the first run on a machine
// compiles stellar-xdr (measured here: 44 s), later runs are a no-op build.
// LUMEN_SKIP_NATIVE=1 skips it, as it skips the addon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cargoTargetDir } from '../cargoTarget.ts';
import { DEFINITIONS } from '../../../scripts/xdr/generate.ts';
import { loadDefinitions } from '../../../scripts/xdr/definitions.ts';
import { rustTypeName, typeName } from '../../../scripts/xdr/names.ts';
import { xdr } from '../../../src/xdr/xdr.ts';
import { ENUM_MEMBER_JSON_NAMES, STRUCT_FIELD_JSON_NAMES } from '../../../src/xdr/generated/jsonNames.ts';
import { fixtureXdr, standaloneFixtureXdr } from '../../unit/xdr/support/fixtureXdr.ts';
import { protocol30Samples } from '../../unit/xdr/support/protocol30Samples.ts';
import { assertSame, ours } from '../../unit/xdr/support/sdkComparison.ts';

const crateDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(crateDir, '..', '..', '..');
const skip = process.env.LUMEN_SKIP_NATIVE === '1' ? 'LUMEN_SKIP_NATIVE=1' : false;
const defs = loadDefinitions(join(repoRoot, DEFINITIONS));

/** The crate's type names (its TypeVariant) by the generated module's: UInt128Parts for Uint128Parts. */
const rustNames = new Map(defs.spec.definitions.filter((d) => d.kind !== 'const').map((d) => [typeName(d.name), rustTypeName(d.name)]));

function cargo(args: string[]): string {
  const run = spawnSync(process.env.CARGO || 'cargo', [...args, '--manifest-path', join(crateDir, 'Cargo.toml')], {
    encoding: 'utf8', env: { ...process.env, CARGO_TARGET_DIR: cargoTargetDir() }, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26,
  });
  if (run.error || run.status !== 0) throw new Error(`cargo ${args[0]} failed (${run.error?.message ?? `exit ${run.status}`})`);
  return run.stdout;
}

let binary: string | undefined;
/** The oracle's executable, built on first use. */
function oracle(): string {
  if (!binary) {
    const started = Date.now();
    cargo(['build', '--locked']);
    process.stderr.write(`cargo build: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    binary = join(cargoTargetDir(), 'debug', 'lumen-xdr-oracle');
  }
  return binary;
}

interface Item { label: string; type: string; bytes: Uint8Array }

/** The crate's JSON of each item, in order (batches of a few MB, one process each). */
function crateJson(items: Item[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < items.length;) {
    const batch: string[] = [];
    for (let size = 0; i < items.length && size < 8 << 20; i++) {
      const rust = rustNames.get(items[i].type);
      assert.ok(rust, `${items[i].type}: no crate type of that name`);
      batch.push(`${rust} ${Buffer.from(items[i].bytes).toString('base64')}`);
      size += items[i].bytes.length;
    }
    const run = spawnSync(oracle(), { input: batch.join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 30 });
    if (run.error || run.status !== 0) throw new Error(`the oracle failed (${run.error?.message ?? `exit ${run.status}: ${run.stderr}`})`);
    out.push(...run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown));
  }
  assert.equal(out.length, items.length, 'one answer per value');
  return out;
}

function assertRendersAsTheCrate(items: Item[]): void {
  const expected = crateJson(items);
  items.forEach((item, i) => {
    const error = (expected[i] as { error?: string } | null)?.error;
    assert.equal(error, undefined, `${item.label}: the crate refused it: ${error}`);
    assertSame(ours[item.type]!.fromXdr(item.bytes).toJson(), expected[i], `${item.label} (${item.type}) JSON`);
  });
}

/** The stellar-xdr package cargo resolved for the oracle: its folder. */
function crateSource(): { version: string; dir: string } {
  const metadata = JSON.parse(cargo(['metadata', '--format-version', '1', '--locked'])) as { packages: { name: string; version: string; manifest_path: string }[] };
  const p = metadata.packages.find((pkg) => pkg.name === 'stellar-xdr');
  assert.ok(p, 'stellar-xdr among the oracle\'s packages');
  return { version: p.version, dir: dirname(p.manifest_path) };
}

test('the vendored definitions are the oracle crate\'s own, of the version the module was generated from', { skip }, () => {
  const crate = crateSource();
  assert.equal(crate.version, xdr.XDR_DEFINITIONS.version, 'test/rust/xdr-oracle/Cargo.toml pins the crate version of DEFINITIONS (scripts/xdr/generate.ts)');
  const sha256 = createHash('sha256').update(readFileSync(join(crate.dir, 'xdr-definitions-json', 'xdr.json'))).digest('hex');
  assert.equal(sha256, defs.sha256, `${DEFINITIONS} is the crate's xdr-definitions-json/xdr.json`);
  assert.equal(xdr.XDR_DEFINITIONS.sha256, defs.sha256, 'the generated module is made from it');
});

test('the JSON names of every struct field, enum member and union case are those of the crate\'s JSON schemas', { skip }, () => {
  type Schema = { title?: string; properties?: Record<string, unknown>; enum?: string[]; oneOf?: { enum?: string[]; required?: string[] }[]; definitions?: Record<string, Schema> };
  const schemaDir = join(crateSource().dir, 'xdr-json');
  const schemas = new Map<string, Schema>();
  for (const file of readdirSync(schemaDir)) {
    const s = JSON.parse(readFileSync(join(schemaDir, file), 'utf8')) as Schema;
    schemas.set(s.title!, s);
    for (const [name, d] of Object.entries(s.definitions ?? {})) schemas.set(name, d);
  }
  let checked = 0;
  for (const d of defs.spec.definitions) {
    if (d.kind !== 'struct' && d.kind !== 'enum' && d.kind !== 'union') continue;
    const schema = schemas.get(rustTypeName(d.name));
    assert.ok(schema, `${d.name}: no JSON schema ${rustTypeName(d.name)}`);
    const name = typeName(d.name);
    if (d.kind === 'struct') {
      // the one-string types (strkeys, big integers) have no properties
      if (!schema.properties) continue;
      assert.deepEqual(STRUCT_FIELD_JSON_NAMES[name].toSorted(), Object.keys(schema.properties).filter((k) => k !== '$schema').sort(), name);
    } else if (d.kind === 'enum') {
      assert.deepEqual(ENUM_MEMBER_JSON_NAMES[name].map(([, n]) => n), schema.enum, name);
    } else {
      if (!schema.oneOf) continue;
      // as src/xdr/runtime/json.ts names cases: the switch enum's names, else v0, v1, ...
      const t = d.discriminant.type;
      const members = t.kind === 'ref' && defs.byName.get(t.name)?.kind === 'enum' ? new Map(ENUM_MEMBER_JSON_NAMES[typeName(t.name)]) : undefined;
      const cases = d.arms.flatMap((a) => a.cases.map((c) => (members ? members.get(c.value) : `v${c.value}`)));
      assert.deepEqual(cases.toSorted(), schema.oneOf.flatMap((o) => o.enum ?? o.required ?? []).sort(), name);
    }
    checked++;
  }
  assert.ok(checked > 380, `${checked} types checked`);
});

test('every fixture value renders as the crate renders it', { skip }, () => {
  const items = [...fixtureXdr()].map((f) => ({ label: f.source, type: f.type, bytes: f.bytes }));
  assert.ok(items.length > 500, `${items.length} fixture values`);
  assertRendersAsTheCrate(items);
});

test('every protocol-30 sample renders as the crate renders it', { skip }, () => {
  assertRendersAsTheCrate(protocol30Samples().map((s) => ({ label: s.label, type: s.type, bytes: ours[s.type]!.schema.encode(s.wire) })));
});

test('the standalone network\'s ledgers of protocols 28, 29 and 30 (an upgrade between each) render as the crate renders them', { skip }, () => {
  const items = [...standaloneFixtureXdr()].map((f) => ({ label: f.source, type: f.type, bytes: f.bytes }));
  const protocols = new Set(items.map((i) => {
    const batch = xdr.LedgerCloseMetaBatch.schema.decode(i.bytes);
    const meta = batch.ledgerCloseMetas[0];
    return meta.v === 2 ? meta.v2.ledgerHeader.header.ledgerVersion : 0;
  }));
  assert.deepEqual([...protocols].sort(), [28, 29, 30], 'ledgers of each protocol');
  assertRendersAsTheCrate(items);
});
