// Stellar addresses (SEP-23 strkeys) for the page: which kind an address is, its key bytes, and back.
// The encoding itself is the node's own (src/xdr/runtime/strkey.ts), bundled in.
import { decodeStrKey, encodeStrKey } from '../../src/xdr/runtime/strkey.ts';

const VERSION = { account: 6 << 3, muxed: 12 << 3, contract: 2 << 3 } as const;
export type StrkeyKind = keyof typeof VERSION;

/** The payload of a valid strkey of that kind (32 bytes; 40 for a muxed account), else undefined. */
export function decodeStrkey(kind: StrkeyKind, text: string): Uint8Array | undefined {
  try {
    return decodeStrKey(VERSION[kind], kind === 'muxed' ? 40 : 32, text);
  } catch {
    return undefined;
  }
}

export function encodeStrkey(kind: StrkeyKind, payload: Uint8Array): string {
  return encodeStrKey(VERSION[kind], payload);
}

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export const isAccount = (s: string): boolean => decodeStrkey('account', s) !== undefined;
export const isContract = (s: string): boolean => decodeStrkey('contract', s) !== undefined;

/** The G… account of a muxed M… address (its first 32 bytes). */
export function muxedBase(m: string): string | undefined {
  const payload = decodeStrkey('muxed', m);
  return payload ? encodeStrkey('account', payload.subarray(0, 32)) : undefined;
}

/** A contract id given as 64 hex digits (a diagnostic event's bytes) as its C… address. */
export function contractFromHex(hex: string): string {
  return encodeStrkey('contract', hexToBytes(hex));
}
