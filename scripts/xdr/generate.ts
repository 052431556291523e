// Generates src/xdr/generated/ from the vendored stellar-xdr definitions (xdr/README.md):
//
//   node scripts/xdr/generate.ts           writes the files
//   node scripts/xdr/generate.ts --check   fails (exit 1) when the committed files differ
//
// The build (scripts/build.ts) runs the check, so the generated code always matches the definitions
// and the generator, and taking a new crate version is a reviewable diff of the generated files.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDefinitions } from './definitions.ts';
import { ModuleEmitter, type ModuleSource } from './emitModule.ts';
import { emitJsonNames } from './emitJsonNames.ts';

/** The definitions the node's XDR types come from. */
export const DEFINITIONS = 'xdr/stellar-xdr-30.0.0.json';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');

export interface GeneratedFile { path: string; text: string }

/** The generated files (paths relative to the repository root) and their contents. */
export function generatedFiles(definitionsFile = DEFINITIONS): GeneratedFile[] {
  const defs = loadDefinitions(join(root, definitionsFile));
  const version = /stellar-xdr-(.+)\.json$/.exec(basename(definitionsFile))?.[1];
  if (!version) throw new Error(`${definitionsFile}: expected a name stellar-xdr-<version>.json`);
  const source: ModuleSource = { crateVersion: version, definitionsFile };
  return [
    { path: 'src/xdr/generated/stellarXdr.ts', text: new ModuleEmitter(defs).emit(source) },
    { path: 'src/xdr/generated/jsonNames.ts', text: emitJsonNames(defs, source) },
  ];
}

/** What is wrong when the committed generated files are not what the generator makes; else undefined. */
export function staleGeneratedFiles(files = generatedFiles()): string | undefined {
  const stale = files.filter((f) => {
    try { return readFileSync(join(root, f.path), 'utf8') !== f.text; } catch { return true; }
  }).map((f) => f.path);
  if (stale.length === 0) return undefined;
  return `${stale.join(', ')} ${stale.length === 1 ? 'is' : 'are'} not what scripts/xdr/generate.ts makes from ${DEFINITIONS}: run \`node scripts/xdr/generate.ts\` and commit the result`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = generatedFiles();
  if (process.argv.includes('--check')) {
    const stale = staleGeneratedFiles(files);
    if (stale) {
      console.error(stale);
      process.exit(1);
    }
  } else {
    for (const f of files) writeFileSync(join(root, f.path), f.text);
    console.log(`wrote ${files.map((f) => f.path).join(', ')} from ${DEFINITIONS}`);
  }
}
