// Parameters of the state-editing developer methods (lumen_setLedgerEntry, lumen_setBalance, ...):
// XDR values given as base64 or in their JSON form (what getLedgerEntries answers with
// xdrFormat "json"), addresses, assets and amounts; and running one edit as the next ledger's upgrade.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../../../../xdr/xdr.ts';
import type { StandaloneNetwork } from '../../../../standalone/standaloneNetwork.ts';
import { StateEditError, devEditStep, type Edit } from '../../../../standalone/stateEdits.ts';
import { decodeBase64Std } from '../../../../xdr/codec.ts';
import { devRefused } from '../types.ts';
import type { AccountId, Asset, LedgerEntry, LedgerKey, ScVal } from '../../../../xdr/codec.ts';
import type { JsonSchema } from '../../types.ts';

/** An XDR param: base64 text, or the value's JSON form (an object, or a JSON string such as "void"). */
export const xdrParam = (description: string): JsonSchema => ({ type: ['string', 'object'], description });

/** A stroop (or i128) amount: an integer, or a decimal string for values past 2^53. */
export const amountParam = (description: string): JsonSchema => ({ type: ['integer', 'string'], description });

interface XdrClass<W> {
  schema: { decode(b: Uint8Array): W };
  fromJson(json: unknown): { toXdr(): Uint8Array };
}

/**
 * Decodes an XDR param of type `cls`: base64 XDR first, then the JSON form (a JSON object, or a
 * string that is JSON text or a JSON string value). undefined when neither parses.
 */
function decodeXdr<W>(value: unknown, cls: XdrClass<W>): { value?: W; error?: string } {
  const fromJson = (json: unknown): W => cls.schema.decode(cls.fromJson(json).toXdr());
  if (typeof value === 'string') {
    const bytes = decodeBase64Std(value);
    let xdrError: string | undefined;
    if (bytes) {
      try { return { value: cls.schema.decode(bytes) }; } catch (e) { xdrError = (e as Error).message; }
    }
    let json: unknown = value;
    const text = value.trim();
    if (/^[{["]/.test(text)) {
      try { json = JSON.parse(text); } catch (e) { return { error: `neither valid base64 XDR nor JSON (${(e as Error).message})` }; }
    }
    try { return { value: fromJson(json) }; } catch (e) {
      return { error: xdrError ? `base64 that is not a valid XDR value (${xdrError})` : `neither valid base64 XDR nor its JSON form (${(e as Error).message})` };
    }
  }
  if (value !== null && typeof value === 'object') {
    try { return { value: fromJson(value) }; } catch (e) { return { error: `JSON that is not a valid value (${(e as Error).message})` }; }
  }
  return { error: 'expected base64 XDR or its JSON form' };
}

/**
 * A LedgerEntry, or a LedgerEntryData (getLedgerEntries' `xdr` / `dataJson`), whose entry gets no
 * extension; lastModifiedLedgerSeq is the edit's ledger either way.
 */
export function parseEntry(value: unknown, name = 'entry'): LedgerEntry {
  const asEntry = decodeXdr(value, xdr.LedgerEntry as unknown as XdrClass<LedgerEntry>);
  if (asEntry.value) return asEntry.value;
  const asData = decodeXdr(value, xdr.LedgerEntryData as unknown as XdrClass<xdr.LedgerEntryDataWire>);
  if (asData.value) return { lastModifiedLedgerSeq: 0, data: asData.value, ext: { v: 0 } };
  throw devRefused(`${name} does not parse as a LedgerEntry or LedgerEntryData (base64 XDR or JSON): ${asEntry.error}`);
}

export function parseKey(value: unknown, name = 'key'): LedgerKey {
  const { value: key, error } = decodeXdr(value, xdr.LedgerKey as unknown as XdrClass<LedgerKey>);
  if (!key) throw devRefused(`${name} does not parse as a LedgerKey (base64 XDR or JSON): ${error}`);
  return key;
}

export function parseScVal(value: unknown, name: string): ScVal {
  const { value: v, error } = decodeXdr(value, xdr.ScVal as unknown as XdrClass<ScVal>);
  if (!v) throw devRefused(`${name} does not parse as an ScVal (base64 XDR or JSON): ${error}`);
  return v;
}

export function parseAccount(value: unknown, name = 'account'): AccountId {
  if (typeof value !== 'string' || !StrKey.isValidEd25519PublicKey(value)) throw devRefused(`${name} is not an account address (G...): ${String(value)}`);
  return { type: 0, ed25519: new Uint8Array(StrKey.decodeEd25519PublicKey(value)) };
}

export function parseContract(value: unknown, name = 'contract'): Uint8Array {
  if (typeof value !== 'string' || !StrKey.isValidContract(value)) throw devRefused(`${name} is not a contract address (C...): ${String(value)}`);
  return new Uint8Array(StrKey.decodeContract(value));
}

/** An account (G...) or contract (C...) address. */
export function parseAddress(value: unknown, name = 'address'): xdr.ScAddressWire {
  if (typeof value === 'string' && StrKey.isValidEd25519PublicKey(value)) return { type: 0, accountId: parseAccount(value, name) };
  if (typeof value === 'string' && StrKey.isValidContract(value)) return { type: 1, contractId: parseContract(value, name) };
  throw devRefused(`${name} is not an account (G...) or contract (C...) address: ${String(value)}`);
}

/** "native" (or "XLM"), or "CODE:ISSUER" with a 1-12 character code. */
export function parseAsset(value: unknown, name = 'asset'): Asset {
  if (value === 'native' || value === 'XLM') return { type: 0 };
  const m = typeof value === 'string' ? /^([A-Za-z0-9]{1,12}):(G[A-Z2-7]{55})$/.exec(value) : null;
  if (!m) throw devRefused(`${name} is neither "native" nor CODE:ISSUER (a 1-12 letter or digit code and a G... issuer): ${String(value)}`);
  const issuer = parseAccount(m[2], `${name}'s issuer`);
  const code = new Uint8Array(m[1].length <= 4 ? 4 : 12);
  code.set(Buffer.from(m[1], 'latin1'));
  return m[1].length <= 4 ? { type: 1, alphaNum4: { assetCode: code, issuer } } : { type: 2, alphaNum12: { assetCode: code, issuer } };
}

/** A whole number of stroops (or i128 units); negative amounts are refused. */
export function parseAmount(value: unknown, name: string): bigint {
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^-?\d{1,40}$/.test(value.trim())) n = BigInt(value.trim());
  if (n === undefined) throw devRefused(`${name} is not a whole number (an integer, or a decimal string past 2^53): ${JSON.stringify(value)}`);
  if (n < 0n) throw devRefused(`${name} cannot be negative: ${n}`);
  return n;
}

export function parseDurability(value: unknown): number {
  if (value === undefined || value === 'persistent') return 1;
  if (value === 'temporary') return 0;
  throw devRefused(`durability is "persistent" or "temporary": ${String(value)}`);
}

/**
 * Closes the next ledger with `edit` as its upgrade; resolves to that ledger. A refused edit
 * (StateEditError) is the caller's -32602 and the ledger is not closed.
 */
export async function runEdit(network: StandaloneNetwork, edit: Edit): Promise<number> {
  try {
    return await network.closeNextLedger([devEditStep(edit)]);
  } catch (err) {
    if (err instanceof StateEditError) throw devRefused(err.message);
    throw err;
  }
}
