// Every XDR value in test/fixtures (ledgers, archive files, captured answers) through the generated
// module and through SDK 17.2 (what src/ used before it): the same wire values, the same bytes back,
// the same JSON, and the JSON reads back to the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureXdr } from './support/fixtureXdr.ts';
import { assertSame, assertSameBytes, ours, theirs } from './support/sdkComparison.ts';

test('every fixture value decodes to the SDK\'s wire value, re-encodes to its bytes, renders the SDK\'s JSON and reads it back', () => {
  const counts = new Map<string, number>();
  for (const { source, type, bytes } of fixtureXdr()) {
    const mine = ours[type]!;
    const wire = mine.schema.decode(bytes);
    assertSame(wire, theirs[type]!.schema.decode(bytes), `${source} (${type}) wire value`);
    assertSameBytes(mine.schema.encode(wire), bytes, `${source} (${type}) re-encoded`);
    const json = mine.fromXdr(bytes).toJson();
    assertSame(json, theirs[type]!.fromXdr(bytes).toJson(), `${source} (${type}) JSON`);
    assertSameBytes(mine.fromJson(json).toXdr(), bytes, `${source} (${type}) read back from JSON`);
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  // the fixtures were all read: 10 pubnet ledgers, 2 x 3 synthetic, 3 in blocks.json
  assert.ok((counts.get('LedgerCloseMeta') ?? 0) >= 19, JSON.stringify([...counts]));
  for (const type of ['LedgerCloseMetaBatch', 'LedgerHeaderHistoryEntry', 'TransactionHistoryEntry', 'TransactionHistoryResultEntry', 'BucketEntry',
    'TransactionEnvelope', 'TransactionResult', 'TransactionMeta', 'DiagnosticEvent', 'TransactionEvent', 'ContractEvent', 'ScVal',
    'SorobanTransactionData', 'LedgerKey', 'LedgerEntry']) {
    assert.ok((counts.get(type) ?? 0) > 0, `no ${type} among the fixtures: ${JSON.stringify([...counts])}`);
  }
});
