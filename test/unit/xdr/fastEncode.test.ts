// The compiled encoder (src/xdr/runtime/fastEncode.ts) against js-xdr's own: the same bytes for every
// XDR value in the fixtures and for random values of every generated type, and js-xdr's own error
// (message and path) for bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { XdrType } from '@stellar/js-xdr';
import { xdr } from '../../../src/xdr/xdr.ts';
import { encodeXdr, writeXdr, XdrSink } from '../../../src/xdr/runtime/fastEncode.ts';
import { fixtureXdr, standaloneFixtureXdr } from './support/fixtureXdr.ts';
import { randomWire, seededRandom } from './support/randomWire.ts';
import { generatedTypes, ours } from './support/sdkComparison.ts';

const schemaOf = (type: string): XdrType<unknown> => (xdr as unknown as Record<string, { schema: XdrType<unknown> }>)[type].schema;

test('fixtures: every value decoded by js-xdr encodes to the bytes it came from', () => {
  let n = 0;
  for (const f of [...fixtureXdr(), ...standaloneFixtureXdr()]) {
    const schema = schemaOf(f.type);
    const wire = schema.decode(f.bytes);
    assert.ok(Buffer.from(encodeXdr(schema, wire)).equals(Buffer.from(f.bytes)), f.source);
    n++;
  }
  assert.ok(n > 100, `${n} fixture values`);
});

test('random values of every generated type encode as js-xdr encodes them', () => {
  for (const [t, name] of generatedTypes.entries()) {
    const schema = ours[name]!.schema as XdrType<unknown>;
    for (let i = 0; i < 5; i++) {
      const seed = t * 100 + i;
      const wire = randomWire(schema, seededRandom(seed));
      assert.ok(Buffer.from(encodeXdr(schema, wire)).equals(Buffer.from(schema.encode(wire))), `${name} seed ${seed}`);
    }
  }
});

test('bad input gets js-xdr\'s own error, and a sink is left as it was', () => {
  const account = (): xdr.LedgerEntryWire => xdr.LedgerEntry.schema.decode(xdr.LedgerEntry.schema.encode({
    lastModifiedLedgerSeq: 7,
    data: { type: 0, account: {
      accountId: { type: 0, ed25519: new Uint8Array(32).fill(1) }, balance: 10n, seqNum: 1n, numSubEntries: 0, inflationDest: null,
      flags: 0, homeDomain: new xdr.XdrString('example.com'), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
    } },
    ext: { v: 0 },
  }));
  const bad: Array<[string, (e: any) => void]> = [ // eslint-disable-line @typescript-eslint/no-explicit-any -- bad on purpose
    ['uint32 out of range', (e) => { e.lastModifiedLedgerSeq = -1; }],
    ['int64 as a number', (e) => { e.data.account.balance = 10; }],
    ['int64 out of range', (e) => { e.data.account.balance = 1n << 63n; }],
    ['unknown union case', (e) => { e.data.type = 99; }],
    ['missing field', (e) => { delete e.data.account.flags; }],
    ['opaque of the wrong length', (e) => { e.data.account.accountId.ed25519 = new Uint8Array(31); }],
    ['string too long', (e) => { e.data.account.homeDomain = new xdr.XdrString('x'.repeat(33)); }],
    ['not a plain object', (e) => { e.ext = new Map(); }],
    ['array expected', (e) => { e.data.account.signers = {}; }],
  ];
  for (const [what, spoil] of bad) {
    const e = account();
    spoil(e);
    const expected = (() => { try { xdr.LedgerEntry.schema.encode(e); } catch (err) { return err as Error; } assert.fail(`${what}: js-xdr accepted it`); })();
    assert.throws(() => encodeXdr(xdr.LedgerEntry.schema, e), (err: Error) => err.message === expected.message && err.name === expected.name, what);
    const sink = new XdrSink();
    sink.u32(5);
    assert.throws(() => writeXdr(sink, xdr.LedgerEntry.schema, e), (err: Error) => err.message === expected.message, what);
    assert.deepEqual(sink.copy(), new Uint8Array([0, 0, 0, 5]), what);
  }
  // an XdrString field given as text: encoded (by js-xdr) as the SDK's string type accepts it
  const e = account();
  (e.data as any).account.homeDomain = 'example.com'; // eslint-disable-line @typescript-eslint/no-explicit-any -- text on purpose
  assert.deepEqual(encodeXdr(xdr.LedgerEntry.schema, e), xdr.LedgerEntry.schema.encode(e));
});

test('values nested past js-xdr\'s depth limit are refused as js-xdr refuses them', () => {
  let v: xdr.ScValWire = { type: 1 } as xdr.ScValWire;
  for (let i = 0; i < 800; i++) v = { type: 16, vec: [v] } as xdr.ScValWire;
  const expected = (() => { try { xdr.ScVal.schema.encode(v); } catch (err) { return (err as Error).message; } return undefined; })();
  assert.ok(expected?.includes('max recursion depth'), String(expected));
  assert.throws(() => encodeXdr(xdr.ScVal.schema, v), (err: Error) => err.message === expected);
});
