// Restored entries in an operation's meta, written the way stellar-core writes them from protocol 23
// (TransactionMeta.cpp, processOpLedgerEntryChanges): a restored entry and its TTL appear as
// LEDGER_ENTRY_RESTORED instead of the STATE/UPDATED (or CREATED) pair a write leaves, and when the
// operation then changed the entry further, the UPDATED (or REMOVED) follows the RESTORED.
//
// The restored value of each key is what the restore made it: the entry as it was, stamped with the
// ledger, and its TTL with the restored live-until ledger. A RestoreFootprint of an entry still in the
// live state writes only the TTL; core lists the entry itself as RESTORED too, unchanged.
//
// When the operation changed or deleted a key that was in the live state (a STATE opens its changes),
// core turns that STATE into the RESTORED, stamped with the ledger. For the entry that is the restored
// value anyway; for a TTL the contract extended, it is the old, lapsed live-until ledger (core's
// TransactionMeta.cpp does so, and a consumer comparing our metas with core's sees the same).
import { encodeLedgerEntry, type LedgerEntry, type LedgerEntryChange, type LedgerKey } from '../../xdr/codec.ts';
import { keyId, ledgerKeyOfChange, ttlKeyFor } from '../../xdr/ledgerKeys.ts';

export interface Restore {
  /** The restored entry's key (contract code or persistent contract data). */
  key: LedgerKey;
  /** The entry as found (in the live state with a lapsed TTL, or in the hot archive). */
  entry: LedgerEntry;
  /** Its TTL entry as the restore wrote it. */
  ttl: LedgerEntry;
}

const sameEntry = (a: LedgerEntry, b: LedgerEntry): boolean =>
  Buffer.from(encodeLedgerEntry(a)).equals(encodeLedgerEntry(b));

/** The operation's changes with its restores marked as core marks them. */
export function withRestores(changes: LedgerEntryChange[], restores: readonly Restore[], ledgerSeq: number): LedgerEntryChange[] {
  if (restores.length === 0) return changes;
  const restoredValue = new Map<string, LedgerEntry>();
  for (const r of restores) {
    restoredValue.set(keyId(r.key), { ...r.entry, lastModifiedLedgerSeq: ledgerSeq });
    restoredValue.set(keyId(ttlKeyFor(r.key)), { ...r.ttl, lastModifiedLedgerSeq: ledgerSeq });
  }
  const out: LedgerEntryChange[] = [];
  const listed = new Set<string>();
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    const id = keyId(ledgerKeyOfChange(c));
    const restored = restoredValue.get(id);
    if (!restored) { out.push(c); continue; }
    listed.add(id);
    if (c.type === 3) {
      // LedgerTxn writes a STATE followed by the UPDATED or REMOVED of the same key
      const next = changes[++i];
      if (next?.type === 1 && sameEntry(next.updated, restored)) out.push({ type: 4, restored: next.updated });
      else out.push({ type: 4, restored: { ...c.state, lastModifiedLedgerSeq: ledgerSeq } }, ...(next ? [next] : []));
    } else if (c.type === 0) {
      if (sameEntry(c.created, restored)) out.push({ type: 4, restored: c.created });
      else out.push({ type: 4, restored }, { type: 1, updated: c.created });
    } else {
      out.push(c);
    }
  }
  for (const r of restores) if (!listed.has(keyId(r.key))) out.push({ type: 4, restored: r.entry });
  return out;
}
