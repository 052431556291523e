// A ContractEvent's parts read from its XDR in place, without a full decode: indexing and matching
// touch every candidate event, and a js-xdr decode of each would dominate.

/** The names of ContractEventType values, as getEvents writes `type`. */
export const CONTRACT_EVENT_TYPE_NAMES = ['system', 'contract', 'diagnostic'] as const;

/** A ContractEvent's parts, as subarrays of its XDR (each topic and the value are ScVal XDR). */
export interface ParsedEvent {
  contractId: Uint8Array | null;
  type: number;             // ContractEventType: 0 system, 1 contract, 2 diagnostic
  topics: Uint8Array[];
  value: Uint8Array;
}

export class EventXdrError extends Error {}

export const readInt32 = (b: Uint8Array, o: number): number => {
  if (o + 4 > b.length) throw new EventXdrError('unexpected end of event XDR');
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]);
};
export const readUint32 = (b: Uint8Array, o: number): number => readInt32(b, o) >>> 0;

export function need(b: Uint8Array, end: number): number {
  if (end > b.length) throw new EventXdrError('unexpected end of event XDR');
  return end;
}

const MAX_DEPTH = 200;

/** The offset just past the ScVal that starts at `o`. */
export function skipScVal(b: Uint8Array, o: number, depth = 0): number {
  if (depth > MAX_DEPTH) throw new EventXdrError('ScVal nested too deeply');
  const type = readInt32(b, o);
  o += 4;
  switch (type) {
    case 1: case 20: return o;                                   // void, ledger key contract instance
    case 0: case 3: case 4: return need(b, o + 4);               // bool, u32, i32
    case 2: case 5: case 6: case 7: case 8: case 21: return need(b, o + 8); // error, u64, i64, timepoint, duration, nonce key
    case 9: case 10: return need(b, o + 16);                     // u128, i128
    case 11: case 12: return need(b, o + 32);                    // u256, i256
    case 13: case 14: case 15: case 22: return skipOpaque(b, o);  // bytes, string, symbol, executable tag (CAP-85)
    case 16: {                                                   // vec (optional)
      if (readInt32(b, o) === 0) return o + 4;
      const n = readUint32(b, o + 4);
      o += 8;
      for (let i = 0; i < n; i++) o = skipScVal(b, o, depth + 1);
      return o;
    }
    case 17: return skipMap(b, o, depth);                        // map (optional)
    case 18: return skipAddress(b, o);
    case 19: {                                                   // contract instance: executable, storage map
      const exec = readInt32(b, o);
      o += 4;
      if (exec === 0) o = need(b, o + 32);                       // Wasm hash
      else if (exec === 2) o = skipOpaque(b, skipAddress(b, o)); // external reference (CAP-85): owner, tag
      else if (exec !== 1) throw new EventXdrError(`unknown contract executable type ${exec}`);
      return skipMap(b, o, depth);
    }
    default: throw new EventXdrError(`unknown ScVal type ${type}`);
  }
}

/** Variable-length opaque data or a string: its length, then the bytes padded to 4. */
function skipOpaque(b: Uint8Array, o: number): number {
  const n = readUint32(b, o);
  return need(b, o + 4 + n + ((4 - (n % 4)) % 4));
}

function skipMap(b: Uint8Array, o: number, depth: number): number {
  if (readInt32(b, o) === 0) return o + 4;
  const n = readUint32(b, o + 4);
  o += 8;
  for (let i = 0; i < n; i++) o = skipScVal(b, skipScVal(b, o, depth + 1), depth + 1);
  return o;
}

function skipAddress(b: Uint8Array, o: number): number {
  const type = readInt32(b, o);
  o += 4;
  switch (type) {
    case 0: case 3: return need(b, o + 36);   // account id (key type + key), claimable balance id (type + hash)
    case 1: case 4: return need(b, o + 32);   // contract id, liquidity pool id
    case 2: return need(b, o + 40);           // muxed account (id + key)
    default: throw new EventXdrError(`unknown ScAddress type ${type}`);
  }
}

/** Splits ContractEvent XDR into its parts without decoding the values. */
export function parseContractEvent(b: Uint8Array): ParsedEvent {
  let o = 0;
  if (readInt32(b, o) !== 0) throw new EventXdrError('unknown ContractEvent extension');
  o += 4;
  let contractId: Uint8Array | null = null;
  if (readInt32(b, o) !== 0) {
    contractId = b.subarray(o + 4, need(b, o + 36));
    o += 36;
  } else {
    o += 4;
  }
  const type = readInt32(b, o);
  if (readInt32(b, o + 4) !== 0) throw new EventXdrError('unknown ContractEvent body version');
  const n = readUint32(b, o + 8);
  o += 12;
  const topics: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const end = skipScVal(b, o);
    topics.push(b.subarray(o, end));
    o = end;
  }
  const end = skipScVal(b, o);
  return { contractId, type, topics, value: b.subarray(o, end) };
}
