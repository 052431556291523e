// Validation messages and Go-compatible error texts the reference's clients see.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatGoDuration, goHexDecode, goQuote, parseGoInt64, parseGoUint } from '../../../src/rpc/methods/shared/go.ts';
import { joinErrors, paginationError } from '../../../src/rpc/methods/shared/pagination.ts';
import { xdrFormatError } from '../../../src/rpc/methods/shared/xdrFormat.ts';
import { decodeBase64Std } from '../../../src/xdr/codec.ts';

const range = { oldest: { sequence: 10, closeTime: 100 }, latest: { sequence: 20, closeTime: 200 } };

test('pagination: startLedger must be inside the stored range', () => {
  const msg = 'start ledger (9) must be between the oldest ledger: 10 and the latest ledger: 20 for this rpc instance';
  assert.equal(paginationError(9, undefined, 200, range), msg);
  assert.equal(paginationError(9, { limit: 5 }, 200, range), msg);
  assert.equal(paginationError(21, {}, 200, range)?.startsWith('start ledger (21) must be between'), true);
  assert.equal(paginationError(0, undefined, 200, range)?.startsWith('start ledger (0) must be between'), true);
  assert.equal(paginationError(10, undefined, 200, range), undefined);
  assert.equal(paginationError(20, { limit: 200 }, 200, range), undefined);
});

test('pagination: cursor and startLedger exclude each other; cursor skips the range check', () => {
  assert.equal(paginationError(15, { cursor: '12' }, 200, range), 'startLedger (15) and cursor (12) cannot both be set');
  assert.equal(paginationError(0, { cursor: '999999' }, 200, range), undefined);
  assert.equal(paginationError(0, { cursor: '' }, 200, range)?.startsWith('start ledger (0)'), true, 'empty cursor = unset');
});

test('pagination: limit above the maximum', () => {
  assert.equal(paginationError(12, { limit: 201 }, 200, range), 'limit must not exceed 200');
  assert.equal(paginationError(0, { cursor: '5', limit: 1000 }, 200, range), 'limit must not exceed 200');
});

test('xdrFormat message, and errors joined like Go errors.Join', () => {
  assert.equal(xdrFormatError('xml'), "got 'xml': expected base64, json for optional 'xdrFormat'");
  for (const ok of [undefined, '', 'base64', 'json']) assert.equal(xdrFormatError(ok), undefined);
  assert.equal(joinErrors('a', undefined, 'b'), 'a\nb');
  assert.equal(joinErrors(undefined, undefined), undefined);
});

test('cursor parse errors carry Go strconv text', () => {
  assert.equal(parseGoUint('42', 32), 42n);
  assert.throws(() => parseGoUint('abc', 32), { message: 'strconv.ParseUint: parsing "abc": invalid syntax' });
  assert.throws(() => parseGoUint('-1', 32), { message: 'strconv.ParseUint: parsing "-1": invalid syntax' });
  assert.throws(() => parseGoUint('4294967296', 32), { message: 'strconv.ParseUint: parsing "4294967296": value out of range' });
  assert.equal(parseGoUint('4294967295', 32), 4294967295n);
  assert.throws(() => parseGoUint('99999999999x', 32), { message: /value out of range$/ }, 'first error in scan order');

  assert.equal(parseGoInt64('-5'), -5n);
  assert.equal(parseGoInt64('+7'), 7n);
  assert.equal(parseGoInt64('9223372036854775807'), 9223372036854775807n);
  assert.throws(() => parseGoInt64('9223372036854775808'), { message: 'strconv.ParseInt: parsing "9223372036854775808": value out of range' });
  assert.equal(parseGoInt64('-9223372036854775808'), -9223372036854775808n);
  assert.throws(() => parseGoInt64('abc'), { message: 'strconv.ParseInt: parsing "abc": invalid syntax' });
  assert.throws(() => parseGoInt64('-'), { message: 'strconv.ParseInt: parsing "-": invalid syntax' });
  assert.throws(() => parseGoInt64('1 2'), { message: 'strconv.ParseInt: parsing "1 2": invalid syntax' });
});

test('Go quoting and durations', () => {
  assert.equal(goQuote('a"b\\c\n\x01é'), '"a\\"b\\\\c\\n\\x01é"');
  assert.equal(goQuote('\u00a0'), '"\\u00a0"');
  assert.equal(formatGoDuration(45), '45s');
  assert.equal(formatGoDuration(30), '30s');
  assert.equal(formatGoDuration(90), '1m30s');
  assert.equal(formatGoDuration(3600), '1h0m0s');
  assert.equal(formatGoDuration(13_730_000), '3813h53m20s');
});

test('hex decoding errors match encoding/hex', () => {
  assert.deepEqual(goHexDecode('00ff'), new Uint8Array([0, 255]));
  assert.equal(goHexDecode('0g'), "encoding/hex: invalid byte: U+0067 'g'");
  assert.equal(goHexDecode('abc'), 'encoding/hex: odd length hex string');
  assert.equal(goHexDecode('abz'), "encoding/hex: invalid byte: U+007A 'z'");
  assert.equal(goHexDecode('a\x01'), 'encoding/hex: invalid byte: U+0001');
});

test('base64 params decode strictly, like Go StdEncoding', () => {
  assert.deepEqual(decodeBase64Std('AAAA'), new Uint8Array(3));
  assert.deepEqual(decodeBase64Std('AA\nAA'), new Uint8Array(3), 'newlines are ignored');
  assert.equal(decodeBase64Std('AAA'), undefined, 'padding is required');
  assert.equal(decodeBase64Std('AA-_'), undefined, 'url alphabet is not std');
  assert.equal(decodeBase64Std('AA=A'), undefined);
  assert.deepEqual(decodeBase64Std(''), new Uint8Array(0));
});
