// Puts a TransactionMeta in a canonical form so two metas that describe the same changes compare equal.
//
// The order of the changes within one LedgerEntryChanges list is not part of what stellar-core
// computes: its LedgerTxn keeps entries in an UnorderedMap (src/util/UnorderedMap.h) whose hasher
// XORs every hash with a mixer drawn at random once per process (src/util/RandHasher.h,
// randHash::initialize), and LedgerTxn::Impl::getChanges lists the changes by iterating that map. Two
// validators applying the same transaction may list its changes in different orders. Core's own
// tests compare metas after normalizeMeta (src/util/MetaUtils.cpp), which sorts every changes list
// (txChangesBefore, each operation's changes, txChangesAfter) by the change's key, then its type
// (STATE < CREATED < UPDATED < REMOVED < RESTORED), then the hash of the whole change.
//
// This sorts the same lists by the key's XDR bytes, then that type order, then the change's XDR
// bytes. It is not core's order (core compares keys field by field), but any deterministic total
// order applied to both sides gives the same answer to "are these equal"; nothing else is changed.
import { xdr } from '../xdr/xdr.ts';
import type { LedgerEntryChange } from '../xdr/codec.ts';
import { compareBytes } from '../ledger/assets.ts';
import { keyXdrOf } from './initialState.ts';
import { ledgerKeyOfChange } from '../xdr/ledgerKeys.ts';

/** LedgerEntryChangeType -> position: STATE, CREATED, UPDATED, REMOVED, RESTORED. */
const TYPE_RANK = [1, 2, 3, 0, 4] as const;

/** A copy of `changes` in canonical order (the changes themselves are shared, not copied). */
export function sortChanges(changes: readonly LedgerEntryChange[]): LedgerEntryChange[] {
  const keyed = changes.map((c) => ({ c, key: keyXdrOf(ledgerKeyOfChange(c)), rank: TYPE_RANK[c.type] }));
  // two changes of one key and one type are rare (never in core's own metas): encoded only then
  keyed.sort((a, b) => compareBytes(a.key, b.key) || a.rank - b.rank
    || compareBytes(xdr.LedgerEntryChange.schema.encode(a.c), xdr.LedgerEntryChange.schema.encode(b.c)));
  return keyed.map((k) => k.c);
}

/** The meta with every changes list in canonical order; the input is left as it was. */
export function normalizeMeta(meta: xdr.TransactionMetaWire): xdr.TransactionMetaWire {
  switch (meta.v) {
    case 0:
      return { v: 0, operations: meta.operations.map((o) => ({ ...o, changes: sortChanges(o.changes) })) };
    case 1:
      return { v: 1, v1: { ...meta.v1, txChanges: sortChanges(meta.v1.txChanges), operations: meta.v1.operations.map((o) => ({ ...o, changes: sortChanges(o.changes) })) } };
    case 2: {
      const m = meta.v2;
      return { v: 2, v2: { ...m, txChangesBefore: sortChanges(m.txChangesBefore), txChangesAfter: sortChanges(m.txChangesAfter), operations: m.operations.map((o) => ({ ...o, changes: sortChanges(o.changes) })) } };
    }
    case 3: {
      const m = meta.v3;
      return { v: 3, v3: { ...m, txChangesBefore: sortChanges(m.txChangesBefore), txChangesAfter: sortChanges(m.txChangesAfter), operations: m.operations.map((o) => ({ ...o, changes: sortChanges(o.changes) })) } };
    }
    case 4: {
      const m = meta.v4;
      return { v: 4, v4: { ...m, txChangesBefore: sortChanges(m.txChangesBefore), txChangesAfter: sortChanges(m.txChangesAfter), operations: m.operations.map((o) => ({ ...o, changes: sortChanges(o.changes) })) } };
    }
  }
}
