// The LiveSorobanStateSizeWindow ConfigSetting entry as a network's ledgers leave it.
//
// Rent fees are priced from the average of this window of Soroban state sizes. stellar-core samples
// the state size into it every `liveSorobanStateSizeWindowSamplePeriod` ledgers (dropping the oldest
// sample), but writes the sample straight to its bucket list: no LedgerCloseMeta carries the change.
// What every V2 meta carries is the resulting average, `totalByteSizeOfLiveSorobanState`. So a node
// that only reads metas derives the window: on a sample ledger the new sample is the value that
// makes the window's average exactly the meta's, and whenever the stored window disagrees with the
// meta anyway (a state bootstrapped from an older checkpoint, a database from before this existed),
// every sample becomes the average. Either way the average, which is all that fees are computed
// from, is the network's to the byte; a derived sample can be below the true one by up to the
// window's length in bytes (the average is floored).
//
// The standalone network publishes averages from its exact state size (src/ledger/sorobanState.ts,
// averageAfterLedger below) and stores its window through this same derivation, so a node following
// it derives the same entry.
import { xdr } from '@stellar/stellar-sdk';
import { decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, toBase64, type LedgerEntry } from '../xdr/codec.ts';
import type { IngestBatch } from '../store/types.ts';

const STATE_ARCHIVAL = 10;
const LIVE_SOROBAN_STATE_SIZE_WINDOW = 12;
const configKey = (id: number) => encodeLedgerKey({ type: 8, configSetting: { configSettingId: id } });
export const WINDOW_KEY = configKey(LIVE_SOROBAN_STATE_SIZE_WINDOW);
const ARCHIVAL_KEY = configKey(STATE_ARCHIVAL);
const WINDOW_ID = toBase64(WINDOW_KEY);
const ARCHIVAL_ID = toBase64(ARCHIVAL_KEY);
/** LedgerKey XDR starts with its type; ConfigSetting keys are rare, every other write skips at once. */
const isConfigSettingKey = (key: Uint8Array): boolean => key.length === 8 && key[3] === 8 && key[0] === 0;

/** The floor of the window's mean, as core computes it. */
export function windowAverage(window: readonly bigint[]): bigint {
  if (window.length === 0) return 0n;
  return window.reduce((a, b) => a + b, 0n) / BigInt(window.length);
}

/**
 * The average a network that knows its state size publishes for ledger `seq`: on a sample ledger,
 * that of the window with `stateSize` (the size before this ledger's changes) shifted in.
 */
export function averageAfterLedger(window: readonly bigint[], samplePeriod: number, seq: number, stateSize: bigint): bigint {
  const sampled = samplePeriod > 0 && seq % samplePeriod === 0 && window.length > 0 ? [...window.slice(1), stateSize] : window;
  return windowAverage(sampled);
}

/**
 * The window after a ledger: `samplePeriodEnded` shifts in the sample that makes the average
 * `average`; a window whose average still differs is set to `average` throughout.
 */
export function nextWindow(window: readonly bigint[], average: bigint, samplePeriodEnded: boolean): bigint[] {
  let next = [...window];
  if (samplePeriodEnded && next.length > 0) {
    const kept = next.slice(1);
    const sample = average * BigInt(next.length) - kept.reduce((a, b) => a + b, 0n);
    next = [...kept, sample < 0n ? 0n : sample];
  }
  if (next.length > 0 && windowAverage(next) !== average) next = next.map(() => average);
  return next;
}

/** Reads stored entries (LedgerEntry XDR by LedgerKey XDR). */
export type StoredEntryReader = (key: Uint8Array) => Uint8Array | undefined;

/**
 * Derives the window entry for consecutive ledgers, adding it to each batch that changes it. Holds
 * what it wrote, so it serves a group of ledgers stored together; make a new one per group.
 */
export class StateSizeWindow {
  private readonly read: StoredEntryReader;
  private readonly latest = new Map<string, Uint8Array | undefined>();

  constructor(read: StoredEntryReader) { this.read = read; }

  apply(batch: IngestBatch): void {
    const average = batch.liveSorobanStateSize;
    if (average === undefined) return;
    // an upgrade in this ledger may have written either entry already
    for (const w of batch.entryWrites) {
      if (!isConfigSettingKey(w.key)) continue;
      const id = toBase64(w.key);
      if (id === WINDOW_ID || id === ARCHIVAL_ID) this.latest.set(id, w.entry ?? undefined);
    }
    const windowEntry = this.entry(WINDOW_KEY);
    const archival = this.entry(ARCHIVAL_KEY);
    if (windowEntry?.data.type !== 8 || windowEntry.data.configSetting.configSettingID !== LIVE_SOROBAN_STATE_SIZE_WINDOW) return;
    if (archival?.data.type !== 8 || archival.data.configSetting.configSettingID !== STATE_ARCHIVAL) return;
    const period = archival.data.configSetting.stateArchivalSettings.liveSorobanStateSizeWindowSamplePeriod;
    const window = windowEntry.data.configSetting.liveSorobanStateSizeWindow;
    const seq = batch.ledger.sequence;
    const next = nextWindow(window, average, period > 0 && seq % period === 0);
    if (next.length === window.length && next.every((v, i) => v === window[i])) return;
    const updated: xdr.LedgerEntryWire = {
      lastModifiedLedgerSeq: seq,
      data: { type: 8, configSetting: { configSettingID: LIVE_SOROBAN_STATE_SIZE_WINDOW, liveSorobanStateSizeWindow: next } },
      ext: { v: 0 },
    };
    const bytes = encodeLedgerEntry(updated);
    const at = batch.entryWrites.findIndex((w) => isConfigSettingKey(w.key) && toBase64(w.key) === WINDOW_ID);
    const write = { key: WINDOW_KEY, entry: bytes, lastModified: seq };
    if (at >= 0) batch.entryWrites[at] = write; else batch.entryWrites.push(write);
    this.latest.set(WINDOW_ID, bytes);
  }

  private entry(key: Uint8Array): LedgerEntry | undefined {
    const id = toBase64(key);
    const bytes = this.latest.has(id) ? this.latest.get(id) : this.read(key);
    return bytes ? decodeLedgerEntry(bytes) : undefined;
  }
}
