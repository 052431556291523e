// The state before the first replayed ledger, as far as the metas reveal it. Every change list shows
// an entry's value before it changed (STATE) or that it did not exist yet (CREATED), so the first
// time any meta shows a key tells what it was at the start: an entry first seen as STATE had that
// value all along, even when first seen ledgers later (any change in between would be in a meta);
// an entry first seen CREATED (or RESTORED from the archive) was not in the live state.
// Keys no meta shows stay unknown: the replay notes when a transaction reads one.
import { toBase64, encodeLedgerEntry, encodeLedgerKey, type LedgerEntryChange, type LedgerKey } from '../xdr/codec.ts';
import { ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import type { xdr } from '@stellar/stellar-sdk';
import { changeListsInOrder } from './closedLedger.ts';

/** Identifies an entry by its LedgerKey XDR (what EntrySource.getEntry is asked with). */
export const entryIdOf = (keyXdr: Uint8Array): string => toBase64(keyXdr);
export const entryIdOfKey = (key: LedgerKey): string => entryIdOf(encodeLedgerKey(key));

export function keyOfChange(c: LedgerEntryChange): LedgerKey {
  switch (c.type) {
    case 0: return ledgerKeyOf(c.created.data);
    case 1: return ledgerKeyOf(c.updated.data);
    case 2: return c.removed;
    case 3: return ledgerKeyOf(c.state.data);
    case 4: return ledgerKeyOf(c.restored.data);
  }
}

interface FirstSight {
  ledger: number;
  /** The entry's XDR before the first replayed ledger; null when it did not exist then. */
  entry: Uint8Array | null;
}

export class InitialState {
  private readonly firstSight = new Map<string, FirstSight>();

  /**
   * Takes in one ledger's changes. Ledgers may come in any order: for each key the earliest ledger
   * that shows it wins, and within a ledger the first change in application order.
   */
  observe(lcm: xdr.LedgerCloseMetaWire): void {
    const seq = (lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2).ledgerHeader.header.ledgerSeq;
    for (const list of changeListsInOrder(lcm)) {
      for (const change of list) {
        const id = entryIdOfKey(keyOfChange(change));
        const known = this.firstSight.get(id);
        if (known && known.ledger <= seq) continue;
        this.firstSight.set(id, { ledger: seq, entry: change.type === 3 ? encodeLedgerEntry(change.state) : null });
      }
    }
  }

  /** Whether some meta shows this key: its value is then known at every point of the replay. */
  shows(id: string): boolean { return this.firstSight.has(id); }

  /** The entries that existed before the first ledger (by id, as XDR). */
  *entries(): Generator<[id: string, entry: Uint8Array]> {
    for (const [id, s] of this.firstSight) if (s.entry) yield [id, s.entry];
  }

  get size(): number { return this.firstSight.size; }
}
