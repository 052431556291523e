// jsonTextOf (src/xdr/runtime/jsonText.ts), XDR bytes straight to JSON text, against the JSON form
// the decoded value renders (json.ts): the same text for every XDR value in test/fixtures and for the
// synthetic big ledgers of issue 27 (one of 11,000 events in one transaction), and a clear error
// for bytes that are not a value of the type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { jsonTextOf } from '../../../src/xdr/runtime/jsonText.ts';
import { fixtureXdr } from './support/fixtureXdr.ts';
import { ours } from './support/sdkComparison.ts';
import { LedgerChain, hugeTransactionTemplate, manyEventsTemplate } from '../../support/sacLedgers.ts';

test('every fixture value renders the same text as JSON.stringify of its JSON form', () => {
  let n = 0;
  for (const { source, type, bytes } of fixtureXdr()) {
    const schema = ours[type]!.schema;
    assert.equal(jsonTextOf(schema, bytes).toString(), JSON.stringify(ours[type]!.fromXdr(bytes).toJson()), `${source} (${type})`);
    n++;
  }
  assert.ok(n > 50, `${n} values read`);
});

test('big synthetic ledgers render the same text, in chunks of bytes', () => {
  const chain = new LedgerChain(2);
  for (const template of [manyEventsTemplate(20, 41), hugeTransactionTemplate(11_000)]) {
    const bytes = chain.make(template).bytes;
    const text = jsonTextOf(xdr.LedgerCloseMeta.schema, bytes);
    assert.ok(text.length > 1 << 20, 'more than one chunk');
    assert.equal(text.toString(), JSON.stringify(xdr.LedgerCloseMeta.fromXdr(bytes).toJson()), template.name);
  }
});

test('bytes that are not a value of the type are an XdrError, as decoding says', () => {
  const ledger = new LedgerChain(2).make(manyEventsTemplate(2, 3)).bytes;
  assert.throws(() => jsonTextOf(xdr.LedgerCloseMeta.schema, ledger.subarray(0, ledger.length - 7)), { name: 'XdrError' });
  assert.throws(() => jsonTextOf(xdr.LedgerCloseMeta.schema, Buffer.concat([ledger, Buffer.alloc(4)])), { name: 'XdrError' });
  const badEnum = Buffer.from(xdr.ScVal.schema.encode({ type: 3, u32: 1 }));
  badEnum.writeInt32BE(99, 0);
  assert.throws(() => jsonTextOf(xdr.ScVal.schema, badEnum), /no case|unknown/);
});
