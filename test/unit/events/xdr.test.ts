// Reading ContractEvent XDR in place (topics and value as subarrays) must agree with the SDK's
// decoder on every real event and on every ScVal shape; the position lists of the term index
// round-trip.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import { decodePositions, decodePostings, encodePositions, encodePostings, eventTerms, eventTermsOf, GrowingPostings, ListPostings, termHash } from '../../../src/events/indexTerms.ts';
import { EventXdrError, parseContractEvent, skipScVal } from '../../../src/events/eventBytes.ts';
import { FIRST_LEDGER, LAST_LEDGER, ledgerMeta } from '../methods/support/pubnet.ts';

const enc = (v: xdr.ScValWire) => xdr.ScVal.schema.encode(v);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function checkEvent(e: xdr.ContractEventWire): void {
  const bytes = xdr.ContractEvent.schema.encode(e);
  const p = parseContractEvent(bytes);
  assert.deepEqual(eventTermsOf(bytes), eventTerms(p), 'the ingest path computes the same terms');
  assert.equal(p.type, e.type);
  assert.equal(p.contractId === null ? null : hex(p.contractId), e.contractId ? hex(e.contractId) : null);
  assert.deepEqual(p.topics.map(hex), e.body.v0.topics.map((t) => hex(enc(t))));
  assert.equal(hex(p.value), hex(enc(e.body.v0.data)));
}

test('every event of the pubnet fixture ledgers splits as the SDK decodes it', () => {
  let n = 0;
  for (let s = FIRST_LEDGER; s <= LAST_LEDGER; s++) {
    for (const p of ledgerMeta(s).txProcessing) {
      const m = p.txApplyProcessing;
      if (m.v !== 4) continue;
      for (const te of m.v4.events) { checkEvent(te.event); n++; }
      for (const o of m.v4.operations) for (const e of o.events) { checkEvent(e); n++; }
      for (const d of m.v4.diagnosticEvents) { checkEvent(d.event); n++; }
    }
  }
  assert.ok(n > 6591);
});

test('every ScVal arm is skipped exactly', () => {
  const key = new Uint8Array(32).fill(7);
  const sym = (s: string): xdr.ScValWire => ({ type: 15, sym: new xdr.XdrString(s) });
  const values: xdr.ScValWire[] = [
    { type: 0, b: true }, { type: 1 }, { type: 2, error: { type: 0, contractCode: 5 } }, { type: 2, error: { type: 3, code: 2 } },
    { type: 3, u32: 1 }, { type: 4, i32: -1 }, { type: 5, u64: 2n }, { type: 6, i64: -2n }, { type: 7, timepoint: 3n }, { type: 8, duration: 4n },
    { type: 9, u128: { hi: 1n, lo: 2n } }, { type: 10, i128: { hi: -1n, lo: 2n } },
    { type: 11, u256: { hiHi: 1n, hiLo: 2n, loHi: 3n, loLo: 4n } }, { type: 12, i256: { hiHi: -1n, hiLo: 2n, loHi: 3n, loLo: 4n } },
    { type: 13, bytes: new Uint8Array([1, 2, 3]) }, { type: 14, str: new xdr.XdrString('hello') }, sym('transfer'), sym(''),
    { type: 16, vec: null }, { type: 16, vec: [sym('a'), { type: 16, vec: [{ type: 3, u32: 9 }] }] },
    { type: 17, map: null }, { type: 17, map: [{ key: sym('k'), val: { type: 17, map: [{ key: { type: 3, u32: 1 }, val: { type: 1 } }] } }] },
    { type: 18, address: { type: 0, accountId: { type: 0, ed25519: key } } },
    { type: 18, address: { type: 1, contractId: key } },
    { type: 18, address: { type: 2, muxedAccount: { id: 5n, ed25519: key } } },
    { type: 18, address: { type: 3, claimableBalanceId: { type: 0, v0: key } } },
    { type: 18, address: { type: 4, liquidityPoolId: key } },
    { type: 19, instance: { executable: { type: 0, wasmHash: key }, storage: [{ key: sym('x'), val: { type: 3, u32: 1 } }] } },
    { type: 19, instance: { executable: { type: 1 }, storage: null } },
    { type: 20 }, { type: 21, nonceKey: { nonce: -7n } },
    // protocol 28 (CAP-85): an executable tag, and an instance whose executable is an external reference
    { type: 22, executableTag: new xdr.XdrString('fleet-v2') }, { type: 22, executableTag: new xdr.XdrString('') },
    { type: 19, instance: { executable: { type: 2, externalRef: { executableOwner: { type: 1, contractId: key }, tag: new xdr.XdrString('abcde') } }, storage: null } },
  ] as unknown as xdr.ScValWire[];
  for (const v of values) {
    const b = enc(v);
    assert.equal(skipScVal(b, 0), b.length, `type ${v.type}`);
    const padded = new Uint8Array(b.length + 3);
    padded.set(b);
    assert.equal(skipScVal(padded, 0), b.length);
    if (b.length > 4) assert.throws(() => skipScVal(b.subarray(0, b.length - 1), 0), EventXdrError, `truncated type ${v.type}`);
  }
  checkEvent({ ext: { v: 0 }, contractId: null, type: 0, body: { v: 0, v0: { topics: values.slice(0, 4), data: values[values.length - 6] } } });
  checkEvent({ ext: { v: 0 }, contractId: key, type: 1, body: { v: 0, v0: { topics: values.slice(-3), data: values[values.length - 1] } } });
  assert.throws(() => skipScVal(new Uint8Array([0, 0, 0, 99]), 0), EventXdrError);
});

test('position lists round-trip through their LEB128 delta encoding', () => {
  for (const list of [[], [0], [5], [0, 1, 2, 3], [127, 128, 16383, 16384, 2097151], Array.from({ length: 1000 }, (_, i) => i * 3)]) {
    assert.deepEqual(decodePositions(encodePositions(list)), list);
  }
  assert.equal(encodePositions([0, 1, 2]).length, 3, 'one byte per small gap');
});

test('segment postings round-trip', () => {
  const p = new ListPostings([128, 130, 255], [[0, 5, 6], [2], [0, 1, 2, 3, 1000, 2097151]]);
  assert.deepEqual(decodePostings(encodePostings(p, 128), 128), p);
  assert.deepEqual(decodePostings(encodePostings(new ListPostings([], []), 0), 0), new ListPostings([], []));
});

test('growing postings hold what was added, past their first room, and drop rolled-back ledgers', () => {
  const g = new GrowingPostings();
  const expected = new ListPostings([], []);
  for (let l = 0; l < 100; l++) {
    const ledger = 128 + l;
    const ps = Array.from({ length: (l % 7) + 1 }, (_, k) => k * 3 + l);
    g.addLedger(ledger, ps[0]);
    for (const x of ps.slice(1)) g.addPosition(x);
    expected.ledgers.push(ledger);
    expected.positions.push(ps);
  }
  const read = (p: GrowingPostings) => new ListPostings([...p.ledgers], Array.from({ length: p.count }, (_, i) => Array.from(p.positionsAt(i))));
  assert.deepEqual(read(g), expected);
  assert.deepEqual(decodePostings(encodePostings(g, 128), 128), expected);
  assert.equal(g.lastLedger, 227);
  assert.equal(g.lastPosition, 99 + 3 * (99 % 7));
  g.truncate(40);
  g.addLedger(300, 9);
  assert.deepEqual(read(g), new ListPostings([...expected.ledgers.slice(0, 40), 300], [...expected.positions.slice(0, 40), [9]]));
  // a short one (its positions still in a plain array) rolled back too
  const short = new GrowingPostings();
  short.addLedger(5, 1); short.addPosition(4); short.addLedger(6, 2); short.addPosition(3);
  short.truncate(1);
  short.addLedger(7, 8);
  assert.deepEqual(read(short), new ListPostings([5, 7], [[1, 4], [8]]));
  assert.deepEqual(decodePostings(encodePostings(short, 0), 0), new ListPostings([5, 7], [[1, 4], [8]]));
});

test('term hashes: 47-bit, stable, kind-sensitive', () => {
  const b = enc({ type: 15, sym: new xdr.XdrString('transfer') } as xdr.ScValWire);
  const h = termHash(2, b);
  assert.ok(Number.isSafeInteger(h) && h >= 0x10000 && h < 2 ** 47);
  assert.equal(termHash(2, b), h);
  assert.notEqual(termHash(3, b), h);
  assert.equal(h, 13926427606775, 'stored on disk: must never change');
});
