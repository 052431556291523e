// Thin helpers over the generated XDR schemas (./xdr.ts). The engine and ingestion work on plain
// "wire" objects (schema.decode/encode): they are cheap to copy and to mutate while a ledger is built.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from './xdr.ts';
import { createHash } from 'node:crypto';
import { encodeXdr } from './runtime/fastEncode.ts';
export { encodeXdr, writeXdr, XdrSink } from './runtime/fastEncode.ts';

export type LedgerKey = xdr.LedgerKeyWire;
export type LedgerEntry = xdr.LedgerEntryWire;
export type LedgerEntryData = xdr.LedgerEntryDataWire;
export type LedgerEntryChange = xdr.LedgerEntryChangeWire;
export type AccountEntry = xdr.AccountEntryWire;
export type TrustLineEntry = xdr.TrustLineEntryWire;
export type Asset = xdr.AssetWire;
export type TrustLineAsset = xdr.TrustLineAssetWire;
export type MuxedAccount = xdr.MuxedAccountWire;
export type AccountId = xdr.PublicKeyWire;
export type ContractEvent = xdr.ContractEventWire;
export type ScVal = xdr.ScValWire;
export type TransactionEnvelope = xdr.TransactionEnvelopeWire;
export type LedgerCloseMeta = xdr.LedgerCloseMetaWire;
export type LedgerHeader = xdr.LedgerHeaderWire;
export type LedgerHeaderHistoryEntry = xdr.LedgerHeaderHistoryEntryWire;

export const encodeLedgerKey = (k: LedgerKey): Uint8Array => encodeXdr(xdr.LedgerKey.schema, k);
export const decodeLedgerKey = (b: Uint8Array): LedgerKey => xdr.LedgerKey.schema.decode(b);
export const encodeLedgerEntry = (e: LedgerEntry): Uint8Array => encodeXdr(xdr.LedgerEntry.schema, e);
export const decodeLedgerEntry = (b: Uint8Array): LedgerEntry => xdr.LedgerEntry.schema.decode(b);

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest().buffer);
}

export const toHex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
export const toBase64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

const BASE64_STD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Go's base64.StdEncoding decoding as the reference applies it to XDR params: padding required,
 * no other alphabet, CR/LF ignored. undefined when the text is not valid base64.
 */
export function decodeBase64Std(text: string): Uint8Array | undefined {
  const s = text.replace(/[\r\n]/g, '');
  if (!BASE64_STD.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s, 'base64'));
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const accountIdFromStrKey = (g: string): AccountId => ({ type: 0, ed25519: StrKey.decodeEd25519PublicKey(g) });
export const accountIdToStrKey = (a: AccountId): string => StrKey.encodeEd25519PublicKey(Buffer.from(a.ed25519));

/** The ed25519 key behind a (possibly muxed) account: what owns balances and signs. */
export function muxedToAccountId(m: MuxedAccount): AccountId {
  return m.type === 0 ? { type: 0, ed25519: m.ed25519 } : { type: 0, ed25519: m.med25519.ed25519 };
}

export const accountKey = (id: AccountId): LedgerKey => ({ type: 0, account: { accountId: id } });
export const trustLineKey = (id: AccountId, asset: TrustLineAsset): LedgerKey => ({ type: 1, trustLine: { accountId: id, asset } });
export const dataKey = (id: AccountId, name: xdr.XdrString | string): LedgerKey =>
  ({ type: 3, data: { accountId: id, dataName: typeof name === 'string' ? new xdr.XdrString(name) : name } });

/** Network id = sha256(passphrase); every signature payload and contract id is bound to it. */
export const networkIdOf = (passphrase: string): Uint8Array => sha256(Buffer.from(passphrase, 'utf8'));
