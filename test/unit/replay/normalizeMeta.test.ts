// Normalizing a TransactionMeta: the order of the changes within each list is not part of what core
// computes (LedgerTxn lists them in UnorderedMap order, salted per process), so it must not decide
// equality; everything else must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { xdr } from '../../../src/xdr/xdr.ts';
import { normalizeMeta, sortChanges } from '../../../src/replay/normalizeMeta.ts';
import { keyId, ledgerKeyOfChange } from '../../../src/xdr/ledgerKeys.ts';
import { cloneWire } from '../../../src/ledger/ledgerTxn.ts';
import { XLM, accountEntry, accountId } from '../ops/support.ts';

const FIXTURE = new URL('../../../test/fixtures/pubnet/ledgers/ledger-63092982.xdr.gz', import.meta.url);

/** The fixture transaction meta with the most changes in one operation. */
function busyMeta(): xdr.TransactionMetaWire {
  const raw = gunzipSync(readFileSync(FIXTURE));
  const lcm = xdr.LedgerCloseMeta.schema.decode(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
  if (lcm.v !== 2) throw new Error('V2 expected');
  const changes = (m: xdr.TransactionMetaWire) => (m.v === 4 ? Math.max(0, ...m.v4.operations.map((o) => o.changes.length)) : 0);
  return lcm.v2.txProcessing.map((p) => p.txApplyProcessing).sort((a, b) => changes(b) - changes(a))[0];
}

/** A deterministic shuffle (xorshift), so a failure can be reproduced. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function reordered(meta: xdr.TransactionMetaWire, seed: number): xdr.TransactionMetaWire {
  if (meta.v !== 4) throw new Error('V4 expected');
  const m = meta.v4;
  return { v: 4, v4: { ...m, txChangesBefore: shuffled(m.txChangesBefore, seed), operations: m.operations.map((o, i) => ({ ...o, changes: shuffled(o.changes, seed + i + 1) })) } };
}

const encoded = (m: xdr.TransactionMetaWire) => Buffer.from(xdr.TransactionMeta.schema.encode(m));

test('metas listing the same changes in other orders normalize to the same bytes', () => {
  const meta = busyMeta();
  if (meta.v !== 4) throw new Error('V4 expected');
  assert.ok(meta.v4.operations.some((o) => o.changes.length >= 6), 'a meta with enough changes to reorder');
  for (const seed of [1, 7, 12345]) {
    const other = reordered(meta, seed);
    assert.notDeepEqual(encoded(other), encoded(meta), `seed ${seed} reorders something`);
    assert.deepEqual(encoded(normalizeMeta(other)), encoded(normalizeMeta(meta)));
  }
});

test('normalizing changes nothing but the order: a changed balance still differs, and the input is left as it was', () => {
  const meta = busyMeta();
  const before = encoded(meta);
  const changed = cloneWire(meta);
  if (changed.v !== 4) throw new Error('V4 expected');
  const op = changed.v4.operations.find((o) => o.changes.some((c) => c.type === 1 && c.updated.data.type === 0))!;
  const upd = op.changes.find((c) => c.type === 1 && c.updated.data.type === 0)!;
  if (upd.type !== 1 || upd.updated.data.type !== 0) throw new Error('unreachable');
  upd.updated.data.account.balance += 1n;
  assert.notDeepEqual(encoded(normalizeMeta(changed)), encoded(normalizeMeta(meta)));
  normalizeMeta(meta);
  assert.deepEqual(encoded(meta), before);
});

test('within a key the order is STATE, CREATED, UPDATED, REMOVED, RESTORED (core MetaUtils remap); keys are grouped', () => {
  const a = accountEntry(accountId('a'), XLM);
  const b = accountEntry(accountId('b'), XLM);
  const key = (e: typeof a) => ({ type: 0 as const, account: { accountId: (e.data as Extract<typeof e.data, { type: 0 }>).account.accountId } });
  const changes: xdr.LedgerEntryChangeWire[] = [
    { type: 2, removed: key(a) }, { type: 1, updated: b }, { type: 4, restored: a }, { type: 3, state: b },
    { type: 0, created: a }, { type: 1, updated: a }, { type: 3, state: a },
  ];
  const sorted = sortChanges(changes);
  const keys = sorted.map((c) => keyId(ledgerKeyOfChange(c)));
  const runs = keys.filter((k, i) => i === 0 || k !== keys[i - 1]);
  assert.equal(runs.length, new Set(keys).size, 'each key\'s changes together');
  const typesOfA = sorted.filter((c) => keyId(ledgerKeyOfChange(c)) === keyId(key(a))).map((c) => c.type);
  assert.deepEqual(typesOfA, [3, 0, 1, 2, 4]);
  assert.deepEqual(sortChanges(shuffled(changes, 99)), sorted);
});
