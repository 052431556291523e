// The types whose JSON is one string rather than their structure: the Rust crate's CUSTOM_STR_IMPL
// list (its Makefile), serialized through Display/FromStr. Keys, accounts, addresses and ids are
// strkeys; asset codes are escaped text; 128/256-bit integers are decimal text. Keyed by schema name
// (AccountId and NodeId are PublicKey's schema).
import { StrKey } from '@stellar/stellar-sdk';
import { XdrError } from '@stellar/js-xdr';
import { escapeBytes, unescapeBytes } from './escapedBytes.ts';
import { decodeMuxedContract, encodeMuxedContract } from './strkey.ts';

export interface JsonStringForm {
  toJson(wire: never): string;
  fromJson(json: string): unknown;
}

interface Med25519 { id: bigint; ed25519: Uint8Array }
interface SignedPayload { ed25519: Uint8Array; payload: Uint8Array }
interface ClaimableBalanceId { type: number; v0: Uint8Array }
type PublicKey = { type: 0; ed25519: Uint8Array };
type MuxedAccount = PublicKey | { type: 256; med25519: Med25519 };
type SignerKey = PublicKey | { type: 1; preAuthTx: Uint8Array } | { type: 2; hashX: Uint8Array } | { type: 3; ed25519SignedPayload: SignedPayload };
type ScAddress =
  | { type: 0; accountId: PublicKey } | { type: 1; contractId: Uint8Array } | { type: 2; muxedAccount: Med25519 }
  | { type: 3; claimableBalanceId: ClaimableBalanceId } | { type: 4; liquidityPoolId: Uint8Array }
  | { type: 5; muxedContract: { id: bigint; contractId: Uint8Array } };

const bytes = (b: Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
const view = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

function refuse(type: string, json: string): never {
  throw new XdrError(`${type}: ${JSON.stringify(json)} is not a valid ${type}`);
}

// ---- strkeys ----

const accountText = (k: PublicKey): string => StrKey.encodeEd25519PublicKey(k.ed25519);
const accountFrom = (s: string): PublicKey => ({ type: 0, ed25519: bytes(StrKey.decodeEd25519PublicKey(s)) });

/** M...: the ed25519 key, then the 64-bit id big-endian. */
function med25519Text(m: Med25519): string {
  const payload = new Uint8Array(40);
  payload.set(m.ed25519, 0);
  view(payload).setBigUint64(32, m.id);
  return StrKey.encodeMed25519PublicKey(payload);
}
function med25519From(s: string): Med25519 {
  const raw = bytes(StrKey.decodeMed25519PublicKey(s));
  return { id: view(raw).getBigUint64(32), ed25519: raw.slice(0, 32) };
}

/** P...: the ed25519 key, the payload length (uint32) and the payload zero-padded to 4 bytes. */
function signedPayloadText(p: SignedPayload): string {
  const raw = new Uint8Array(36 + Math.ceil(p.payload.length / 4) * 4);
  raw.set(p.ed25519, 0);
  view(raw).setUint32(32, p.payload.length);
  raw.set(p.payload, 36);
  return StrKey.encodeSignedPayload(raw);
}
function signedPayloadFrom(s: string): SignedPayload {
  const raw = bytes(StrKey.decodeSignedPayload(s));
  return { ed25519: raw.slice(0, 32), payload: raw.slice(36, 36 + view(raw).getUint32(32)) };
}

/** B...: the id's type byte (0: v0) then its hash. */
function claimableBalanceText(id: ClaimableBalanceId): string {
  const raw = new Uint8Array(33);
  raw[0] = id.type;
  raw.set(id.v0, 1);
  return StrKey.encodeClaimableBalance(raw);
}
function claimableBalanceFrom(s: string): ClaimableBalanceId {
  const raw = bytes(StrKey.decodeClaimableBalance(s));
  return { type: raw[0], v0: raw.slice(1) };
}

/** Each strkey kind and how it is read; the first letter picks it. */
function byPrefix<T>(type: string, forms: Record<string, (s: string) => T>): (s: string) => T {
  return (s) => {
    const read = forms[s.charAt(0)];
    if (!read) refuse(type, s);
    try { return read(s); } catch { return refuse(type, s); }
  };
}

const scAddressFrom = byPrefix<ScAddress>('ScAddress', {
  G: (s) => ({ type: 0, accountId: accountFrom(s) }),
  C: (s) => ({ type: 1, contractId: bytes(StrKey.decodeContract(s)) }),
  M: (s) => ({ type: 2, muxedAccount: med25519From(s) }),
  B: (s) => ({ type: 3, claimableBalanceId: claimableBalanceFrom(s) }),
  L: (s) => ({ type: 4, liquidityPoolId: bytes(StrKey.decodeLiquidityPool(s)) }),
  W: (s) => ({ type: 5, muxedContract: decodeMuxedContract(s) }),
});

function scAddressText(a: ScAddress): string {
  switch (a.type) {
    case 0: return accountText(a.accountId);
    case 1: return StrKey.encodeContract(a.contractId);
    case 2: return med25519Text(a.muxedAccount);
    case 3: return claimableBalanceText(a.claimableBalanceId);
    case 4: return StrKey.encodeLiquidityPool(a.liquidityPoolId);
    case 5: return encodeMuxedContract(a.muxedContract);
  }
}

function signerKeyText(k: SignerKey): string {
  switch (k.type) {
    case 0: return accountText(k);
    case 1: return StrKey.encodePreAuthTx(k.preAuthTx);
    case 2: return StrKey.encodeSha256Hash(k.hashX);
    case 3: return signedPayloadText(k.ed25519SignedPayload);
  }
}

// ---- asset codes: escaped text without the zero padding ----

/** The code's bytes without trailing zeros, but at least `min` of them (AssetCode12 keeps 5). */
function trimmedCode(code: Uint8Array, min: number): Uint8Array {
  let end = code.length;
  while (end > min && code[end - 1] === 0) end--;
  return code.subarray(0, end);
}

function paddedCode(type: string, json: string, size: number, min: number): Uint8Array {
  let raw: Uint8Array;
  try { raw = unescapeBytes(json); } catch { return refuse(type, json); }
  if (raw.length > size || raw.length < min) refuse(type, json);
  const out = new Uint8Array(size);
  out.set(raw);
  return out;
}

// ---- 128/256-bit integers: decimal text of the parts put together ----

const U64 = (1n << 64n) - 1n;

function decimal(type: string, json: string, bits: number, signed: boolean): bigint {
  if (!(signed ? /^[+-]?[0-9]+$/ : /^\+?[0-9]+$/).test(json)) refuse(type, json);
  const v = BigInt(json);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (v < min || v > max) refuse(type, json);
  return v;
}

/** The 64-bit words of a value, most significant first; the first is signed for a signed type. */
function words(v: bigint, count: number, signed: boolean): bigint[] {
  const out: bigint[] = [];
  for (let i = count - 1; i >= 0; i--) out.push((v >> BigInt(64 * i)) & U64);
  if (signed) out[0] = BigInt.asIntN(64, out[0]);
  return out;
}

const joined = (ws: bigint[]): bigint => ws.reduce((acc, w, i) => (i === 0 ? w : (acc << 64n) | w), 0n);

function int128(type: string, signed: boolean): JsonStringForm {
  return {
    toJson: (p: { hi: bigint; lo: bigint }) => joined([p.hi, p.lo]).toString(),
    fromJson: (json) => { const [hi, lo] = words(decimal(type, json, 128, signed), 2, signed); return { hi, lo }; },
  };
}

function int256(type: string, signed: boolean): JsonStringForm {
  return {
    toJson: (p: { hiHi: bigint; hiLo: bigint; loHi: bigint; loLo: bigint }) => joined([p.hiHi, p.hiLo, p.loHi, p.loLo]).toString(),
    fromJson: (json) => {
      const [hiHi, hiLo, loHi, loLo] = words(decimal(type, json, 256, signed), 4, signed);
      return { hiHi, hiLo, loHi, loLo };
    },
  };
}

const med25519Form: JsonStringForm = { toJson: med25519Text, fromJson: byPrefix('MuxedEd25519Account', { M: med25519From }) };

export const JSON_STRING_FORMS: ReadonlyMap<string, JsonStringForm> = new Map<string, JsonStringForm>([
  ['PublicKey', { toJson: accountText, fromJson: byPrefix('PublicKey', { G: accountFrom }) }],
  ['MuxedAccount', {
    toJson: (m: MuxedAccount) => (m.type === 0 ? accountText(m) : med25519Text(m.med25519)),
    fromJson: byPrefix<MuxedAccount>('MuxedAccount', { G: accountFrom, M: (s) => ({ type: 256, med25519: med25519From(s) }) }),
  }],
  ['MuxedAccountMed25519', med25519Form],
  ['MuxedEd25519Account', med25519Form],
  ['SignerKey', {
    toJson: signerKeyText,
    fromJson: byPrefix<SignerKey>('SignerKey', {
      G: accountFrom,
      T: (s) => ({ type: 1, preAuthTx: bytes(StrKey.decodePreAuthTx(s)) }),
      X: (s) => ({ type: 2, hashX: bytes(StrKey.decodeSha256Hash(s)) }),
      P: (s) => ({ type: 3, ed25519SignedPayload: signedPayloadFrom(s) }),
    }),
  }],
  ['SignerKeyEd25519SignedPayload', { toJson: signedPayloadText, fromJson: byPrefix('SignerKeyEd25519SignedPayload', { P: signedPayloadFrom }) }],
  ['ScAddress', { toJson: scAddressText, fromJson: scAddressFrom }],
  ['MuxedContract', { toJson: encodeMuxedContract, fromJson: byPrefix('MuxedContract', { W: decodeMuxedContract }) }],
  ['ContractId', { toJson: (id: Uint8Array) => StrKey.encodeContract(id), fromJson: byPrefix('ContractId', { C: (s) => bytes(StrKey.decodeContract(s)) }) }],
  ['PoolId', { toJson: (id: Uint8Array) => StrKey.encodeLiquidityPool(id), fromJson: byPrefix('PoolId', { L: (s) => bytes(StrKey.decodeLiquidityPool(s)) }) }],
  ['ClaimableBalanceId', { toJson: claimableBalanceText, fromJson: byPrefix('ClaimableBalanceId', { B: claimableBalanceFrom }) }],
  ['AssetCode4', { toJson: (c: Uint8Array) => escapeBytes(trimmedCode(c, 0)), fromJson: (json) => paddedCode('AssetCode4', json, 4, 0) }],
  ['AssetCode12', { toJson: (c: Uint8Array) => escapeBytes(trimmedCode(c, 5)), fromJson: (json) => paddedCode('AssetCode12', json, 12, 5) }],
  ['AssetCode', {
    toJson: (c: { type: 1; assetCode4: Uint8Array } | { type: 2; assetCode12: Uint8Array }) =>
      (c.type === 1 ? escapeBytes(trimmedCode(c.assetCode4, 0)) : escapeBytes(trimmedCode(c.assetCode12, 5))),
    fromJson: (json) => {
      const code = paddedCode('AssetCode', json, 12, 0);
      // the text's own length decides (as the crate): up to 4 bytes is an AssetCode4
      return unescapeBytes(json).length <= 4 ? { type: 1, assetCode4: code.slice(0, 4) } : { type: 2, assetCode12: code };
    },
  }],
  ['Int128Parts', int128('Int128Parts', true)],
  ['Uint128Parts', int128('Uint128Parts', false)],
  ['Int256Parts', int256('Int256Parts', true)],
  ['Uint256Parts', int256('Uint256Parts', false)],
]);
