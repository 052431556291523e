// The stored ledger range and latest-ledger facts several methods report.
import { internalError } from '../../errors.ts';
import type { LedgerRange, StoreReader } from '../../../store/types.ts';

/** The reference's error text for a database with no ledger yet (db.ErrEmptyDB). */
export const DB_EMPTY = 'DB is empty';

/** The stored range, or -32603 `<prefix>DB is empty`. */
export function requireLedgerRange(store: StoreReader, prefix = ''): LedgerRange {
  const range = store.ledgerRange();
  if (!range) throw internalError(prefix + DB_EMPTY);
  return range;
}

/**
 * The protocol version of the latest stored ledger, as the reference's getProtocolVersion reads it:
 * an error message instead when there is no ledger or its LedgerCloseMeta is V0.
 */
export function latestProtocolVersion(store: StoreReader): { version: number } | { error: string } {
  const latest = store.latestLedger();
  if (!latest) return { error: DB_EMPTY };
  const metaVersion = new DataView(latest.meta.buffer, latest.meta.byteOffset, latest.meta.byteLength).getInt32(0);
  if (metaVersion !== 1 && metaVersion !== 2) {
    return { error: `latest ledger (${latest.sequence}) meta has unexpected version (${metaVersion})` };
  }
  return { version: latest.protocolVersion };
}
