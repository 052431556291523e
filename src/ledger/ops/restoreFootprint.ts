// RestoreFootprint: brings archived persistent entries of the read-write footprint back to life for
// the minimum persistent TTL, paying their rent from the refundable fee (RestoreFootprintOpFrame).
//
// This network keeps archived entries in its live state (there is no hot archive to evict them to),
// so a restore renews the TTL of an entry whose TTL has lapsed.
import type { xdr } from '@stellar/stellar-sdk';
import { encodeLedgerEntry } from '../../xdr/codec.ts';
import { ttlKeyFor } from '../../xdr/ledgerKeys.ts';
import { entryTooLarge, isPersistentKey, ttlEntry } from '../soroban/context.ts';
import type { RentChange } from '../../host/native.ts';
import { failWith, succeed } from './accounts.ts';
import type { OpHandler, OpOutcome } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 26 }>;

const result = (code: xdr.RestoreFootprintResultWire['code']): OpOutcome => {
  const tr: xdr.OperationResultTrWire = { type: 26, restoreFootprintResult: { code } as xdr.RestoreFootprintResultWire };
  return code === 0 ? succeed(tr) : failWith(tr);
};
const MALFORMED = -1;
const RESOURCE_LIMIT_EXCEEDED = -2;
const INSUFFICIENT_REFUNDABLE_FEE = -3;

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
      const bytes = encodeLedgerEntry(entry);
      readBytes += bytes.length;
      writeBytes += bytes.length;
      if (readBytes > resources.diskReadBytes || writeBytes > resources.writeBytes) return result(RESOURCE_LIMIT_EXCEEDED);
      if (entryTooLarge(key, bytes.length, s.config)) return result(RESOURCE_LIMIT_EXCEEDED);
      changes.push({
        isPersistent: true, isCodeEntry: key.type === 7, oldSizeBytes: 0, newSizeBytes: s.host.entrySizeForRent(bytes),
        oldLiveUntilLedger: 0, newLiveUntilLedger: restoredLiveUntil,
      });
      ltx.update(ttlEntry(ttlKey.ttl.keyHash, restoredLiveUntil));
    }
    const rent = BigInt(s.host.rentFee(changes, ledger.ledgerSeq));
    if (!s.fees.consume(0, rent, s.refundableFeeFor)) return result(INSUFFICIENT_REFUNDABLE_FEE);
    return result(0);
  },
};
