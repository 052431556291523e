// The state before the first replayed ledger, as far as the metas reveal it. Every change list shows
// an entry's value before it changed (STATE) or that it did not exist yet (CREATED), so the first
// time any meta shows a key tells what it was at the start: an entry first seen as STATE had that
// value all along, even when first seen ledgers later (any change in between would be in a meta);
// an entry first seen CREATED (or RESTORED from the archive) was not in the live state.
// Keys no meta shows stay unknown: the replay notes when a transaction reads one.
import { toBase64, decodeLedgerKey, encodeLedgerEntry, encodeLedgerKey, type LedgerEntryChange, type LedgerKey } from '../xdr/codec.ts';
import { EntryType, keyId, ledgerKeyOfChange, ledgerKeyType } from '../xdr/ledgerKeys.ts';

/** Identifies an entry by its key, as LedgerTxn does (ledgerKeys.ts keyId). */
export const entryIdOfKey = (key: LedgerKey): string => keyId(key);

/**
 * The same id from LedgerKey XDR (what EntrySource.getEntry is asked with): accounts, most of what a
 * ledger touches, straight from their bytes; other keys through their decoded form, so the two can
 * never disagree.
 */
export const entryIdOf = (keyXdr: Uint8Array): string =>
  ledgerKeyType(keyXdr) === EntryType.ACCOUNT ? '#' + toBase64(keyXdr.subarray(8, 40)) : keyId(decodeLedgerKey(keyXdr));

/** LedgerKey XDR, built by hand for accounts (the XDR writer's set-up costs more than the key). */
export function keyXdrOf(key: LedgerKey): Uint8Array {
  if (key.type !== 0) return encodeLedgerKey(key);
  const xdr = new Uint8Array(40);
  xdr.set(key.account.accountId.ed25519, 8);
  return xdr;
}

interface FirstSight {
  ledger: number;
  /** The entry's XDR before the first replayed ledger; null when it did not exist then. */
  entry: Uint8Array | null;
}

export class InitialState {
  private readonly firstSight = new Map<string, FirstSight>();

  /**
   * Takes in one ledger's change lists, in application order (closedLedger.ts changeListsInOrder).
   * Ledgers may come in any order: for each key the earliest ledger that shows it wins, and within
   * a ledger the first change.
   */
  observe(seq: number, changeLists: Iterable<readonly LedgerEntryChange[]>): void {
    for (const list of changeLists) {
      for (const change of list) {
        const id = entryIdOfKey(ledgerKeyOfChange(change));
        const known = this.firstSight.get(id);
        if (known && known.ledger <= seq) continue;
        this.firstSight.set(id, { ledger: seq, entry: change.type === 3 ? encodeLedgerEntry(change.state) : null });
      }
    }
  }

  /** Whether some meta shows this key: its value is then known at every point of the replay. */
  shows(id: string): boolean { return this.firstSight.has(id); }

  /** The entries that existed before the first ledger (by id, as XDR). */
  /** The entries that existed at the start, as LedgerEntry XDR. */
  *entries(): Generator<Uint8Array> {
    for (const s of this.firstSight.values()) if (s.entry) yield s.entry;
  }

  get size(): number { return this.firstSight.size; }
}
