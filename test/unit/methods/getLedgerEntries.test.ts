import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import { MAX_LEDGER_ENTRY_KEYS, getLedgerEntries } from '../../../src/rpc/methods/getLedgerEntries.ts';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';
import { EntryType, ledgerKeyType } from '../../../src/xdr/ledgerKeys.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import type { StoreReader, StoredEntry } from '../../../src/store/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, PUBNET_PASSPHRASE, assertRpcError, assertShape, call, contextFor, ledgerBytes, ledgerMeta, openEmptyStore, openStore, type TestStore,
} from './support/pubnet.ts';

let db: TestStore;
let ctx: MethodContext;
before(() => { db = openStore(); ctx = contextFor(db.store); });
after(() => db.close());

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const keyB64 = (k: xdr.LedgerKeyWire): string => b64(xdr.LedgerKey.schema.encode(k));

/** Keys of entries the last fixture ledger wrote, built with the SDK from the meta's changes. */
function touchedKeys(): { account: xdr.LedgerKeyWire; data: xdr.LedgerKeyWire[] } {
  let account: xdr.LedgerKeyWire | undefined;
  const data = new Map<string, xdr.LedgerKeyWire>();
  for (const p of ledgerMeta(LAST_LEDGER).txProcessing) {
    const m = p.txApplyProcessing;
    if (m.v !== 4) continue;
    for (const change of m.v4.operations.flatMap((o) => o.changes)) {
      const e = change.type === 0 ? change.created : change.type === 1 ? change.updated : undefined;
      if (!e) continue;
      const d = e.data;
      if (d.type === 0) account ??= { type: 0, account: { accountId: d.account.accountId } };
      if (d.type === 6) {
        const k: xdr.LedgerKeyWire = { type: 6, contractData: { contract: d.contractData.contract, key: d.contractData.key, durability: d.contractData.durability } };
        data.set(keyB64(k), k);
      }
    }
  }
  // The store holds only entries these ten ledgers wrote: keep the contract data whose TTL is among them.
  const withTtl = [...data.values()].filter((k) => ttlOf(k) !== undefined);
  assert.ok(account && withTtl.length > 2, 'the fixture touches accounts and contract data');
  return { account, data: withTtl };
}

/** The stored TTL of a Soroban key, looked up by sha256 of the key's XDR. */
function ttlOf(key: xdr.LedgerKeyWire): number | undefined {
  const keyHash = createHash('sha256').update(xdr.LedgerKey.schema.encode(key)).digest();
  const ttl = db.store.entry(xdr.LedgerKey.schema.encode({ type: 9, ttl: { keyHash } }));
  if (!ttl) return undefined;
  const e = xdr.LedgerEntry.schema.decode(ttl.entry);
  return e.data.type === 9 ? e.data.ttl.liveUntilLedgerSeq : undefined;
}

function storedTtl(key: xdr.LedgerKeyWire): number {
  const ttl = ttlOf(key);
  assert.ok(ttl !== undefined, 'a Soroban entry has a TTL entry');
  return ttl;
}

test('found entries in request order, missing ones omitted, with TTLs for contract data', async () => {
  const { account, data } = touchedKeys();
  const missing: xdr.LedgerKeyWire = { type: 0, account: { accountId: { type: 0, ed25519: new Uint8Array(32).fill(7) } } };
  const keys = [data[1], missing, account, data[0]].map(keyB64);
  const result = await call(getLedgerEntries, { keys }, ctx);
  assertShape(result, { entries: 'array', latestLedger: 'number' }, 'result');
  assert.equal(result.latestLedger, LAST_LEDGER);
  assert.deepEqual(result.entries.map((e: { key: string }) => e.key), [keys[0], keys[2], keys[3]]);

  const [dataEntry, accountEntry] = result.entries;
  assertShape(dataEntry, { key: 'string', xdr: 'string', lastModifiedLedgerSeq: 'number', liveUntilLedgerSeq: 'number', extXdr: 'string' }, 'contract data entry');
  assertShape(accountEntry, { key: 'string', xdr: 'string', lastModifiedLedgerSeq: 'number', extXdr: 'string' }, 'account entry');

  // the xdr is LedgerEntryData (what the JS and Python clients decode), the ext a LedgerEntryExt
  const accountData = xdr.LedgerEntryData.schema.decode(Buffer.from(accountEntry.xdr, 'base64'));
  assert.equal(accountData.type, 0);
  assert.deepEqual(accountData.type === 0 && accountData.account.accountId, account.type === 0 && account.account.accountId);
  xdr.LedgerEntryExt.fromXdr(accountEntry.extXdr, 'base64');

  const stored = db.store.entry(xdr.LedgerKey.schema.encode(data[1])) as StoredEntry;
  const storedEntry = xdr.LedgerEntry.schema.decode(stored.entry);
  assert.equal(dataEntry.xdr, b64(xdr.LedgerEntryData.schema.encode(storedEntry.data)));
  assert.equal(dataEntry.extXdr, b64(xdr.LedgerEntryExt.schema.encode(storedEntry.ext)));
  assert.equal(dataEntry.lastModifiedLedgerSeq, storedEntry.lastModifiedLedgerSeq);
  assert.equal(dataEntry.liveUntilLedgerSeq, storedTtl(data[1]));
  assert.ok(dataEntry.liveUntilLedgerSeq >= LAST_LEDGER);
});

test('errors: TTL keys, undecodable keys, too many keys, no keys, bad format, empty store', async () => {
  const { account, data } = touchedKeys();
  const ttlKey = keyB64({ type: 9, ttl: { keyHash: new Uint8Array(32) } });
  await assertRpcError(getLedgerEntries, { keys: [keyB64(account), ttlKey] }, ctx, -32602, 'ledger ttl entries cannot be queried directly');
  await assertRpcError(getLedgerEntries, { keys: [keyB64(account), 'AAAA', keyB64(data[0])] }, ctx, -32602,
    'cannot unmarshal key value AAAA at index 1');
  await assertRpcError(getLedgerEntries, { keys: [keyB64(account), 'not base64!'] }, ctx, -32602,
    'cannot unmarshal key value not base64! at index 1');
  await assertRpcError(getLedgerEntries, { keys: Array(201).fill(keyB64(account)) }, ctx, -32602,
    'key count (201) exceeds maximum supported (200)');
  const two00 = await call(getLedgerEntries, { keys: Array(200).fill(keyB64(account)) }, ctx);
  assert.equal(two00.entries.length, 200, '200 keys are accepted');
  await assertRpcError(getLedgerEntries, { keys: [] }, ctx, -32603, 'could not query captive core: no keys specified in request');
  await assertRpcError(getLedgerEntries, {}, ctx, -32603, 'could not query captive core: no keys specified in request');
  await assertRpcError(getLedgerEntries, { keys: [keyB64(account)], xdrFormat: 'yaml' }, ctx, -32602,
    "got 'yaml': expected base64, json for optional 'xdrFormat'");
  const empty = openEmptyStore();
  try {
    await assertRpcError(getLedgerEntries, { keys: [keyB64(account)] }, contextFor(empty.store), -32603,
      'could not get latest ledger: DB is empty');
  } finally {
    empty.close();
  }
});

test('xdrFormat json: keyJson, dataJson, extJson', async () => {
  const { data } = touchedKeys();
  const { entries: [entry] } = await call(getLedgerEntries, { keys: [keyB64(data[0])], xdrFormat: 'json' }, ctx);
  assertShape(entry, { keyJson: 'object', dataJson: 'object', lastModifiedLedgerSeq: 'number', liveUntilLedgerSeq: 'number', extJson: 'string' }, 'json entry');
  assert.ok('contract_data' in entry.keyJson);
  assert.ok('contract_data' in entry.dataJson);
  assert.equal(entry.extJson, 'v0');
});

// The fixture ledgers write no contract code, so TTL edge cases run against a small in-memory store.
test('lapsed TTLs and evicted entries: persistent data and code report 0 (archived), temporary data is not found', async () => {
  const contract: xdr.ScAddressWire = { type: 1, contractId: new Uint8Array(32).fill(1) };
  const dataKey = (durability: number): xdr.LedgerKeyWire =>
    ({ type: 6, contractData: { contract, key: { type: 3, u32: durability }, durability } });
  const entryOf = (k: xdr.LedgerKeyWire, liveUntil: number) => {
    const data: xdr.LedgerEntryDataWire = k.type === 6
      ? { type: 6, contractData: { ext: { v: 0 }, ...k.contractData, val: { type: 3, u32: 1 } } }
      : k.type === 7 ? { type: 7, contractCode: { ext: { v: 0 }, hash: k.contractCode.hash, code: new Uint8Array([0, 97, 115, 109]) } }
      : assert.fail('contract data or code only');
    const entry: xdr.LedgerEntryWire = { lastModifiedLedgerSeq: 90, data, ext: { v: 0 } };
    const keyHash = createHash('sha256').update(xdr.LedgerKey.schema.encode(k)).digest();
    const ttl: xdr.LedgerEntryWire = { lastModifiedLedgerSeq: 90, data: { type: 9, ttl: { keyHash, liveUntilLedgerSeq: liveUntil } }, ext: { v: 0 } };
    return [
      [keyB64(k), { key: xdr.LedgerKey.schema.encode(k), entry: xdr.LedgerEntry.schema.encode(entry), lastModified: 90 }],
      [keyB64({ type: 9, ttl: { keyHash } }), { key: new Uint8Array(), entry: xdr.LedgerEntry.schema.encode(ttl), lastModified: 90 }],
    ] as Array<[string, StoredEntry]>;
  };
  const persistent = dataKey(1);
  const temporary = dataKey(0);
  const liveTemp: xdr.LedgerKeyWire = { type: 6, contractData: { contract, key: { type: 3, u32: 7 }, durability: 0 } };
  const oldCode: xdr.LedgerKeyWire = { type: 7, contractCode: { hash: new Uint8Array(32).fill(2) } };
  const liveCode: xdr.LedgerKeyWire = { type: 7, contractCode: { hash: new Uint8Array(32).fill(3) } };
  // evicted to the hot archive: the entry without its TTL entry (a state bootstrapped from an archive)
  const evicted: xdr.LedgerKeyWire = { type: 6, contractData: { contract, key: { type: 3, u32: 9 }, durability: 1 } };
  const all = new Map([
    ...entryOf(persistent, 99), ...entryOf(temporary, 99), ...entryOf(liveTemp, 100), ...entryOf(oldCode, 50), ...entryOf(liveCode, 5000),
    entryOf(evicted, 0)[0],
  ]);
  const store = {
    latestLedger: () => ({ sequence: 100 }),
    entries: (keys: Uint8Array[]) => new Map(keys.flatMap((k) => (all.has(b64(k)) ? [[b64(k), all.get(b64(k))!]] : []))),
  } as unknown as StoreReader;
  const fake: MethodContext = { ...ctx, store };
  const result = await call(getLedgerEntries, { keys: [persistent, temporary, liveTemp, oldCode, liveCode, evicted].map(keyB64) }, fake);
  assert.deepEqual(result.entries.map((e: { key: string; liveUntilLedgerSeq: number }) => [e.key, e.liveUntilLedgerSeq]),
    [[keyB64(persistent), 0], [keyB64(liveTemp), 100], [keyB64(oldCode), 0], [keyB64(liveCode), 5000], [keyB64(evicted), 0]]);
  assert.equal(result.latestLedger, 100);
});

// ---- `ledger`: entries as they were at the end of a past ledger (our extension) ----------------

/** One answer for any number of keys, asked 200 at a time. */
async function entriesFor(keys: string[], params: Record<string, unknown>, context: MethodContext): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < keys.length; i += MAX_LEDGER_ENTRY_KEYS) {
    out.push(...(await call(getLedgerEntries, { keys: keys.slice(i, i + MAX_LEDGER_ENTRY_KEYS), ...params }, context)).entries);
  }
  return out;
}

test('ledger: each fixture ledger answers what the method answered when that ledger was the latest', async () => {
  const networkId = networkIdOf(PUBNET_PASSPHRASE);
  const batches = Array.from({ length: LAST_LEDGER - FIRST_LEDGER + 1 }, (_, i) => ledgerToBatch({ bytes: ledgerBytes(FIRST_LEDGER + i) }, networkId));
  // every key the ledgers write (their TTLs are read through the entries they belong to)
  const keys = [...new Set(batches.flatMap((b) => b.entryWrites.filter((w) => ledgerKeyType(w.key) !== EntryType.TTL).map((w) => b64(w.key))))];
  const grown = openEmptyStore();
  try {
    const context = contextFor(grown.store);
    const recorded = new Map<number, unknown[]>();
    const recordedJson = new Map<number, unknown[]>();
    const someKeys = keys.filter((_, i) => i % 40 === 0);
    for (const b of batches) {
      grown.store.ingest(b, 120960);
      recorded.set(b.ledger.sequence, await entriesFor(keys, {}, context));
      recordedJson.set(b.ledger.sequence, await entriesFor(someKeys, { xdrFormat: 'json' }, context));
    }
    for (const [seq, expected] of recorded) {
      assert.deepEqual(await entriesFor(keys, { ledger: seq }, context), expected, `ledger ${seq}`);
      assert.deepEqual(await entriesFor(someKeys, { ledger: seq, xdrFormat: 'json' }, context), recordedJson.get(seq), `ledger ${seq}, JSON`);
    }
    // the series is not trivial: entries change, and some do not exist yet at the first ledger
    const first = recorded.get(FIRST_LEDGER)!, last = recorded.get(LAST_LEDGER)!;
    const byKey = (entries: unknown[]) => new Map((entries as Array<{ key: string; xdr: string }>).map((e) => [e.key, e.xdr]));
    const [atFirst, atLast] = [byKey(first), byKey(last)];
    const changed = [...atLast].filter(([k, v]) => atFirst.has(k) && atFirst.get(k) !== v).length;
    const created = [...atLast.keys()].filter((k) => !atFirst.has(k)).length;
    assert.ok(changed > 100 && created > 100, `${changed} entries changed and ${created} were created after the first ledger`);
  } finally {
    grown.close();
  }
});

test('ledger: outside the entry history is -32602 naming the range; the latest ledger answers as without it', async () => {
  const { account, data } = touchedKeys();
  const keys = [keyB64(account), ...data.map(keyB64)];
  const range = `between the oldest ledger with entry history: ${FIRST_LEDGER} and the latest ledger: ${LAST_LEDGER} for this rpc instance`;
  await assertRpcError(getLedgerEntries, { keys, ledger: FIRST_LEDGER - 1 }, ctx, -32602, `ledger (${FIRST_LEDGER - 1}) must be ${range}`);
  await assertRpcError(getLedgerEntries, { keys, ledger: LAST_LEDGER + 1 }, ctx, -32602, `ledger (${LAST_LEDGER + 1}) must be ${range}`);
  await assertRpcError(getLedgerEntries, { keys, ledger: 0 }, ctx, -32602, `ledger (0) must be ${range}`);
  assert.deepEqual(await call(getLedgerEntries, { keys, ledger: LAST_LEDGER }, ctx), await call(getLedgerEntries, { keys }, ctx));
  const atFirst = await call(getLedgerEntries, { keys, ledger: FIRST_LEDGER }, ctx);
  assert.equal(atFirst.latestLedger, LAST_LEDGER, 'latestLedger stays the latest ledger');
  const noHistory = { ...ctx, store: { ...db.store, latestLedger: () => db.store.latestLedger(), entryHistoryOldest: () => undefined } as unknown as StoreReader };
  await assertRpcError(getLedgerEntries, { keys, ledger: LAST_LEDGER }, noHistory, -32602,
    'ledger is not served: this rpc instance keeps no entry history (--ledger-entry-history=false)');
});

test('a rendering is never served for other bytes at the same lastModified (an entry brought back by a revert)', async () => {
  const { account } = touchedKeys();
  const key = keyB64(account);
  const first = (await call(getLedgerEntries, { keys: [key] }, ctx)).entries[0];
  // the same key at the same lastModified with another balance: what a revert and a re-closed
  // ledger of the same sequence can store
  const stored = db.store.entry(xdr.LedgerKey.schema.encode(account))!;
  const entry = xdr.LedgerEntry.schema.decode(stored.entry);
  assert.equal(entry.data.type, 0);
  if (entry.data.type === 0) entry.data.account.balance += 1n;
  const changed: StoredEntry = { ...stored, entry: xdr.LedgerEntry.schema.encode(entry) };
  const store = Object.create(db.store) as typeof db.store;
  store.entries = (keys: Uint8Array[]) => new Map(keys.filter((k) => b64(k) === key).map((k) => [b64(k), changed]));
  const second = (await call(getLedgerEntries, { keys: [key] }, contextFor(store))).entries[0];
  assert.equal(second.lastModifiedLedgerSeq, first.lastModifiedLedgerSeq);
  assert.notEqual(second.xdr, first.xdr);
  const data = xdr.LedgerEntryData.schema.decode(Buffer.from(second.xdr, 'base64'));
  assert.equal(data.type === 0 && data.account.balance, entry.data.type === 0 && entry.data.account.balance);
  // and the original bytes still render as before
  assert.deepEqual((await call(getLedgerEntries, { keys: [key] }, ctx)).entries[0], first);
});
