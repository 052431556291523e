// Strkeys (SEP-23): base32 (RFC 4648, no padding) of a version byte, the payload and a CRC16-XModem
// checksum (little-endian). The SDK's StrKey knows every kind but `W` (muxed contract, protocol 30),
// which is made and read here.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Version byte of a muxed contract address (`W...`): 22 << 3. */
export const MUXED_CONTRACT_VERSION = 22 << 3;

function crc16XModem(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) { out += ALPHABET[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Uint8Array | undefined {
  const out = new Uint8Array(Math.floor((text.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let n = 0;
  for (const c of text) {
    const v = ALPHABET.indexOf(c);
    if (v < 0) return undefined;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) { out[n++] = (value >>> (bits - 8)) & 0xff; bits -= 8; }
  }
  return out;
}

export function encodeStrKey(version: number, payload: Uint8Array): string {
  const data = new Uint8Array(1 + payload.length + 2);
  data[0] = version;
  data.set(payload, 1);
  const crc = crc16XModem(data.subarray(0, 1 + payload.length));
  data[1 + payload.length] = crc & 0xff;
  data[2 + payload.length] = crc >>> 8;
  return base32(data);
}

/** The payload of a strkey of this version and payload length; throws on anything else. */
export function decodeStrKey(version: number, payloadLength: number, text: string): Uint8Array {
  const data = typeof text === 'string' ? unbase32(text) : undefined;
  const fail = (why: string): never => { throw new Error(`invalid strkey ${JSON.stringify(text)}: ${why}`); };
  if (!data) return fail('not base32');
  if (data.length !== 1 + payloadLength + 2) return fail('wrong length');
  if (data[0] !== version) return fail('wrong kind');
  const payload = data.subarray(1, 1 + payloadLength);
  // the only spelling of these bytes (no stray bits in the last character)
  if (encodeStrKey(version, payload) !== text) return fail('bad checksum or not canonical');
  return payload.slice();
}

export interface MuxedContractAddress { id: bigint; contractId: Uint8Array }

/** `W...`: the 32-byte contract id, then the 64-bit id big-endian (stellar-strkey 1.0). */
export function encodeMuxedContract(m: MuxedContractAddress): string {
  const payload = new Uint8Array(40);
  payload.set(m.contractId, 0);
  new DataView(payload.buffer).setBigUint64(32, m.id);
  return encodeStrKey(MUXED_CONTRACT_VERSION, payload);
}

export function decodeMuxedContract(text: string): MuxedContractAddress {
  const payload = decodeStrKey(MUXED_CONTRACT_VERSION, 40, text);
  return { contractId: payload.slice(0, 32), id: new DataView(payload.buffer, payload.byteOffset).getBigUint64(32) };
}
