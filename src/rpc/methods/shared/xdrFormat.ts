// The optional `xdrFormat` param ("" | "base64" | "json") and the conversions it selects. With "json",
// each …Xdr field is replaced by a …Json field holding the JSON form of the decoded value, rendered
// by the same Rust crate (stellar-xdr's serde) as the reference's xdr2json (src/rpc/xdrJson.ts).
import { invalidParams } from '../../errors.ts';
import { toBase64 } from '../../../xdr/codec.ts';
import { xdrJsonText, type XdrTypeName } from '../../xdrJson.ts';

export type XdrFormat = 'base64' | 'json';

/** protocols/rpc IsValidFormat's message, or undefined when the value is acceptable. */
export function xdrFormatError(value: unknown): string | undefined {
  if (value === undefined || value === '' || value === 'base64' || value === 'json') return undefined;
  return `got '${String(value)}': expected base64, json for optional 'xdrFormat'`;
}

export const formatOf = (value: unknown): XdrFormat => (value === 'json' ? 'json' : 'base64');

/** The format, or -32602 with the reference's message (getTransaction, getLedgerEntries, sendTransaction). */
export function parseXdrFormat(value: unknown): XdrFormat {
  const error = xdrFormatError(value);
  if (error !== undefined) throw invalidParams(error);
  return formatOf(value);
}

/** The JSON form of XDR bytes of type `type`, as a value (small values: see xdrJsonText). */
export const xdrJson = (type: XdrTypeName, bytes: Uint8Array): unknown => JSON.parse(xdrJsonText(type, bytes));

/** Base64 of the bytes, or their JSON form, depending on the format. */
export const renderXdr = (format: XdrFormat, type: XdrTypeName, bytes: Uint8Array): unknown =>
  format === 'json' ? xdrJson(type, bytes) : toBase64(bytes);
