// Ledger entries as they were at the end of a past ledger (getLedgerEntries' `ledger` parameter).
//
// Layout (migrations 3 and 4): ledger_entry_history(id, key hash, key, entry, last_modified). When
// ledger N writes a key, the row it replaces in ledger_entries is first copied here under
// id = (N - 1) * 2^24 + a position in the ledger: N - 1 is the last ledger at whose end that version
// was current. A key that N creates gets a row with a NULL entry: it did not exist until then. So
// the version current at the end of ledger L is the key's first row with id >= L * 2^24 (what the
// first write after L replaced), else the key's row in ledger_entries. TTL entries are keys like
// any other, so a contract entry's TTL as of L comes out of the same lookup.
//
// The lookup goes through an index on (key hash, id); a key's rows are in id order there, and rows
// of other keys with the same hash are skipped by comparing the key. An index of 8-byte hashes
// instead of keys (40 to 150 bytes) is what ingestion pays for: every change inserts into it at a
// random place, and a smaller index has fewer pages to dirty (ingest time about halved, measured).
// A ledger's rows are written in hash order for the same reason.
//
// Rows are appended in id order, so trimming the retention window deletes one rowid range (and
// their index entries). The metadata `entryHistoryFrom` is the first ledger whose state the history
// can give back: the first ledger stored, the history-archive checkpoint a follower's state was
// bootstrapped at, the first ledger after the history was switched back on, or, for a database
// older than the history (migration 3) or its hash index (4), its latest ledger then.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { IngestBatch, StoredEntry } from '../types.ts';
import { toBase64 } from '../../xdr/codec.ts';
import { termHash } from '../../events/indexTerms.ts';

/** Writes per ledger the id leaves room for (2^24: far beyond what one ledger can change). */
export const HISTORY_LEDGER_SPAN = 16_777_216;
const FROM_KEY = 'entryHistoryFrom';
/** The event index's 47-bit hash, under a kind of its own. */
const keyHash = (key: Uint8Array): number => termHash(KEY_HASH_KIND, key);
const KEY_HASH_KIND = 64;

type Row = Record<string, unknown>;

export class EntryHistory {
  private readonly st: Record<string, StatementSync>;

  /**
   * `enabled` false (--ledger-entry-history=false): nothing is kept and what was kept is dropped, so
   * a later start with it on begins a history without gaps at its next ledger.
   */
  readonly enabled: boolean;
  /** from() is known to be set (read back in a committed state or inside the transaction writing it). */
  private begun = false;

  constructor(db: DatabaseSync, enabled = true) {
    this.enabled = enabled;
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      // the current row, before the write replaces it
      keep: p(`INSERT INTO ledger_entry_history (id, key_hash, key, entry, last_modified)
               SELECT ?1 * ${HISTORY_LEDGER_SPAN} + ?2, ?3, key, entry, last_modified FROM ledger_entries WHERE key = ?4`),
      // a key being created: it did not exist before
      absent: p(`INSERT INTO ledger_entry_history (id, key_hash, key, entry, last_modified)
                 VALUES (?1 * ${HISTORY_LEDGER_SPAN} + ?2, ?3, ?4, NULL, NULL)`),
      versionAt: p(`SELECT entry, last_modified FROM ledger_entry_history
                    WHERE key_hash = ? AND id >= ? * ${HISTORY_LEDGER_SPAN} AND key = ? ORDER BY id LIMIT 1`),
      current: p('SELECT entry, last_modified FROM ledger_entries WHERE key = ?'),
      trim: p(`DELETE FROM ledger_entry_history WHERE id < ? * ${HISTORY_LEDGER_SPAN}`),
      // per key written after ledger ?1, the version the first such write replaced: the one current at the end of ?1
      revertDeleteCreated: p(`DELETE FROM ledger_entries WHERE key IN (
        SELECT h.key FROM ledger_entry_history h
        WHERE h.id IN (SELECT MIN(id) FROM ledger_entry_history WHERE id >= ?1 * ${HISTORY_LEDGER_SPAN} GROUP BY key)
          AND h.entry IS NULL)`),
      revertRestore: p(`INSERT INTO ledger_entries (key, entry, last_modified)
        SELECT h.key, h.entry, h.last_modified FROM ledger_entry_history h
        WHERE h.id IN (SELECT MIN(id) FROM ledger_entry_history WHERE id >= ?1 * ${HISTORY_LEDGER_SPAN} GROUP BY key)
          AND h.entry IS NOT NULL
        ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, last_modified = excluded.last_modified`),
      // the same versions, to hand back what the revert wrote
      revertWrites: p(`SELECT h.key, h.entry FROM ledger_entry_history h
        WHERE h.id IN (SELECT MIN(id) FROM ledger_entry_history WHERE id >= ?1 * ${HISTORY_LEDGER_SPAN} GROUP BY key)`),
      dropAfter: p(`DELETE FROM ledger_entry_history WHERE id >= ? * ${HISTORY_LEDGER_SPAN}`),
      clear: p('DELETE FROM ledger_entry_history'),
      from: p(`SELECT value FROM metadata WHERE key = '${FROM_KEY}'`),
      setFrom: p(`INSERT INTO metadata (key, value) VALUES ('${FROM_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
    };
    if (!enabled) {
      this.st.clear.run();
      db.prepare(`DELETE FROM metadata WHERE key = '${FROM_KEY}'`).run();
    }
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
    if (!this.enabled) return;
    // nothing to keep (an empty ledger) once the history has begun: no metadata read per ledger
    if (batch.entryWrites.length === 0 && this.begun) return;
    const seq = batch.ledger.sequence;
    const from = this.from();
    if (from === undefined) {
      this.st.setFrom.run(String(seq));
      return;
    }
    this.begun = true;
    if (seq <= from) return; // a follower's ledgers up to its checkpoint: their changes are in its state
    const writes = batch.entryWrites;
    if (writes.length >= HISTORY_LEDGER_SPAN) throw new Error(`ledger ${seq} writes ${writes.length} entries, more than the history can index`);
    const order = writes.map((w, i) => ({ hash: keyHash(w.key), i }));
    order.sort((a, b) => a.hash - b.hash || a.i - b.i);
    order.forEach(({ hash, i }, position) => {
      const { key, entry } = writes[i];
      if (this.st.keep.run(seq - 1, position, hash, key).changes === 0 && entry) this.st.absent.run(seq - 1, position, hash, key);
    });
  }

  /** The write transaction rolled back: whether the history has begun is read again. */
  rolledBack(): void { this.begun = false; }

  /** Forgets what no ledger from `oldest` on needs. */
  trim(oldest: number): void { this.st.trim.run(oldest); }

  /**
   * Puts every entry written after `ledger` back as it was at the end of `ledger` (deleting those
   * created since), and forgets the history of the ledgers after it. Call inside a write transaction,
   * for a ledger from from() on (the caller checks). Returns what it wrote: each key put back with
   * its entry then (null: deleted), so that what is kept in memory about the state can follow.
   */
  revertTo(ledger: number): Array<{ key: Uint8Array; entry: Uint8Array | null }> {
    const writes = (this.st.revertWrites.all(ledger) as Row[]).map((r) => ({ key: r.key as Uint8Array, entry: (r.entry ?? null) as Uint8Array | null }));
    this.st.revertDeleteCreated.run(ledger);
    this.st.revertRestore.run(ledger);
    this.st.dropAfter.run(ledger);
    return writes;
  }

  /** A new state at `ledger` (a history-archive checkpoint): the history starts again there. */
  restart(ledger: number): void {
    this.st.clear.run();
    if (!this.enabled) return;
    this.st.setFrom.run(String(ledger));
  }

  /** The entries as they were at the end of `ledger` (keyed by base64 key); keys absent then are absent. */
  entriesAt(keys: readonly Uint8Array[], ledger: number): Map<string, StoredEntry> {
    const out = new Map<string, StoredEntry>();
    for (const key of keys) {
      const r = (this.st.versionAt.get(keyHash(key), ledger, key) ?? this.st.current.get(key)) as Row | undefined;
      if (r && r.entry !== null) out.set(toBase64(key), { key, entry: r.entry as Uint8Array, lastModified: Number(r.last_modified) });
    }
    return out;
  }
}
