// The stored transactions of one ledger, in application order, read in chunks (a pubnet ledger
// holds a few hundred; the store answers ranges of TOIDs).
import type { StoreReader, StoredTransaction } from '../../store/types.ts';
import { ledgerStartToid } from '../../ids/toid.ts';

const CHUNK = 500;

export function* ledgerTransactions(store: StoreReader, sequence: number): Generator<StoredTransaction> {
  const end = ledgerStartToid(sequence + 1);
  let next = ledgerStartToid(sequence);
  for (;;) {
    const rows = store.transactionsFrom(next, CHUNK);
    for (const tx of rows) {
      if (tx.id >= end) return;
      yield tx;
    }
    if (rows.length < CHUNK) return;
    next = rows[rows.length - 1].id + 1n;
  }
}
