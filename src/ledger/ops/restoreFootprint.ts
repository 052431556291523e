// RestoreFootprint: brings archived persistent entries of the read-write footprint back to life for
// the minimum persistent TTL, paying their rent from the refundable fee (RestoreFootprintOpFrame).
//
// An entry whose TTL lapsed but was not evicted yet gets a new TTL; one evicted to the hot archive
// (stored without a TTL) is written back with a new one.
import type { xdr } from '../../xdr/xdr.ts';
import { encodeLedgerEntry } from '../../xdr/codec.ts';
import { isPersistentKey, ttlKeyFor } from '../../xdr/ledgerKeys.ts';
import { entrySizeProblem, ttlEntry } from '../soroban/context.ts';
import type { RentChange } from '../../host/native.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler, OpOutcome } from './types.ts';
import { budgetExceeded, networkErrorEvent, type NetworkError } from '../soroban/diagnostics.ts';
import type { SorobanOpContext } from '../soroban/context.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 26 }>;

const result = resultMaker<xdr.RestoreFootprintResultWire['code']>(26, 'restoreFootprintResult');
const MALFORMED = -1;
const RESOURCE_LIMIT_EXCEEDED = -2;
const INSUFFICIENT_REFUNDABLE_FEE = -3;

/** Fails with `code`, recording core's diagnostic error for it. */
const failure = (s: SorobanOpContext, code: typeof RESOURCE_LIMIT_EXCEEDED | typeof INSUFFICIENT_REFUNDABLE_FEE, error: NetworkError): OpOutcome => {
  s.diagnosticEvents.push(networkErrorEvent(error));
  return result(code);
};

export const restoreFootprint: OpHandler<Body> = {
  threshold: () => 'low',

  checkValid(_body, ctx) {
    const s = ctx.soroban;
    if (!s) return null;
    const { footprint } = s.data.resources;
    if (footprint.readOnly.length > 0 || !footprint.readWrite.every(isPersistentKey)) return result(MALFORMED);
    return null;
  },

  apply(_body, ctx) {
    const s = ctx.soroban;
    if (!s) return result(MALFORMED);
    const { ltx, ledger } = ctx;
    const { resources } = s.data;
    const restoredLiveUntil = ledger.ledgerSeq + s.config.minPersistentTtl - 1;
    const changes: RentChange[] = [];
    let readBytes = 0;
    let writeBytes = 0;
    for (const key of resources.footprint.readWrite) {
      const entry = ltx.load(key);
      if (!entry) continue;
      const ttlKey = ttlKeyFor(key);
      const ttl = ltx.load(ttlKey);
      if (ttl && ttl.data.type === 9 && ttl.data.ttl.liveUntilLedgerSeq >= ledger.ledgerSeq) continue;
      const fromHotArchive = !ttl;
      const bytes = encodeLedgerEntry(entry);
      // core's order: read bytes, the entry's size, write bytes
      readBytes += bytes.length;
      if (readBytes > resources.diskReadBytes) {
        return failure(s, RESOURCE_LIMIT_EXCEEDED, budgetExceeded('operation byte-read resources exceeds amount specified', readBytes, resources.diskReadBytes));
      }
      const tooLarge = entrySizeProblem(key, bytes.length, s.config);
      if (tooLarge) return failure(s, RESOURCE_LIMIT_EXCEEDED, tooLarge);
      writeBytes += bytes.length;
      if (writeBytes > resources.writeBytes) {
        return failure(s, RESOURCE_LIMIT_EXCEEDED, budgetExceeded('operation byte-write resources exceeds amount specified', writeBytes, resources.writeBytes));
      }
      changes.push({
        isPersistent: true, isCodeEntry: key.type === 7, oldSizeBytes: 0, newSizeBytes: s.host.entrySizeForRent(bytes),
        oldLiveUntilLedger: 0, newLiveUntilLedger: restoredLiveUntil,
      });
      const restoredTtl = ttlEntry(ttlKey.ttl.keyHash, restoredLiveUntil);
      ltx.update(restoredTtl);
      // back from the hot archive, the entry is written again (stamped with this ledger)
      if (fromHotArchive) ltx.update(entry);
      s.restores.push({ key, entry, ttl: restoredTtl });
    }
    const rent = BigInt(s.host.rentFee(changes, ledger.ledgerSeq));
    const feeShort = s.fees.consume(0, rent, s.refundableFeeFor);
    if (feeShort) return failure(s, INSUFFICIENT_REFUNDABLE_FEE, feeShort);
    return result(0);
  },
};
