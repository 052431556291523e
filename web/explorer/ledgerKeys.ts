// getLedgerEntries takes LedgerKeys as base64 XDR. The few the explorer asks for are small fixed
// layouts, written here byte by byte (no XDR library in the page): an account, an account's
// trustline to an issued asset, a contract's instance and a contract's code.
import { decodeStrkey, hexToBytes } from './strkey.ts';

const int32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

function accountId(g: string): number[] {
  const key = decodeStrkey('account', g);
  if (!key) throw new Error(`not an account address: ${g}`);
  return [...int32(0), ...key]; // PUBLIC_KEY_TYPE_ED25519
}

function base64(bytes: readonly number[]): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function accountKey(g: string): string {
  return base64([...int32(0), ...accountId(g)]);
}

/** A trustline to CODE:ISSUER (1 to 12 characters: alphanum4 up to 4, else alphanum12). */
export function trustlineKey(g: string, code: string, issuer: string): string {
  if (!/^[A-Za-z0-9]{1,12}$/.test(code)) throw new Error(`not an asset code: ${code}`);
  const width = code.length <= 4 ? 4 : 12;
  const codeBytes = Array.from({ length: width }, (_, i) => (i < code.length ? code.charCodeAt(i) : 0));
  return base64([...int32(1), ...accountId(g), ...int32(width === 4 ? 1 : 2), ...codeBytes, ...accountId(issuer)]);
}

export function contractInstanceKey(c: string): string {
  const id = decodeStrkey('contract', c);
  if (!id) throw new Error(`not a contract address: ${c}`);
  // CONTRACT_DATA, ScAddress CONTRACT, SCV_LEDGER_KEY_CONTRACT_INSTANCE, PERSISTENT
  return base64([...int32(6), ...int32(1), ...id, ...int32(20), ...int32(1)]);
}

export function contractCodeKey(hashHex: string): string {
  if (!/^[0-9a-f]{64}$/.test(hashHex)) throw new Error(`not a wasm hash: ${hashHex}`);
  return base64([...int32(7), ...hexToBytes(hashHex)]);
}
