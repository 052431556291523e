// XDR strings are the SDK's XdrString (bytes, not JavaScript text: an XDR string need not be UTF-8),
// so values built by the SDK (clients, tests) and by the generated module mix freely.
import { XdrString as SdkXdrString, xdrString as sdkXdrString } from '@stellar/stellar-sdk/xdr';

export const XdrString = SdkXdrString;
export type XdrString = SdkXdrString;

/** The js-xdr schema of `string<maxLength>` whose values are XdrString. */
export const xdrString = sdkXdrString;
