// A closed standalone ledger as the rows ingestion stores, from its meta encoded by
// encodeCloseMetaSteps. One place for the choice of conversion, so that the network and the engine
// benchmark (bench/engineClose.ts) store a ledger through the very same steps.
import type { IngestBatch } from '../store/types.ts';
import type { ClosedLedger } from '../ledger/closeLedger.ts';
import type { EncodedTransaction } from '../ledger/encodeCloseMeta.ts';
import { ledgerToBatch } from '../ingest/ledgerToBatch.ts';
import { nativeLedgerToBatch } from '../ingest/nativeLedgerToBatch.ts';
import { nativeAvailable } from '../host/native.ts';

/** Ledger metas from this size on are converted to rows by the addon. */
export const NATIVE_CONVERSION_BYTES = 256 * 1024;

/**
 * The addon converts a big ledger several times faster than the JS conversion, which reuses the
 * parts just encoded and wins on small ones (no thread hop, no second parse).
 */
export function closedLedgerBatch(closed: ClosedLedger, encoded: { bytes: Uint8Array; transactions: EncodedTransaction[] }, networkId: Uint8Array): IngestBatch {
  if (encoded.bytes.length >= NATIVE_CONVERSION_BYTES && nativeAvailable()) return nativeLedgerToBatch(encoded.bytes, networkId);
  return ledgerToBatch({
    bytes: encoded.bytes, meta: closed.meta, encodedTransactions: encoded.transactions,
    envelopes: closed.applied.map((f) => f.envelope), envelopeXdrs: closed.applied.map((f) => f.envelopeXdr),
  }, networkId);
}
