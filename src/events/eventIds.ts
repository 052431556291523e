// Event ids and cursors as getEvents gives them (stellar-rpc db/event.go, go-stellar-sdk
// protocols/rpc/cursor.go): `%019d-%010d` over `<toid>-<event index>`, toid = ledger << 32 | tx << 12 | op, where for
//   - an operation's events:                   tx = application order (1-based), op = operation index (0-based),
//                                              event index = position in the operation's list;
//   - a BEFORE_ALL_TXS transaction event (fee): tx = 0, op = 0, index counted over the whole ledger;
//   - an AFTER_TX transaction event:           tx = application order, op = 4095, index counted per transaction;
//   - an AFTER_ALL_TXS transaction event (refund): tx = 1048575, op = 0, index counted over the ledger.
import type { EventPosition } from './types.ts';
import { TOID_OPERATION_MASK, TOID_TRANSACTION_MASK, toid } from '../ids/toid.ts';

export const TX_MASK = TOID_TRANSACTION_MASK;
export const OP_MASK = TOID_OPERATION_MASK;
export const MAX_UINT32 = 0xffffffff;

/** The TOID of a position, as Go's toid.New(...).ToInt64(). */
export const positionToid = (p: Pick<EventPosition, 'ledger' | 'tx' | 'op'>): bigint => toid(p.ledger, p.tx, p.op);

/** `%019d-%010d`: the event id, also the cursor string. */
export function formatEventId(p: EventPosition): string {
  const toid = positionToid(p);
  const head = toid < 0n ? '-' + (-toid).toString().padStart(18, '0') : toid.toString().padStart(19, '0');
  return `${head}-${String(p.event >>> 0).padStart(10, '0')}`;
}

/** The reference's end-of-window cursor: MaxCursor with its ledger replaced. */
export const maxPositionOf = (ledger: number): EventPosition => ({ ledger, tx: TX_MASK, op: OP_MASK, event: MAX_UINT32 });

/** Orders two positions (ledger, tx, op, event), all compared as unsigned. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  return (a.ledger >>> 0) - (b.ledger >>> 0) || a.tx - b.tx || a.op - b.op || (a.event >>> 0) - (b.event >>> 0);
}

/** `tx << 12 | op`: the order of an event's (tx, op) pair inside its ledger. */
export const txOpOrder = (tx: number, op: number): number => tx * 4096 + op;
