// Which events a ledger has, in id order (the positions are those of eventIds.ts). Failed
// transactions keep their events (fees are charged anyway). Diagnostic events are not events here:
// getTransaction serves them. TransactionMeta V0-V2 carry no events, V3 carries a Soroban
// transaction's events as one operation's list, V4 carries all of the above.
import type { EventRow, TransactionEvents } from './types.ts';
import { OP_MASK, TX_MASK, txOpOrder } from './eventIds.ts';
import { readInt32 } from './eventBytes.ts';
import { runSteps } from '../work/slicedWork.ts';

const STAGE_BEFORE_ALL_TXS = 0;
const STAGE_AFTER_TX = 1;
const STAGE_AFTER_ALL_TXS = 2;

const fromBase64 = (s: string): Uint8Array => {
  const b = Buffer.from(s, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** What extraction needs of one applied transaction. */
export interface EventSource {
  applicationOrder: number;
  events: TransactionEvents;
}

/**
 * The events of one ledger in id order, from the event lists ingestion cut out of each
 * transaction's meta (TransactionEvent XDRs carry their stage in the first 4 bytes).
 */
export function ledgerEventRows(transactions: readonly EventSource[]): EventRow[] {
  return runSteps(ledgerEventRowSteps(transactions));
}

/** Transactions read between two steps of ledgerEventRowSteps. */
const STEP_TRANSACTIONS = 256;

/**
 * ledgerEventRows as steps (src/work/slicedWork.ts): decoding the 18,000 events of a 6,000-transfer
 * ledger takes tens of milliseconds, which the follower spreads over turns of the event loop.
 */
export function* ledgerEventRowSteps(transactions: readonly EventSource[]): Generator<void, EventRow[], void> {
  const rows: EventRow[] = [];
  let beforeAll = 0;
  let afterAll = 0;
  for (const tx of transactions) {
    const order = tx.applicationOrder;
    let afterTx = 0;
    for (const b64 of tx.events.transactionEventsXdr) {
      const bytes = fromBase64(b64);
      const stage = readInt32(bytes, 0);
      const event = bytes.subarray(4);
      switch (stage) {
        case STAGE_BEFORE_ALL_TXS: rows.push({ tx: 0, op: 0, index: beforeAll++, applicationOrder: order, event }); break;
        case STAGE_AFTER_TX: rows.push({ tx: order, op: OP_MASK, index: afterTx++, applicationOrder: order, event }); break;
        case STAGE_AFTER_ALL_TXS: rows.push({ tx: TX_MASK, op: 0, index: afterAll++, applicationOrder: order, event }); break;
        default: throw new Error(`transaction ${order}: unknown transaction event stage ${stage}`);
      }
    }
    tx.events.contractEventsXdr.forEach((list, op) => {
      list.forEach((b64, index) => rows.push({ tx: order, op, index, applicationOrder: order, event: fromBase64(b64) }));
    });
    if (order % STEP_TRANSACTIONS === 0) yield;
  }
  // Sorting is stable: within one (tx, op) the indexes already ascend.
  rows.sort((a, b) => txOpOrder(a.tx, a.op) - txOpOrder(b.tx, b.op) || a.index - b.index);
  return rows;
}
