// The state-size window a node derives from LedgerCloseMetas (src/ingest/stateSizeWindow.ts): the
// average it leaves must be the meta's to the byte, whatever the stored window was.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { xdr } from '@stellar/stellar-sdk';
import { StateSizeWindow, WINDOW_KEY, averageAfterLedger, nextWindow, windowAverage } from '../../../src/ingest/stateSizeWindow.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import { decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, toBase64 } from '../../../src/xdr/codec.ts';

describe('window arithmetic', () => {
  test('the average is floored, as core divides', () => {
    assert.equal(windowAverage([1n, 2n]), 1n);
    assert.equal(windowAverage([10n, 10n, 11n]), 10n);
    assert.equal(windowAverage([]), 0n);
  });

  test('a sample ledger shifts in the sample that gives the published average', () => {
    const window = [100n, 200n, 300n];
    // the network sampled 1000: (200 + 300 + 1000) / 3 = 500
    const published = averageAfterLedger(window, 64, 128, 1000n);
    assert.equal(published, 500n);
    assert.deepEqual(nextWindow(window, published, true), [200n, 300n, 1000n]);
  });

  test('a derived sample is below the true one by less than the window length when the mean is not whole', () => {
    const window = [100n, 200n, 300n];
    const published = averageAfterLedger(window, 64, 64, 1001n); // (200+300+1001)/3 = 500.33 -> 500
    const derived = nextWindow(window, published, true);
    assert.deepEqual(derived, [200n, 300n, 1000n]);
    assert.equal(windowAverage(derived), published);
  });

  test('only every samplePeriod-th ledger samples', () => {
    assert.equal(averageAfterLedger([100n, 200n, 300n], 64, 65, 9999n), 200n);
    assert.deepEqual(nextWindow([100n, 200n, 300n], 200n, false), [100n, 200n, 300n]);
  });

  test('a window that disagrees with the meta is reset to the average throughout', () => {
    assert.deepEqual(nextWindow([0n, 0n, 0n], 777n, false), [777n, 777n, 777n]);
    // a sample that would have to be negative cannot be: reset instead
    assert.deepEqual(nextWindow([0n, 5000n, 5000n], 10n, true), [10n, 10n, 10n]);
  });
});

const configEntry = (configSetting: xdr.ConfigSettingEntryWire, lastModifiedLedgerSeq = 1): Uint8Array =>
  encodeLedgerEntry({ lastModifiedLedgerSeq, data: { type: 8, configSetting }, ext: { v: 0 } });

const archival = (samplePeriod: number): xdr.ConfigSettingEntryWire => ({
  configSettingID: 10,
  stateArchivalSettings: {
    maxEntryTtl: 3_110_400, minTemporaryTtl: 720, minPersistentTtl: 120_960, persistentRentRateDenominator: 1n,
    tempRentRateDenominator: 1n, maxEntriesToArchive: 1000, liveSorobanStateSizeWindowSampleSize: 3,
    liveSorobanStateSizeWindowSamplePeriod: samplePeriod, evictionScanSize: 100_000, startingEvictionScanLevel: 6,
  },
});
const ARCHIVAL_KEY = encodeLedgerKey({ type: 8, configSetting: { configSettingId: 10 } });

function batch(sequence: number, liveSorobanStateSize?: bigint, entryWrites: IngestBatch['entryWrites'] = []): IngestBatch {
  return {
    ledger: { sequence, hash: new Uint8Array(32), closeTime: 0, protocolVersion: 25, header: new Uint8Array(), meta: new Uint8Array() },
    transactions: [], entryWrites, feeSamples: [], ...(liveSorobanStateSize !== undefined ? { liveSorobanStateSize } : {}),
  };
}

const windowOf = (b: IngestBatch): bigint[] | undefined => {
  const w = b.entryWrites.find((e) => toBase64(e.key) === toBase64(WINDOW_KEY));
  if (!w?.entry) return undefined;
  const d = decodeLedgerEntry(w.entry).data;
  return d.type === 8 && d.configSetting.configSettingID === 12 ? d.configSetting.liveSorobanStateSizeWindow : undefined;
};

describe('StateSizeWindow', () => {
  const stored = new Map<string, Uint8Array>([
    [toBase64(WINDOW_KEY), configEntry({ configSettingID: 12, liveSorobanStateSizeWindow: [300n, 300n, 300n] })],
    [toBase64(ARCHIVAL_KEY), configEntry(archival(64))],
  ]);
  const read = (key: Uint8Array) => stored.get(toBase64(key));

  test('writes nothing while the stored window gives the published average', () => {
    const b = batch(65, 300n);
    new StateSizeWindow(read).apply(b);
    assert.equal(b.entryWrites.length, 0);
  });

  test('follows consecutive ledgers of one group without the store, stamping the entry with its ledger', () => {
    const derive = new StateSizeWindow(read);
    const first = batch(128, 400n);       // sample 600
    const second = batch(129, 400n);      // no change
    const third = batch(192, 500n);       // sample 900
    for (const b of [first, second, third]) derive.apply(b);
    assert.deepEqual(windowOf(first), [300n, 300n, 600n]);
    assert.equal(second.entryWrites.length, 0);
    assert.deepEqual(windowOf(third), [300n, 600n, 600n]);
    assert.equal(decodeLedgerEntry(third.entryWrites[0].entry!).lastModifiedLedgerSeq, 192);
  });

  test('an upgrade in the same ledger is taken into account (here: a new sample period)', () => {
    const b = batch(100, 400n, [{ key: ARCHIVAL_KEY, entry: configEntry(archival(50), 100), lastModified: 100 }]);
    new StateSizeWindow(read).apply(b);
    assert.deepEqual(windowOf(b), [300n, 300n, 600n]);
  });

  test('metas before V2 carry no average: nothing to derive', () => {
    const b = batch(128);
    new StateSizeWindow(read).apply(b);
    assert.equal(b.entryWrites.length, 0);
  });
});
