// Encodes a standalone ledger's LedgerCloseMeta from parts, so that each transaction's result and
// meta are encoded exactly once: the same bytes go into the ledger's meta and, when the JS
// conversion stores the ledger (no addon), into the transaction rows. The output is byte-for-byte
// what the schema encoder produces; a unit test holds it to that.
import { xdr } from '../xdr/xdr.ts';
import { array, UNBOUNDED_MAX_LENGTH } from '@stellar/js-xdr';

const entryChanges = array(xdr.LedgerEntryChange.schema, UNBOUNDED_MAX_LENGTH);
const upgrades = array(xdr.UpgradeEntryMeta.schema, UNBOUNDED_MAX_LENGTH);
const scpHistory = array(xdr.ScpHistoryEntry.schema, UNBOUNDED_MAX_LENGTH);
const ledgerKeys = array(xdr.LedgerKey.schema, UNBOUNDED_MAX_LENGTH);
const EXTENSION_POINT_V0 = new Uint8Array(4);

export interface EncodedTransaction {
  result: Uint8Array;   // TransactionResult
  meta: Uint8Array;     // TransactionMeta
}

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/** A uint64 in XDR (big-endian); also core's subSha256 seed derivation. */
export function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

/**
 * `txSetXdr` is the encoded `meta.txSet` (the close already encoded it to hash it). Pauses (yields)
 * after each transaction, like the close itself: a big ledger's meta takes a while to encode.
 */
export function* encodeCloseMetaSteps(meta: xdr.LedgerCloseMetaV2Wire, txSetXdr: Uint8Array):
  Generator<void, { bytes: Uint8Array; transactions: EncodedTransaction[] }, void> {
  const transactions: EncodedTransaction[] = [];
  const parts: Uint8Array[] = [
    u32(2),
    xdr.LedgerCloseMetaExt.schema.encode(meta.ext),
    xdr.LedgerHeaderHistoryEntry.schema.encode(meta.ledgerHeader),
    txSetXdr,
    u32(meta.txProcessing.length),
  ];
  for (const p of meta.txProcessing) {
    if (p.ext.v !== 0) throw new Error('TransactionResultMetaV1 ext v0 expected');
    const encoded = { result: xdr.TransactionResult.schema.encode(p.result.result), meta: xdr.TransactionMeta.schema.encode(p.txApplyProcessing) };
    transactions.push(encoded);
    parts.push(EXTENSION_POINT_V0, p.result.transactionHash, encoded.result, entryChanges.encode(p.feeProcessing), encoded.meta,
      entryChanges.encode(p.postTxApplyFeeProcessing));
    yield;
  }
  parts.push(upgrades.encode(meta.upgradesProcessing), scpHistory.encode(meta.scpInfo), u64(meta.totalByteSizeOfLiveSorobanState),
    ledgerKeys.encode(meta.evictedKeys));
  return { bytes: Buffer.concat(parts), transactions };
}
