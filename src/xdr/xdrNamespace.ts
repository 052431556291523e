// The members of the `xdr` namespace (./xdr.ts): every generated XDR type (xdr.LedgerCloseMeta,
// xdr.LedgerCloseMetaWire) and what goes with them.
export * from './generated/stellarXdr.ts';
export { XdrString } from './runtime/xdrString.ts';
export { xdrEnumNames, type XdrTypeOf, type XdrValue } from './runtime/xdrType.ts';
export type { JsonValue } from './runtime/json.ts';
export type { DecodeOptions } from '@stellar/js-xdr';
