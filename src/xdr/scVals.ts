// Builders for the ScVal scalars the ledger engine writes itself (SAC events, the network's
// diagnostic errors), as wire values.
import { xdr } from './xdr.ts';
import type { ScVal } from './codec.ts';

export const symVal = (s: string): ScVal => ({ type: 15, sym: new xdr.XdrString(s) });
export const strVal = (s: string | Uint8Array): ScVal => ({ type: 14, str: new xdr.XdrString(s) });
export const u64Val = (n: number | bigint): ScVal => ({ type: 5, u64: BigInt(n) });
export const bytesVal = (b: Uint8Array): ScVal => ({ type: 13, bytes: b });
export const boolVal = (b: boolean): ScVal => ({ type: 0, b });
export const addressVal = (a: xdr.ScAddressWire): ScVal => ({ type: 18, address: a });

const MASK64 = (1n << 64n) - 1n;

/** An i128 ScVal; `amount` may be negative (two's complement across hi/lo). */
export function i128Val(amount: bigint): ScVal {
  if (amount < -(1n << 127n) || amount >= 1n << 127n) throw new RangeError('i128 out of range');
  return { type: 10, i128: { hi: amount >> 64n, lo: amount & MASK64 } };
}

/** The value of an i128 ScVal's parts (hi signed, lo unsigned). */
export const i128Value = (parts: xdr.Int128PartsWire): bigint => (parts.hi << 64n) | parts.lo;
