// Ledger entries as they were at the end of a past ledger (getLedgerEntries' `ledger` parameter).
//
// Layout (migration 3): ledger_entry_history(id, key, entry, last_modified), indexed by key. When
// ledger N writes a key, the row it replaces in ledger_entries is first copied here under
// id = (N - 1) * 2^24 + the write's position in the ledger: N - 1 is the last ledger at whose end
// that version was current. A key that N creates gets a row with a NULL entry: it did not exist
// until then. So the version current at the end of ledger L is the key's first row with
// id >= L * 2^24 (what the first write after L replaced), else the key's row in ledger_entries.
// TTL entries are keys like any other, so a contract entry's TTL as of L comes out the same way.
//
// Rows are appended in id order, so trimming the retention window deletes one rowid range. The
// metadata `entryHistoryFrom` is the first ledger whose state the history can give back: the first
// ledger stored, the history-archive checkpoint a follower's state was bootstrapped at, or, for a
// database older than migration 3, its latest ledger then.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { IngestBatch, StoredEntry } from '../types.ts';
import { toBase64 } from '../../xdr/codec.ts';

/** Writes per ledger the id leaves room for (2^24: far beyond what one ledger can change). */
export const HISTORY_LEDGER_SPAN = 16_777_216;
const FROM_KEY = 'entryHistoryFrom';

type Row = Record<string, unknown>;

export class EntryHistory {
  private readonly st: Record<string, StatementSync>;

  constructor(db: DatabaseSync) {
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      // the current row (or, for a key being created, a NULL marker) before the write replaces it
      keep: p(`INSERT INTO ledger_entry_history (id, key, entry, last_modified)
               SELECT ?1 * ${HISTORY_LEDGER_SPAN} + ?2, ?3, e.entry, e.last_modified
               FROM (SELECT 1) LEFT JOIN ledger_entries e ON e.key = ?3
               WHERE e.key IS NOT NULL OR ?4`),
      versionAt: p(`SELECT entry, last_modified FROM ledger_entry_history
                    WHERE key = ? AND id >= ? * ${HISTORY_LEDGER_SPAN} ORDER BY id LIMIT 1`),
      current: p('SELECT entry, last_modified FROM ledger_entries WHERE key = ?'),
      trim: p(`DELETE FROM ledger_entry_history WHERE id < ? * ${HISTORY_LEDGER_SPAN}`),
      clear: p('DELETE FROM ledger_entry_history'),
      from: p(`SELECT value FROM metadata WHERE key = '${FROM_KEY}'`),
      setFrom: p(`INSERT INTO metadata (key, value) VALUES ('${FROM_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
    };
  }

  /** The first ledger whose end state can be read back; undefined before any ledger or state is stored. */
  from(): number | undefined {
    const r = this.st.from.get() as Row | undefined;
    return r ? Number(r.value) : undefined;
  }

  /**
   * Keeps the versions `batch`'s writes are about to replace. Call inside the ledger's write
   * transaction, before the writes. The first ledger of a store starts its history: what came
   * before it is unknown, so nothing is kept for it.
   */
  beforeWrites(batch: IngestBatch): void {
    const seq = batch.ledger.sequence;
    const from = this.from();
    if (from === undefined) {
      this.st.setFrom.run(String(seq));
      return;
    }
    if (seq <= from) return; // a follower's ledgers up to its checkpoint: their changes are in its state
    const writes = batch.entryWrites;
    if (writes.length >= HISTORY_LEDGER_SPAN) throw new Error(`ledger ${seq} writes ${writes.length} entries, more than the history can index`);
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i];
      this.st.keep.run(seq - 1, i, w.key, w.entry ? 1 : 0);
    }
  }

  /** Forgets what no ledger from `oldest` on needs. */
  trim(oldest: number): void { this.st.trim.run(oldest); }

  /** A new state at `ledger` (a history-archive checkpoint): the history starts again there. */
  restart(ledger: number): void {
    this.st.clear.run();
    this.st.setFrom.run(String(ledger));
  }

  /** The entries as they were at the end of `ledger` (keyed by base64 key); keys absent then are absent. */
  entriesAt(keys: readonly Uint8Array[], ledger: number): Map<string, StoredEntry> {
    const out = new Map<string, StoredEntry>();
    for (const key of keys) {
      const r = (this.st.versionAt.get(key, ledger) ?? this.st.current.get(key)) as Row | undefined;
      if (r && r.entry !== null) out.set(toBase64(key), { key, entry: r.entry as Uint8Array, lastModified: Number(r.last_modified) });
    }
    return out;
  }
}
