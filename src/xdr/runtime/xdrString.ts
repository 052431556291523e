// XDR strings are the SDK's XdrString (bytes, not JavaScript text: an XDR string need not be UTF-8),
// so values built by the SDK (clients, tests) and by the generated module mix freely.
import { xdr } from '@stellar/stellar-sdk';

export const XdrString = xdr.XdrString;
export type XdrString = xdr.XdrString;

/** The js-xdr schema of `string<maxLength>` whose values are XdrString. */
export const xdrString = xdr.xdrString;
