// Stellar addresses (SEP-23 strkeys): base32 of a version byte, the payload and a CRC16-XModem
// checksum. Enough to tell accounts from contracts, check them, and turn them into key bytes.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const VERSION = { account: 6 << 3, muxed: 12 << 3, contract: 2 << 3 } as const;
export type StrkeyKind = keyof typeof VERSION;

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function base32Decode(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** The payload of a valid strkey of that kind (32 bytes; 40 for a muxed account), else undefined. */
export function decodeStrkey(kind: StrkeyKind, text: string): Uint8Array | undefined {
  const length = kind === 'muxed' ? 69 : 56;
  if (text.length !== length) return undefined;
  const raw = base32Decode(text);
  if (!raw || raw[0] !== VERSION[kind]) return undefined;
  const body = raw.subarray(0, raw.length - 2);
  const sum = raw[raw.length - 2] | (raw[raw.length - 1] << 8);
  if (crc16(body) !== sum) return undefined;
  // the encoding of those bytes must be the text itself (no stray bits in the last character)
  if (encodeStrkey(kind, body.subarray(1)) !== text) return undefined;
  return body.slice(1);
}

export function encodeStrkey(kind: StrkeyKind, payload: Uint8Array): string {
  const body = new Uint8Array(payload.length + 1);
  body[0] = VERSION[kind];
  body.set(payload, 1);
  const sum = crc16(body);
  const all = new Uint8Array(body.length + 2);
  all.set(body);
  all[body.length] = sum & 0xff;
  all[body.length + 1] = sum >> 8;
  return base32Encode(all);
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
