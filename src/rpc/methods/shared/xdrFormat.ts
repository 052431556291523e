// The optional `xdrFormat` param ("" | "base64" | "json") and the conversions it selects. With "json",
// each …Xdr field is replaced by a …Json field holding the JSON form of the decoded value
// (the same serde shape the reference's Rust xdr2json produces).
import { invalidParams } from '../../errors.ts';
import { toBase64 } from '../../../xdr/codec.ts';

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

/** An XDR type, e.g. xdr.LedgerHeader: decodes bytes into a value that renders itself as JSON. */
export interface XdrJsonClass {
  fromXdr(input: Uint8Array): { toJson(): unknown };
}

/** The JSON form of XDR bytes of type `cls`. */
export const xdrJson = (cls: XdrJsonClass, bytes: Uint8Array): unknown => cls.fromXdr(bytes).toJson();

/** Base64 of the bytes, or their JSON form, depending on the format. */
export const renderXdr = (format: XdrFormat, cls: XdrJsonClass, bytes: Uint8Array): unknown =>
  format === 'json' ? xdrJson(cls, bytes) : toBase64(bytes);
