// The node's XDR types, generated from the stellar-xdr crate's definitions (xdr/README.md), as one
// namespace in the shape of the SDK's: xdr.LedgerCloseMeta.schema.decode(bytes) gives an
// xdr.LedgerCloseMetaWire; xdr.LedgerCloseMeta.fromXdr(bytes).toJson() its serde JSON form.
export * as xdr from './xdrNamespace.ts';
