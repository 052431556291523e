// The hand-written parts of the generated XDR module: the W strkey, escaped strings, the one-string
// JSON forms and what the JSON reader accepts and refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../../../src/xdr/xdr.ts';
import { decodeMuxedContract, encodeMuxedContract } from '../../../src/xdr/runtime/strkey.ts';
import { escapeBytes, unescapeBytes } from '../../../src/xdr/runtime/escapedBytes.ts';

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

test('W strkeys: the SEP-23 vectors of stellar-strkey 1.0 encode and decode; malformed ones are refused', () => {
  const vectors: [string, string, bigint][] = [
    ['WA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAAAAAAAAAPCIA6IG', '363eaa3867841fbad0f4ed88c779e4fe66e56a2470dc98c0ec9c073d05c7b103', 123456n],
    ['WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAWWC', '3f0c34bf93ad0d9971d04ccc90f705511c838aad9734a4a2fb0d7a03fc7fe89a', 0n],
    ['WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAACWJY', '3f0c34bf93ad0d9971d04ccc90f705511c838aad9734a4a2fb0d7a03fc7fe89a', 1n << 63n],
  ];
  for (const [text, contractId, id] of vectors) {
    assert.equal(encodeMuxedContract({ contractId: hex(contractId), id }), text);
    assert.deepEqual(decodeMuxedContract(text), { contractId: hex(contractId), id });
  }
  for (const bad of [
    'WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAAIOUI', // 41-byte payload
    'WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAUCCQ', // 39-byte payload
    'WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAWWD', // a stray trailing bit
    'WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAWWCA', // a length no strkey has
    'W47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAWWC', // another version byte, old checksum
    'W47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAADXHW', // another version byte, its checksum
    'WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAWWC===', // padding
    'WA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAWWA', // checksum
    'wa7qynf7sowq3glr2bgmzehxavirza4kvwltjjfc7mgxua74p7ujuaaaaaaaaaaaaawwc', // lower case
    StrKey.encodeMed25519PublicKey(new Uint8Array(40)), // an M... address
  ]) {
    assert.throws(() => decodeMuxedContract(bad), /invalid strkey/, bad);
  }
});

test('escaped strings: printable ASCII stays, the rest is escaped, and every byte reads back', () => {
  assert.equal(escapeBytes(Buffer.from('a\\b\0\t\n\r~ \x7f\xff', 'latin1')), 'a\\\\b\\0\\t\\n\\r~ \\x7f\\xff');
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(unescapeBytes(escapeBytes(all)), all);
  assert.deepEqual(unescapeBytes('\\x4A\\x4b'), Uint8Array.of(0x4a, 0x4b), 'either hex case');
  // as the crate: a character outside ASCII stands for its UTF-8 bytes
  assert.deepEqual(unescapeBytes('é'), Uint8Array.of(0xc3, 0xa9));
  for (const bad of ['\\', '\\q', '\\x4', '\\xg0']) assert.throws(() => unescapeBytes(bad), /invalid/, bad);
});

test('128/256-bit integers are decimal text, from the smallest to the largest', () => {
  const cases: [keyof typeof xdr & string, bigint, bigint][] = [
    ['Int128Parts', -(1n << 127n), (1n << 127n) - 1n], ['Uint128Parts', 0n, (1n << 128n) - 1n],
    ['Int256Parts', -(1n << 255n), (1n << 255n) - 1n], ['Uint256Parts', 0n, (1n << 256n) - 1n],
  ];
  for (const [type, min, max] of cases) {
    const t = xdr[type] as unknown as { fromJson(j: unknown): { toJson(): unknown; toXdr(): Uint8Array } };
    for (const v of [min, max, 0n, 1n, min === 0n ? 1n << 64n : -1n, (1n << 64n) - 1n]) {
      assert.equal(t.fromJson(v.toString()).toJson(), v.toString(), `${type} ${v}`);
    }
    assert.throws(() => t.fromJson((max + 1n).toString()), /not a valid/, `${type} above its range`);
    assert.throws(() => t.fromJson((min - 1n).toString()), /not a valid/, `${type} below its range`);
    assert.throws(() => t.fromJson('12a'), /not a valid/);
  }
  // the parts: -1 is all ones, and the high word is the signed one
  assert.deepEqual(xdr.Int128Parts.fromJson('-1').value, { hi: -1n, lo: (1n << 64n) - 1n });
  assert.deepEqual(xdr.Uint256Parts.fromJson(((1n << 192n) + 2n).toString()).value, { hiHi: 1n, hiLo: 0n, loHi: 0n, loLo: 2n });
});

test('asset codes are text without their zero padding; an AssetCode12 keeps at least 5 bytes', () => {
  const code4 = xdr.AssetCode4.fromXdr(Uint8Array.of(0x55, 0x53, 0x44, 0));
  assert.equal(code4.toJson(), 'USD');
  assert.deepEqual(xdr.AssetCode4.fromJson('USD').value, Uint8Array.of(0x55, 0x53, 0x44, 0));
  const short12 = Uint8Array.of(0x41, 0x42, ...new Array(10).fill(0));
  assert.equal(xdr.AssetCode12.fromXdr(short12).toJson(), 'AB\\0\\0\\0');
  assert.deepEqual(xdr.AssetCode12.fromJson('AB\\0\\0\\0').value, short12);
  assert.throws(() => xdr.AssetCode12.fromJson('ABCD'), /not a valid AssetCode12/);
  assert.throws(() => xdr.AssetCode4.fromJson('ABCDE'), /not a valid AssetCode4/);
  assert.deepEqual(xdr.AssetCode.fromJson('ABCD').value, { type: 1, assetCode4: Uint8Array.of(0x41, 0x42, 0x43, 0x44) });
  assert.equal((xdr.AssetCode.fromJson('ABCDE').value as { type: number }).type, 2);
});

test('the JSON reader: 64-bit integers from text or numbers, absent optionals, the type_ alias; what does not fit is refused', () => {
  const account = StrKey.encodeEd25519PublicKey(new Uint8Array(32).fill(7));
  const entry = {
    last_modified_ledger_seq: 5,
    data: { data: { account_id: account, data_name: 'note', data_value: '00ff', ext: 'v0' } },
    ext: 'v0',
  };
  const bytes = xdr.LedgerEntry.fromJson(entry).toXdr();
  assert.deepEqual(xdr.LedgerEntry.fromXdr(bytes).toJson(), entry);
  // uint64 as text or as a JSON number
  const price = { n: 1, d: 2 };
  const offer = { seller_id: account, offer_id: '9', selling: 'native', buying: 'native', amount: 10, price, flags: 0, ext: 'v0' };
  assert.equal((xdr.OfferEntry.fromJson(offer).toJson() as { amount: string }).amount, '10');
  // a struct field named "type" is also read as "type_"
  const event = { ext: 'v0', type_: 'contract', body: { v0: { topics: [], data: 'void' } } };
  assert.deepEqual((xdr.ContractEvent.fromJson(event).toJson() as Record<string, unknown>).type, 'contract');
  assert.equal((xdr.ContractEvent.fromJson(event).toJson() as { contract_id: null }).contract_id, null, 'an absent optional is null');
  for (const [what, json, message] of [
    ['an unknown field', { ...entry, extra: 1 }, /unknown field extra/],
    ['a missing field', { data: entry.data, ext: 'v0' }, /missing field last_modified_ledger_seq/],
    ['an unknown case', { ...entry, ext: 'v9' }, /LedgerEntry.ext: unknown case v9 of LedgerEntryExt/],
    ['odd hex', { ...entry, data: { data: { ...entry.data.data, data_value: '0ff' } } }, /bytes of hex/],
    ['a uint32 out of range', { ...entry, last_modified_ledger_seq: 2 ** 32 }, /uint32/],
    ['a string too long', { ...entry, data: { data: { ...entry.data.data, data_name: 'x'.repeat(65) } } }, /at most 64 bytes/],
    ['a bad account', { ...entry, data: { data: { ...entry.data.data, account_id: 'GABC' } } }, /not a valid PublicKey/],
  ] as const) {
    assert.throws(() => xdr.LedgerEntry.fromJson(json), message, what);
  }
  assert.throws(() => xdr.TimeBounds.fromJson({ min_time: '-1', max_time: '0' }), /unsigned 64-bit/);
  assert.throws(() => xdr.TimeBounds.fromJson({ min_time: 1.5, max_time: '0' }), /unsigned 64-bit/);
  assert.throws(() => xdr.OfferEntry.fromJson({ ...offer, offer_id: '18446744073709551616' }), /signed 64-bit/);
});

test('enums name their members as the XDR does', () => {
  assert.equal(xdr.OperationType.xdrNames.get(1), 'PAYMENT');
  assert.equal(xdr.TransactionResultCode.xdrNames.get(-5), 'txBAD_SEQ');
  assert.equal(xdr.ScAddressType.schema.scAddressTypeContract, 1, 'the schema names members the SDK way');
});
