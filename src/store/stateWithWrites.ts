// The store's ledger state as it will be once a ledger's entry writes are stored, read without
// storing them: the standalone network hashes a checkpoint ledger's state before the ledger is
// stored, because the ledger's header must commit to it (src/standalone/checkpointCommitment.ts).
// Reads merge the store's entries with the writes in key order, the order the store gives
// (SQLite compares BLOB keys byte by byte, a shorter prefix first, as Buffer.compare does).
import { ledgerKeyType } from '../xdr/ledgerKeys.ts';
import type { IngestBatch, StoredEntry, StoreReader } from './types.ts';

type EntryWrites = IngestBatch['entryWrites'];

export function stateWithWrites(store: Pick<StoreReader, 'allEntries' | 'entriesOfTypes'>, writes: EntryWrites):
  Pick<StoreReader, 'allEntries' | 'entriesOfTypes'> {
  // the last write of a key wins, as when they are stored in order
  const latest = new Map<string, EntryWrites[number]>();
  for (const w of writes) latest.set(Buffer.from(w.key).toString('hex'), w);
  const sorted = [...latest.values()].sort((a, b) => Buffer.compare(a.key, b.key));
  return {
    allEntries: () => merged(store.allEntries(), sorted),
    entriesOfTypes: (first, last) => merged(store.entriesOfTypes(first, last), sorted.filter((w) => {
      const type = ledgerKeyType(w.key);
      return type >= first && type <= last;
    })),
  };
}

/** `stored` (in key order) with `writes` (in key order) over it: a write replaces or deletes the entry of its key. */
function* merged(stored: Iterable<StoredEntry>, writes: EntryWrites): Generator<StoredEntry> {
  let next = 0;
  const pending = function* (before?: Uint8Array): Generator<StoredEntry> {
    while (next < writes.length && (!before || Buffer.compare(writes[next].key, before) < 0)) {
      const w = writes[next++];
      if (w.entry) yield { key: w.key, entry: w.entry, lastModified: w.lastModified };
    }
  };
  for (const e of stored) {
    yield* pending(e.key);
    if (next < writes.length && Buffer.compare(writes[next].key, e.key) === 0) {
      const w = writes[next++];
      if (w.entry) yield { key: w.key, entry: w.entry, lastModified: w.lastModified };
      continue;
    }
    yield e;
  }
  yield* pending();
}
