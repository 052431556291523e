// The library's type declarations (dist/library.d.ts, package.json's exports "types"), made by the
// TypeScript compiler from src/library/startNetwork.ts alone: its public types stand on their own
// (no import of the node's internals), so its one declaration file is the package's whole API.
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const ENTRY = 'src/library/startNetwork.ts';

/** Writes dist/library.d.ts; throws with the compiler's words when the declarations cannot be made. */
export function writeLibraryTypes(): void {
  const parsed = ts.parseJsonConfigFileContent(JSON.parse(readFileSync('tsconfig.json', 'utf8')), ts.sys, process.cwd());
  const program = ts.createProgram([ENTRY], { ...parsed.options, noEmit: false, declaration: true, emitDeclarationOnly: true });
  const source = program.getSourceFile(ENTRY)!;
  let text: string | undefined;
  const result = program.emit(source, (name, data) => { if (name.endsWith('startNetwork.d.ts')) text = data; }, undefined, true);
  const problems = [...result.diagnostics, ...program.getDeclarationDiagnostics(source)];
  if (problems.length > 0 || text === undefined) {
    throw new Error(`cannot declare the library's types:\n${ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' })}`);
  }
  // its API must not reach into the node: an import would name a file the package does not declare
  if (/^import /m.test(text)) throw new Error(`${ENTRY}'s declarations import other modules:\n${text}`);
  writeFileSync('dist/library.d.ts', text);
}
