// The ledger snapshot format's reading rules (src/standalone/ledgerSnapshot.ts): the older forms the
// Rust crate still reads (the [key, [entry, live_until]] list, 64-bit integers as JSON numbers, 128-bit
// integers as {hi, lo}) give the same entries as the current form; clear errors name the entry; and
// the genesis made from a snapshot keeps its entries, adds what it lacks and rebuilds the TTLs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { genesisFromSnapshot, parseSnapshot, SnapshotError, type LoadedSnapshot } from '../../../src/standalone/ledgerSnapshot.ts';
import { encodeLedgerEntry, encodeLedgerKey, networkIdOf, sha256, toHex, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';

const PASSPHRASE = 'Standalone Network ; February 2017';
const NETWORK_ID = networkIdOf(PASSPHRASE);
const G = 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7';
const C = 'CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE';

const account = (balance: string) => ({
  last_modified_ledger_seq: 5,
  data: { account: { account_id: G, balance, seq_num: '21474836480', num_sub_entries: 0, inflation_dest: null, flags: 0, home_domain: '', thresholds: '01000000', signers: [], ext: 'v0' } },
  ext: 'v0',
});
const contractData = (val: unknown, durability = 'persistent') => ({
  last_modified_ledger_seq: 6,
  data: { contract_data: { ext: 'v0', contract: C, key: { symbol: 'k' }, durability, val } },
  ext: 'v0',
});

function snapshotText(entries: unknown, more: Record<string, unknown> = {}): string {
  return JSON.stringify({
    protocol_version: 28, sequence_number: 100, timestamp: 1_700_000_000, network_id: toHex(NETWORK_ID), base_reserve: 5_000_000,
    min_persistent_entry_ttl: 4096, min_temp_entry_ttl: 16, max_entry_ttl: 6_312_000, ledger_entries: entries, ...more,
  });
}

const bytesOf = (s: LoadedSnapshot) => s.entries.map((e) => [toHex(encodeLedgerEntry(e.entry)), e.liveUntil]);

describe('reading a ledger snapshot', () => {
  it('the current form: entries and live_until as given', () => {
    const s = parseSnapshot(snapshotText([{ entry: account('1000'), live_until: null }, { entry: contractData({ u64: '5' }), live_until: 400 }]));
    assert.equal(s.ledger.sequence_number, 100);
    assert.equal(s.entries.length, 2);
    assert.equal(s.entries[0].entry.data.type, 0);
    assert.equal(s.entries[1].liveUntil, 400);
  });

  it('the older forms the crate reads give the same entries', () => {
    const current = parseSnapshot(snapshotText([
      { entry: account('90071992547409930'), live_until: null },
      { entry: contractData({ i128: '-170141183460469231731687303715884105728' }), live_until: 400 },
      { entry: contractData({ u256: '340282366920938463463374607431768211457' }, 'temporary'), live_until: 120 },
    ]));
    // the first entry list form, 64-bit integers as JSON numbers (one beyond 2^53), 128/256-bit as parts
    const older = snapshotText([
      [{ account: { account_id: G } }, [{ ...account('0'), data: { account: { ...account('0').data.account, balance: 0, seq_num: 21474836480 } } }, null]],
      [{ contract_data: { contract: C, key: { symbol: 'k' }, durability: 'persistent' } }, [contractData({ i128: { hi: 'HI', lo: 0 } }), 400]],
      [{ contract_data: { contract: C, key: { symbol: 'k' }, durability: 'temporary' } },
        [contractData({ u256: { hi_hi: 0, hi_lo: 1, lo_hi: 0, lo_lo: 1 } }, 'temporary'), 120]],
    ]).replace('"balance":0', '"balance":90071992547409930').replace('"HI"', '-9223372036854775808');
    assert.deepEqual(bytesOf(parseSnapshot(older)), bytesOf(current));
  });

  it('errors say what is wrong and where', () => {
    assert.throws(() => parseSnapshot('{"protocol_version": 2'), /malformed JSON/);
    assert.throws(() => parseSnapshot('[]'), /expected a JSON object/);
    assert.throws(() => parseSnapshot(snapshotText([], { network_id: 'abc' })), /"network_id" must be 64 hex digits/);
    assert.throws(() => parseSnapshot(snapshotText([], { base_reserve: -1 })), /"base_reserve" must be a 32-bit unsigned integer/);
    assert.throws(() => parseSnapshot(snapshotText({})), /"ledger_entries" must be an array/);
    assert.throws(() => parseSnapshot(snapshotText([{ entry: account('1'), live_until: null }, { entry: account('x'), live_until: null }])),
      (e: Error) => e instanceof SnapshotError && /^ledger_entries\[1\]: /.test(e.message));
    assert.throws(() => parseSnapshot(snapshotText([{ entry: account('1'), live_until: -3 }])), /ledger_entries\[0\]: "live_until" must be/);
    assert.throws(() => parseSnapshot(snapshotText([[{ account: { account_id: C.replace('C', 'G') } }, [account('1'), null]]])), /ledger_entries\[0\]/);
  });
});

describe('a genesis from a snapshot', () => {
  const root: LedgerEntry = xdr.LedgerEntry.schema.decode(xdr.LedgerEntry.fromJson({ ...account('1'), data: { account: { ...account('1').data.account, account_id: 'GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI' } } } as never).toXdr());
  const setting = (id: number, value: unknown): LedgerEntry => ({ lastModifiedLedgerSeq: 1, data: { type: 8, configSetting: { configSettingID: id, ...value as object } } as never, ext: { v: 0 } });

  it('keeps the snapshot\'s entries and sequence, adds the defaults it lacks, rebuilds TTLs from live_until', () => {
    const snap = parseSnapshot(snapshotText([
      { entry: account('77'), live_until: null },
      { entry: contractData({ u32: 1 }), live_until: 5000 },
      { entry: contractData({ u32: 2 }, 'temporary'), live_until: null },
    ]));
    const from = genesisFromSnapshot(snap, { networkId: NETWORK_ID, passphrase: PASSPHRASE, protocolVersion: 28, archival: { minTemporaryTtl: 50 } });
    assert.equal(from.ledgerSeq, 100);
    assert.equal(from.closeTime, 1_700_000_000n);
    assert.equal(from.baseReserve, 5_000_000);
    const archival = setting(10, { stateArchivalSettings: {
      maxEntryTtl: 1, minTemporaryTtl: 1, minPersistentTtl: 1, persistentRentRateDenominator: 1n, tempRentRateDenominator: 1n,
      maxEntriesToArchive: 1, liveSorobanStateSizeWindowSampleSize: 1, liveSorobanStateSizeWindowSamplePeriod: 1, evictionScanSize: 1, startingEvictionScanLevel: 1,
    } });
    const entries = from.entries([root, archival, setting(0, { contractMaxSizeBytes: 65536 })]);
    const types = entries.map((e) => e.data.type);
    assert.deepEqual(types, [0, 6, 6, 0, 8, 8, 9, 9]);
    assert.equal(entries[0].data.type === 0 && entries[0].data.account.balance, 77n);
    assert.equal(entries[3].lastModifiedLedgerSeq, 100, 'an added default is modified at the genesis');
    const s = entries[4].data.type === 8 && entries[4].data.configSetting.configSettingID === 10 ? entries[4].data.configSetting.stateArchivalSettings : undefined;
    assert.deepEqual([s?.minPersistentTtl, s?.minTemporaryTtl, s?.maxEntryTtl], [4096, 50, 6_312_000], 'the snapshot\'s TTL limits, then the node\'s override');
    const ttl = (i: number) => entries[i].data.type === 9 ? entries[i].data.ttl : undefined;
    assert.deepEqual(ttl(6), { keyHash: sha256(encodeLedgerKey(ledgerKeyOf(entries[1].data))), liveUntilLedgerSeq: 5000 });
    assert.deepEqual(ttl(7), { keyHash: sha256(encodeLedgerKey(ledgerKeyOf(entries[2].data))), liveUntilLedgerSeq: 100 + 50 - 1 }, 'no live_until: the minimum TTL');
    assert.equal(entries[6].lastModifiedLedgerSeq, 6);
  });

  it('a TTL entry listed in the snapshot stands without live_until, and is replaced by one', () => {
    const withoutLive = contractData({ u32: 1 });
    const withLive = contractData({ u32: 2 }, 'temporary');
    const ttlOf = (e: unknown, liveUntil: number) => ({
      last_modified_ledger_seq: 3, ext: 'v0',
      data: { ttl: { key_hash: toHex(sha256(encodeLedgerKey(ledgerKeyOf(xdr.LedgerEntry.schema.decode(xdr.LedgerEntry.fromJson(e as never).toXdr()).data)))), live_until_ledger_seq: liveUntil } },
    });
    const snap = parseSnapshot(snapshotText([
      { entry: ttlOf(withoutLive, 777), live_until: null }, { entry: withoutLive, live_until: null },
      { entry: ttlOf(withLive, 888), live_until: null }, { entry: withLive, live_until: 999 },
    ]));
    const entries = genesisFromSnapshot(snap, { networkId: NETWORK_ID, passphrase: PASSPHRASE, protocolVersion: 28 }).entries([]);
    assert.deepEqual(entries.map((e) => e.data.type === 9 ? e.data.ttl.liveUntilLedgerSeq : e.data.type), [777, 6, 999, 6]);
  });

  it('refuses another network\'s snapshot and a newer protocol', () => {
    const snap = parseSnapshot(snapshotText([]));
    assert.throws(() => genesisFromSnapshot(snap, { networkId: networkIdOf('Other ; 1'), passphrase: 'Other ; 1', protocolVersion: 28 }),
      /the snapshot is of network id .* not of this network's passphrase "Other ; 1"/);
    assert.throws(() => genesisFromSnapshot(snap, { networkId: NETWORK_ID, passphrase: PASSPHRASE, protocolVersion: 27 }),
      /the snapshot is of protocol 28; this node runs protocol 27/);
    const older = genesisFromSnapshot(parseSnapshot(snapshotText([], { protocol_version: 25 })), { networkId: NETWORK_ID, passphrase: PASSPHRASE, protocolVersion: 28 });
    assert.equal(older.ledgerVersion, 28, 'an older protocol starts at ours');
    assert.equal(older.idPool, 0n);
  });

  it('new offers are numbered after the snapshot\'s highest offer id', () => {
    const offer = (id: string) => ({
      last_modified_ledger_seq: 9, ext: 'v0',
      data: { offer: { seller_id: G, offer_id: id, selling: 'native', buying: 'native', amount: '10', price: { n: 1, d: 1 }, flags: 0, ext: 'v0' } },
    });
    const snap = parseSnapshot(snapshotText([{ entry: offer('41'), live_until: null }, { entry: offer('7'), live_until: null }]));
    assert.equal(genesisFromSnapshot(snap, { networkId: NETWORK_ID, passphrase: PASSPHRASE, protocolVersion: 28 }).idPool, 41n);
  });
});
