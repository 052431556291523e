// When the next ledger closes (CAP-88). Before protocol 30 a ledger's value says whole seconds and
// consecutive ledgers may share one (the standalone network closes many per second in instant mode).
// A ledger closed at protocol 30 or later (its previous ledger's protocol: the ledger that upgrades
// to 30 still closes with a seconds value) carries closeTimeMs too, which must grow by at least a
// millisecond each ledger; closeTime stays its whole seconds, and every time rule (time bounds,
// Soroban's timestamp) goes on reading whole seconds.
import type { xdr } from '../xdr/xdr.ts';

/** The first protocol whose ledgers carry millisecond close times. */
export const MS_CLOSE_TIMES_PROTOCOL = 30;

export interface CloseTime {
  /** Whole seconds (StellarValue.closeTime). */
  seconds: bigint;
  /** Milliseconds, for a ledger closed at protocol 30 or later. */
  ms?: bigint;
}

/** The close time in milliseconds a value says: closeTimeMs of the _MS kinds, else its whole seconds. */
export function closeTimeMsOf(value: xdr.StellarValueWire): bigint {
  if (value.ext.v === 3) return value.ext.signedMsValue.closeTimeMs;
  if (value.ext.v === 4) return value.ext.proposedMsValue.closeTimeMs;
  return value.closeTime * 1000n;
}

/**
 * The close time of the ledger after `prev`: now (`nowMs`), or `pinnedSeconds` when a developer set
 * it, but never before the previous close; from protocol 30 on strictly after it, in milliseconds.
 */
export function nextCloseTime(prev: Pick<xdr.LedgerHeaderWire, 'ledgerVersion' | 'scpValue'>, nowMs: bigint, pinnedSeconds?: bigint): CloseTime {
  if (prev.ledgerVersion < MS_CLOSE_TIMES_PROTOCOL) return { seconds: nextCloseSeconds(prev.scpValue.closeTime, nowMs, pinnedSeconds) };
  const prevMs = closeTimeMsOf(prev.scpValue);
  let ms: bigint;
  if (pinnedSeconds !== undefined && pinnedSeconds * 1000n > prevMs) ms = pinnedSeconds * 1000n;
  else ms = nowMs > prevMs ? nowMs : prevMs + 1n;
  return { seconds: ms / 1000n, ms };
}

/** Whole seconds: now, or `pinnedSeconds`, but never before `prevSeconds` (ledgers may share one). */
export function nextCloseSeconds(prevSeconds: bigint, nowMs: bigint, pinnedSeconds?: bigint): bigint {
  if (pinnedSeconds !== undefined && pinnedSeconds > prevSeconds) return pinnedSeconds;
  const now = nowMs / 1000n;
  return now > prevSeconds ? now : prevSeconds;
}
