// Encodes a standalone ledger's LedgerCloseMeta from parts, so that each transaction's result and
// meta are encoded exactly once: the same bytes go into the ledger's meta and, when the JS
// conversion stores the ledger (no addon), into the transaction rows. The output is byte-for-byte
// what the schema encoder produces; a unit test holds it to that.
import { xdr } from '../xdr/xdr.ts';
import { array, uint64, UNBOUNDED_MAX_LENGTH } from '@stellar/js-xdr';
import { XdrSink, writeXdr } from '../xdr/codec.ts';

const entryChanges = array(xdr.LedgerEntryChange.schema, UNBOUNDED_MAX_LENGTH);
const upgrades = array(xdr.UpgradeEntryMeta.schema, UNBOUNDED_MAX_LENGTH);
const scpHistory = array(xdr.ScpHistoryEntry.schema, UNBOUNDED_MAX_LENGTH);
const ledgerKeys = array(xdr.LedgerKey.schema, UNBOUNDED_MAX_LENGTH);
const stateSize = uint64();
const EXTENSION_POINT_V0 = new Uint8Array(4);

export interface EncodedTransaction {
  result: Uint8Array;   // TransactionResult
  meta: Uint8Array;     // TransactionMeta
}

/** A uint64 in XDR (big-endian); also core's subSha256 seed derivation. */
export function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

/**
 * `txSetXdr` is the encoded `meta.txSet` (the close already encoded it to hash it). Pauses (yields)
 * after each transaction, like the close itself: a big ledger's meta takes a while to encode. The
 * whole meta is written into one buffer (src/xdr/runtime/fastEncode.ts); each transaction's result
 * and meta are views into it.
 */
export function* encodeCloseMetaSteps(meta: xdr.LedgerCloseMetaV2Wire, txSetXdr: Uint8Array):
  Generator<void, { bytes: Uint8Array; transactions: EncodedTransaction[] }, void> {
  // its own sink: other encodings run between the steps
  const sink = new XdrSink();
  sink.u32(2);
  writeXdr(sink, xdr.LedgerCloseMetaExt.schema, meta.ext);
  writeXdr(sink, xdr.LedgerHeaderHistoryEntry.schema, meta.ledgerHeader);
  sink.raw(txSetXdr);
  sink.u32(meta.txProcessing.length);
  const spans: number[] = [];
  for (const p of meta.txProcessing) {
    if (p.ext.v !== 0) throw new Error('TransactionResultMetaV1 ext v0 expected');
    sink.raw(EXTENSION_POINT_V0);
    writeXdr(sink, xdr.Hash.schema, p.result.transactionHash);
    const resultStart = sink.pos;
    writeXdr(sink, xdr.TransactionResult.schema, p.result.result);
    const resultEnd = sink.pos;
    writeXdr(sink, entryChanges, p.feeProcessing);
    const metaStart = sink.pos;
    writeXdr(sink, xdr.TransactionMeta.schema, p.txApplyProcessing);
    spans.push(resultStart, resultEnd, metaStart, sink.pos);
    writeXdr(sink, entryChanges, p.postTxApplyFeeProcessing);
    yield;
  }
  writeXdr(sink, upgrades, meta.upgradesProcessing);
  writeXdr(sink, scpHistory, meta.scpInfo);
  writeXdr(sink, stateSize, meta.totalByteSizeOfLiveSorobanState);
  writeXdr(sink, ledgerKeys, meta.evictedKeys);
  const bytes = sink.copy();
  const transactions: EncodedTransaction[] = [];
  for (let i = 0; i < spans.length; i += 4) {
    transactions.push({ result: bytes.subarray(spans[i], spans[i + 1]), meta: bytes.subarray(spans[i + 2], spans[i + 3]) });
  }
  return { bytes, transactions };
}
