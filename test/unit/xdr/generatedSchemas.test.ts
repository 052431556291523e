// The generated XDR module against @stellar/stellar-sdk 17.2's `xdr` (what src/ used before it): the
// same schemas, so random values of every type give the same bytes and wire values, and the same JSON
// but where the SDK strays from the Rust crate's names (listed below; the crate itself is checked by
// test/rust/xdr-oracle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { namedTypesUsed, schemaShape } from './support/schemaShape.ts';
import { randomWire, seededRandom } from './support/randomWire.ts';
import { CHANGED_SINCE_SDK, assertSame, assertSameBytes, firstDifference, generatedTypes, ours, theirs } from './support/sdkComparison.ts';

/**
 * Types whose JSON the SDK writes with other names than the crate. The crate keeps the first letter
 * of a member prefix when the rest begins with a digit (a Rust name cannot); the SDK does not.
 */
const SDK_JSON_NAME_SLIPS: Readonly<Record<string, string>> = {
  BinaryFuseFilterType: 'BINARY_FUSE_FILTER_8_BIT: crate b8_bit, SDK 8_bit (and 16, 32)',
};

test('every XDR type of SDK 17.2 is generated, with the same schema but the listed changes', () => {
  const sdkTypes = Object.keys(theirs).filter((name) => theirs[name]?.schema?.name === name).sort();
  assert.ok(sdkTypes.length > 400, 'the SDK types were found');
  assert.deepEqual(sdkTypes.filter((name) => !ours[name]), [], 'SDK types the generated module lacks');
  const changed = generatedTypes.filter((name) => theirs[name] && schemaShape(ours[name]!.schema) !== schemaShape(theirs[name]!.schema));
  assert.deepEqual(changed, Object.keys(CHANGED_SINCE_SDK).sort(),
    changed.map((name) => `${name}:\n  ours: ${schemaShape(ours[name]!.schema)}\n  SDK:  ${schemaShape(theirs[name]!.schema)}`).join('\n'));
  for (const [alias, target] of [['AccountId', 'PublicKey'], ['NodeId', 'PublicKey']]) assert.equal(ours[alias], ours[target], `${alias} is ${target}`);
});

test('random values of every type: the SDK makes the same bytes and values of them, the same JSON but the name slips, and the JSON reads back', () => {
  const seed = 20261129;
  const random = seededRandom(seed);
  const slipped = new Set<string>();
  let compared = 0;
  for (const name of generatedTypes) {
    const mine = ours[name]!;
    const sdkType = theirs[name];
    // the SDK can hold only values of types that reach no changed type
    const comparable = sdkType && ![...namedTypesUsed(mine.schema)].some((t) => t in CHANGED_SINCE_SDK);
    for (let i = 0; i < 12; i++) {
      const wire = randomWire(mine.schema, random);
      const where = `${name} value ${i} (seed ${seed})`;
      const bytes = mine.schema.encode(wire);
      assertSame(mine.schema.decode(bytes), wire, where);
      const json = mine.fromXdr(bytes).toJson();
      assertSameBytes(mine.fromJson(json).toXdr(), bytes, `${where} read back from JSON`);
      if (!comparable) continue;
      compared++;
      assertSameBytes(sdkType.schema.encode(wire), bytes, `${where} encoded by the SDK`);
      assertSame(sdkType.schema.decode(bytes), wire, `${where} decoded by the SDK`);
      const sdkJson = sdkType.fromXdr(bytes).toJson();
      if (isDeepStrictEqual(json, sdkJson)) continue;
      const slips = [...namedTypesUsed(mine.schema)].filter((t) => t in SDK_JSON_NAME_SLIPS);
      assert.ok(slips.length > 0, `${where} JSON: ${firstDifference(json, sdkJson)}`);
      for (const t of slips) slipped.add(t);
    }
  }
  // at 30 every type that holds an ScVal (an address) or a ledger header reaches a changed type
  assert.ok(compared >= 300 * 12, `${compared} values compared with the SDK`);
  assert.deepEqual([...slipped].sort(), Object.keys(SDK_JSON_NAME_SLIPS).sort(), 'each listed slip shows');
});
