// Compares the reference's published OpenRPC document (stellar-docs' static/stellar-rpc.openrpc.json,
// which this repository does not hold) with ours, built from the method definitions (no server): the
// document a standalone network answers over HTTP (every node's methods and the developer ones):
//
//   npm run compare-openrpc -- path/to/stellar-rpc.openrpc.json   (node scripts/compareOpenRpc.ts ...)
//
// Prints, per method, each difference in params and result members (names, JSON types, required
// members, enums), marked DIFFERS, allowed (listed in src/rpc/openrpc/knownDifferences.ts, with the
// reason) or note. Exit code 1 when any difference is not allowed, 2 on bad usage.
import { readFileSync } from 'node:fs';
import { methods } from '../src/rpc/methods/index.ts';
import { devMethods } from '../src/rpc/methods/dev/index.ts';
import { compareDocuments, formatComparison } from '../src/rpc/openrpc/compare.ts';
import { openRpcDocument, type OpenRpcDocument } from '../src/rpc/openrpc/document.ts';

const path = process.argv[2];
if (!path || process.argv.length > 3) {
  console.error('usage: node scripts/compareOpenRpc.ts <reference stellar-rpc.openrpc.json>');
  process.exit(2);
}
const reference = JSON.parse(readFileSync(path, 'utf8')) as OpenRpcDocument;
const ours = openRpcDocument([...methods, ...devMethods], 'local');
const comparison = compareDocuments(reference, ours);
const names = [...new Set([...reference.methods.map((m) => m.name), ...ours.methods.map((m) => m.name)])];
console.log(`reference: ${path} (OpenRPC ${reference.openrpc}, version ${reference.info?.version}); ours: ${ours.methods.length} methods`);
console.log(formatComparison(comparison, names));
process.exit(comparison.failures.length === 0 ? 0 : 1);
