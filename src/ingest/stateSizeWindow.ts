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
import { bytesEqual, decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, type LedgerEntry } from '../xdr/codec.ts';
import { ConfigSettingId, EntryType, configSettingKey, ledgerKeyType } from '../xdr/ledgerKeys.ts';
import type { IngestBatch } from '../store/types.ts';

const { STATE_ARCHIVAL, LIVE_SOROBAN_STATE_SIZE_WINDOW } = ConfigSettingId;
export const WINDOW_KEY = encodeLedgerKey(configSettingKey(LIVE_SOROBAN_STATE_SIZE_WINDOW));
const ARCHIVAL_KEY = encodeLedgerKey(configSettingKey(STATE_ARCHIVAL));

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

/** What the derivation reads of a ledger (a whole batch, or a fast-forwarded ledger that is not stored). */
export type WindowLedger = Pick<IngestBatch, 'entryWrites' | 'liveSorobanStateSize'> & { ledger: { sequence: number } };

/** Reads stored entries (LedgerEntry XDR by LedgerKey XDR). */
export type StoredEntryReader = (key: Uint8Array) => Uint8Array | undefined;

/**
 * Derives the window entry for consecutive ledgers, adding it to each batch that changes it. Holds
 * the two entries it needs as the last ledger left them, so it serves a group of ledgers stored
 * together; make a new one per group.
 */
export class StateSizeWindow {
  private readonly read: StoredEntryReader;
  /** Decoded once; undefined until first needed, null when absent. */
  private window: LedgerEntry | null | undefined;
  private archival: LedgerEntry | null | undefined;

  constructor(read: StoredEntryReader) { this.read = read; }

  apply(batch: WindowLedger): void {
    const average = batch.liveSorobanStateSize;
    if (average === undefined) return;
    // an upgrade in this ledger may have written either entry already
    let windowWrite = -1;
    batch.entryWrites.forEach((w, i) => {
      if (ledgerKeyType(w.key) !== EntryType.CONFIG_SETTING) return;
      if (bytesEqual(w.key, WINDOW_KEY)) { windowWrite = i; this.window = decoded(w.entry); }
      else if (bytesEqual(w.key, ARCHIVAL_KEY)) this.archival = decoded(w.entry);
    });
    if (this.window === undefined) this.window = decoded(this.read(WINDOW_KEY));
    if (this.archival === undefined) this.archival = decoded(this.read(ARCHIVAL_KEY));
    const windowSetting = this.window?.data.type === 8 ? this.window.data.configSetting : undefined;
    const archivalSetting = this.archival?.data.type === 8 ? this.archival.data.configSetting : undefined;
    if (windowSetting?.configSettingID !== LIVE_SOROBAN_STATE_SIZE_WINDOW) return;
    if (archivalSetting?.configSettingID !== STATE_ARCHIVAL) return;
    const period = archivalSetting.stateArchivalSettings.liveSorobanStateSizeWindowSamplePeriod;
    const window = windowSetting.liveSorobanStateSizeWindow;
    const seq = batch.ledger.sequence;
    const next = nextWindow(window, average, period > 0 && seq % period === 0);
    if (next.length === window.length && next.every((v, i) => v === window[i])) return;
    this.window = {
      lastModifiedLedgerSeq: seq,
      data: { type: 8, configSetting: { configSettingID: LIVE_SOROBAN_STATE_SIZE_WINDOW, liveSorobanStateSizeWindow: next } },
      ext: { v: 0 },
    };
    const write = { key: WINDOW_KEY, entry: encodeLedgerEntry(this.window), lastModified: seq };
    if (windowWrite >= 0) batch.entryWrites[windowWrite] = write; else batch.entryWrites.push(write);
  }
}

const decoded = (bytes: Uint8Array | null | undefined): LedgerEntry | null => (bytes ? decodeLedgerEntry(bytes) : null);
