// xdrFormat "json" as the addon renders it (src/rpc/xdrJson.ts, native/src/xdr_json.rs: the
// stellar-xdr crate's serde, as the reference node's). Against the generated TypeScript renderer, which
// test/rust/xdr-oracle checks against the same crate: every fixture ledger renders to the same text,
// byte for byte. And a few values against what the XDR-JSON mapping (SEP-51) says they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNative, nativeAvailable } from '../../../src/host/native.ts';
import { XdrJsonRenderer, xdrJsonText, type XdrJsonItem } from '../../../src/rpc/xdrJson.ts';
import { xdr } from '../../../src/xdr/xdr.ts';
import { fixtureXdr, standaloneFixtureXdr } from '../xdr/support/fixtureXdr.ts';

const skip = nativeAvailable() ? false : 'the native addon is not built';

const generatedText = (type: string, bytes: Uint8Array): string =>
  JSON.stringify((xdr as unknown as Record<string, { fromXdr(b: Uint8Array): { toJson(): unknown } }>)[type].fromXdr(bytes).toJson());

/** The LedgerCloseMetas of the pubnet ledgers and of the standalone network's ledgers (protocols 28-30). */
function ledgerItems(): Array<{ source: string; bytes: Uint8Array }> {
  const out: Array<{ source: string; bytes: Uint8Array }> = [];
  for (const f of fixtureXdr()) if (f.type === 'LedgerCloseMeta' && f.source.startsWith('pubnet/')) out.push(f);
  for (const f of standaloneFixtureXdr()) {
    for (const [i, meta] of xdr.LedgerCloseMetaBatch.schema.decode(f.bytes).ledgerCloseMetas.entries()) {
      out.push({ source: `${f.source} #${i}`, bytes: xdr.LedgerCloseMeta.schema.encode(meta) });
    }
  }
  return out;
}

test('every pubnet and standalone fixture ledger renders as the generated TypeScript renders it, byte for byte', { skip }, async () => {
  const items = ledgerItems();
  assert.ok(items.length >= 20, `${items.length} ledgers`);
  const renderer = new XdrJsonRenderer(1);
  for (const item of items) {
    const [rendered] = await renderer.render([['LedgerCloseMeta', item.bytes]]);
    assert.ok(Buffer.from(rendered).toString('utf8') === generatedText('LedgerCloseMeta', item.bytes), `${item.source}: the same JSON text`);
  }
});

test('every other fixture value of a rendered type (transactions, events, headers) renders the same, in one call', { skip }, async () => {
  const types = new Set(['LedgerHeaderHistoryEntry', 'TransactionEnvelope', 'TransactionResult', 'TransactionMeta', 'DiagnosticEvent', 'TransactionEvent', 'ContractEvent', 'ScVal', 'LedgerKey', 'LedgerEntry', 'SorobanTransactionData', 'SorobanAuthorizationEntry']);
  const found = [...fixtureXdr()].filter((f) => types.has(f.type));
  assert.ok(new Set(found.map((f) => f.type)).size >= 8, 'values of most types');
  const rendered = await new XdrJsonRenderer(1).render(found.map((f): XdrJsonItem => [f.type as XdrJsonItem[0], f.bytes]));
  found.forEach((f, i) => {
    const text = generatedText(f.type, f.bytes);
    assert.equal(Buffer.from(rendered[i]).toString('utf8'), text, `${f.source} (${f.type})`);
    assert.equal(xdrJsonText(f.type as XdrJsonItem[0], f.bytes), text, `${f.source} (${f.type}), in place`);
  });
});

/** XDR words (big-endian u32s). */
const words = (...xs: number[]): Buffer => Buffer.concat(xs.map((x) => { const b = Buffer.alloc(4); b.writeUInt32BE(x >>> 0); return b; }));

test('values render as the XDR-JSON mapping has them: 64-bit integers as strings, unions by their arm name', { skip }, () => {
  const cases: Array<[string, Uint8Array, string]> = [
    ['u32 7', words(3, 7), '{"u32":7}'],
    ['u64 max', Buffer.concat([words(5), Buffer.from('ffffffffffffffff', 'hex')]), '{"u64":"18446744073709551615"}'],
    ['i64 -5', Buffer.concat([words(6), Buffer.from('fffffffffffffffb', 'hex')]), '{"i64":"-5"}'],
    ['symbol', Buffer.concat([words(15, 5), Buffer.from('hello\0\0\0')]), '{"symbol":"hello"}'],
    ['bytes', Buffer.concat([words(13, 3), Buffer.from('abcdef00', 'hex')]), '{"bytes":"abcdef"}'],
    ['void', words(1), '"void"'],
    ['vec of bool', words(16, 1, 2, 0, 1, 0, 0), '{"vec":[{"bool":true},{"bool":false}]}'],
  ];
  for (const [label, bytes, json] of cases) assert.equal(xdrJsonText('ScVal', bytes), json, label);
});

test('bytes that are not the named type are a clear error, on either path, and the process goes on', { skip }, async () => {
  const renderer = new XdrJsonRenderer(1);
  await assert.rejects(renderer.render([['LedgerCloseMeta', new Uint8Array(10)]]), /XDR to JSON failed: cannot decode 10 bytes as LedgerCloseMeta/);
  assert.throws(() => xdrJsonText('ScVal', words(99)), /cannot decode 4 bytes as ScVal/);
  assert.throws(() => xdrJsonText('ScVal', Buffer.concat([words(3, 7), words(0)])), /cannot decode 12 bytes as ScVal/, 'trailing bytes');
  await assert.rejects(loadNative().xdrToJson(['Uint32'], [words(1)]), /no JSON rendering for the XDR type 'Uint32'/);
  // nesting beyond the decoder's depth limit is refused, not a stack overflow
  const deep = Buffer.concat([...Array.from({ length: 2000 }, () => words(16, 1, 1)), words(3, 1)]);
  await assert.rejects(renderer.render([['ScVal', deep]]), /depth limit exceeded/);
  assert.throws(() => xdrJsonText('ScVal', deep), /depth limit exceeded/);
  assert.equal(xdrJsonText('ScVal', words(3, 1)), '{"u32":1}', 'still rendering');
});
