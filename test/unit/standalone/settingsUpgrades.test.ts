// The checks and edits of lumen_upgradeConfig / lumen_setBaseFee / lumen_setBaseReserve, on the
// genesis settings: parsing both forms, core's bounds, order and duplicates, the window resize.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { genesisConfigSettings } from '../../../src/ledger/genesis.ts';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { encodeLedgerKey, sha256, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import type { UpgradableHeader } from '../../../src/ledger/closeLedger.ts';
import {
  SettingsError, checkConfigUpgradeSet, configUpgradeStep, headerUpgradeStep, parseConfigUpgradeSet,
} from '../../../src/standalone/settingsUpgrades.ts';

const genesis = genesisConfigSettings({}, 'testnet', 28); // a protocol-28 network: 86 cost types
const current = (id: number) => {
  const e = genesis.find((g) => g.data.type === 8 && g.data.configSetting.configSettingID === id);
  return e?.data.type === 8 ? e.data.configSetting : undefined;
};
const refused = (set: xdr.ConfigUpgradeSetWire, message: RegExp) =>
  assert.throws(() => checkConfigUpgradeSet(set, current), (e: unknown) => e instanceof SettingsError && message.test(e.message));

test('both forms parse to the same set; malformed input is a SettingsError', () => {
  const set: xdr.ConfigUpgradeSetWire = { updatedEntry: [{ configSettingID: 0, contractMaxSizeBytes: 65_536 }] };
  const bytes = xdr.ConfigUpgradeSet.schema.encode(set);
  assert.deepEqual(parseConfigUpgradeSet(Buffer.from(bytes).toString('base64')), set);
  assert.deepEqual(parseConfigUpgradeSet({ updated_entry: [{ contract_max_size_bytes: 65_536 }] }), set);
  for (const bad of ['%%%', Buffer.from([0, 0, 0, 1, 0, 0, 0, 99]).toString('base64'), Buffer.concat([bytes, Buffer.alloc(4)]).toString('base64'), { updatedEntry: [] }, 7, null]) {
    assert.throws(() => parseConfigUpgradeSet(bad), SettingsError, JSON.stringify(bad));
  }
});

test('core\'s rules: entries, no duplicates, upgradeable ids, bounds; out of order is sorted', () => {
  refused({ updatedEntry: [] }, /no entries/);
  refused({ updatedEntry: [{ configSettingID: 8, contractDataKeySizeBytes: 300 }, { configSettingID: 8, contractDataKeySizeBytes: 400 }] }, /8 appears twice/);
  refused({ updatedEntry: [{ configSettingID: 12, liveSorobanStateSizeWindow: [1n] }] }, /not upgradeable/);
  refused({ updatedEntry: [{ configSettingID: 13, evictionIterator: { bucketListLevel: 1, isCurrBucket: true, bucketFileOffset: 0n } }] }, /not upgradeable/);
  refused({ updatedEntry: [{ configSettingID: 18, frozenLedgerKeysDelta: { keysToFreeze: [], keysToUnfreeze: [] } }] }, /not enforced/);
  refused({ updatedEntry: [{ configSettingID: 9, contractDataEntrySizeBytes: 1999 }] }, /contractDataEntrySizeBytes 1999 is below the minimum 2000/);
  const bandwidth = current(5)!;
  assert.ok(bandwidth.configSettingID === 5);
  refused({ updatedEntry: [{ configSettingID: 5, contractBandwidth: { ...bandwidth.contractBandwidth, ledgerMaxTxsSizeBytes: 20_000, txMaxSizeBytes: 30_000 } }] }, /ledgerMaxTxsSizeBytes 20000 is below the minimum 30000/);
  const archival = current(10)!;
  assert.ok(archival.configSettingID === 10);
  refused({ updatedEntry: [{ configSettingID: 10, stateArchivalSettings: { ...archival.stateArchivalSettings, minPersistentTtl: 5 } }] }, /minPersistentTtl 5 is below the minimum 10/);
  refused({ updatedEntry: [{ configSettingID: 10, stateArchivalSettings: { ...archival.stateArchivalSettings, startingEvictionScanLevel: 11 } }] }, /startingEvictionScanLevel 11 exceeds/);
  const timing = current(16)!;
  assert.ok(timing.configSettingID === 16);
  refused({ updatedEntry: [{ configSettingID: 16, contractScpTiming: { ...timing.contractScpTiming, ledgerTargetCloseTimeMilliseconds: 1000 } }] }, /outside \[4000, 5000\]/);
  const cpu = current(6)!;
  assert.ok(cpu.configSettingID === 6);
  refused({ updatedEntry: [{ configSettingID: 6, contractCostParamsCpuInsns: cpu.contractCostParamsCpuInsns.slice(1) }] }, /85 cost parameters, the protocol has 86/);
  refused({ updatedEntry: [{ configSettingID: 6, contractCostParamsCpuInsns: cpu.contractCostParamsCpuInsns.map((p, i) => (i === 3 ? { ...p, linearTerm: -1n } : p)) }] }, /cost parameter 3 has a negative term/);

  const sorted = checkConfigUpgradeSet({ updatedEntry: [{ configSettingID: 9, contractDataEntrySizeBytes: 70_000 }, { configSettingID: 0, contractMaxSizeBytes: 70_000 }] }, current);
  assert.deepEqual(sorted.updatedEntry.map((e) => e.configSettingID), [0, 9]);
  // every genesis setting that may be upgraded passes as it is, and so does the unlimited preset
  for (const limits of ['testnet', 'unlimited'] as const) {
    const upgradeable = genesisConfigSettings({}, limits, 28).flatMap((e) => (e.data.type === 8 && ![12, 13, 17, 18, 19, 20].includes(e.data.configSetting.configSettingID) ? [e.data.configSetting] : []));
    assert.equal(checkConfigUpgradeSet({ updatedEntry: upgradeable }, current).updatedEntry.length, 15);
  }
});

/** A LedgerTxn over the genesis settings. */
function ltxOverGenesis(): LedgerTxn {
  const byKey = new Map(genesis.map((e) => [Buffer.from(encodeLedgerKey(ledgerKeyOf(e.data))).toString('hex'), e]));
  const source = {
    getEntry: (k: Uint8Array): LedgerEntry | undefined => byKey.get(Buffer.from(k).toString('hex')),
    offers: () => [], offersBySeller: () => [], poolShareTrustLines: () => [],
  };
  return new LedgerTxn(source as never, 7);
}

test('the config step: the upgrade keyed by the set\'s hash, STATE/UPDATED changes, the window resized', () => {
  const archival = current(10)!;
  assert.ok(archival.configSettingID === 10);
  const set = checkConfigUpgradeSet({ updatedEntry: [
    { configSettingID: 0, contractMaxSizeBytes: 9_999 },
    { configSettingID: 10, stateArchivalSettings: { ...archival.stateArchivalSettings, liveSorobanStateSizeWindowSampleSize: 32 } },
  ] }, current);
  const { step, contentHash } = configUpgradeStep(set);
  assert.deepEqual(contentHash, sha256(xdr.ConfigUpgradeSet.schema.encode(set)));
  assert.ok(step.upgrade.type === 6);
  assert.deepEqual(step.upgrade.newConfig.contentHash, contentHash);
  const ltx = ltxOverGenesis();
  const header: UpgradableHeader = { ledgerVersion: 28, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100 };
  step.apply!(ltx, header);
  const changes = ltx.commit();
  const updated = changes.flatMap((c) => (c.type === 1 && c.updated.data.type === 8 ? [c.updated] : []));
  assert.deepEqual(updated.map((e) => e.data.type === 8 && e.data.configSetting.configSettingID), [0, 10, 12]);
  assert.ok(updated.every((e) => e.lastModifiedLedgerSeq === 7));
  const window = updated[2].data.type === 8 && updated[2].data.configSetting.configSettingID === 12 ? updated[2].data.configSetting.liveSorobanStateSizeWindow : [];
  assert.equal(window.length, 32);
  assert.deepEqual(header, { ledgerVersion: 28, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100 }, 'no header change');
});

test('header steps: the upgrade and the header value; 0 and non-integers refused', () => {
  const header: UpgradableHeader = { ledgerVersion: 28, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100 };
  const fee = headerUpgradeStep('baseFee', 250);
  assert.deepEqual(fee.upgrade, { type: 2, newBaseFee: 250 });
  fee.apply!(ltxOverGenesis(), header);
  const reserve = headerUpgradeStep('baseReserve', 1_000_000);
  assert.deepEqual(reserve.upgrade, { type: 4, newBaseReserve: 1_000_000 });
  reserve.apply!(ltxOverGenesis(), header);
  assert.deepEqual(header, { ledgerVersion: 28, baseFee: 250, baseReserve: 1_000_000, maxTxSetSize: 100 });
  for (const bad of [0, -1, 1.5, 2 ** 32]) assert.throws(() => headerUpgradeStep('baseFee', bad), SettingsError);
});
