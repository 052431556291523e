// ExtendFootprintTTL: extends the live-until ledger of every live read-only footprint entry to
// `ledger + extendTo`, paying rent from the refundable fee (stellar-core's ExtendFootprintTTLOpFrame).
import type { xdr } from '../../xdr/xdr.ts';
import { encodeLedgerEntry } from '../../xdr/codec.ts';
import { isPersistentKey, isSorobanKey, ttlKeyFor } from '../../xdr/ledgerKeys.ts';
import { entrySizeProblem, ttlEntry } from '../soroban/context.ts';
import type { RentChange } from '../../host/native.ts';
import { resultMaker } from './opResult.ts';
import type { OpHandler, OpOutcome } from './types.ts';
import { networkErrorEvent, type NetworkError } from '../soroban/diagnostics.ts';
import type { SorobanOpContext } from '../soroban/context.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 25 }>;

const result = resultMaker<xdr.ExtendFootprintTtlResultWire['code']>(25, 'extendFootprintTtlResult');
const MALFORMED = -1;
const RESOURCE_LIMIT_EXCEEDED = -2;
const INSUFFICIENT_REFUNDABLE_FEE = -3;

/** Fails with `code`, recording core's diagnostic error for it. */
const failure = (s: SorobanOpContext, code: typeof RESOURCE_LIMIT_EXCEEDED | typeof INSUFFICIENT_REFUNDABLE_FEE, error: NetworkError): OpOutcome => {
  s.diagnosticEvents.push(networkErrorEvent(error));
  return result(code);
};

export const extendFootprintTtl: OpHandler<Body> = {
  threshold: () => 'low',

  checkValid(body, ctx) {
    const s = ctx.soroban;
    if (!s) return null;
    const { footprint } = s.data.resources;
    if (footprint.readWrite.length > 0 || !footprint.readOnly.every(isSorobanKey)) return result(MALFORMED);
    if (body.extendFootprintTtlOp.extendTo > s.config.maxEntryTtl - 1) return result(MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const s = ctx.soroban;
    if (!s) return result(MALFORMED);
    const { ltx, ledger } = ctx;
    const newLiveUntil = ledger.ledgerSeq + body.extendFootprintTtlOp.extendTo;
    const changes: RentChange[] = [];
    for (const key of s.data.resources.footprint.readOnly) {
      const ttl = ltx.load(ttlKeyFor(key));
      if (!ttl || ttl.data.type !== 9) continue;
      const current = ttl.data.ttl.liveUntilLedgerSeq;
      // archived entries must be restored first; entries already living long enough stay as they are
      if (current < ledger.ledgerSeq || current >= newLiveUntil) continue;
      const entry = ltx.load(key);
      if (!entry) continue;
      const bytes = encodeLedgerEntry(entry);
      const tooLarge = entrySizeProblem(key, bytes.length, s.config);
      if (tooLarge) return failure(s, RESOURCE_LIMIT_EXCEEDED, tooLarge);
      const size = s.host.entrySizeForRent(bytes);
      changes.push({
        isPersistent: isPersistentKey(key), isCodeEntry: key.type === 7,
        oldSizeBytes: size, newSizeBytes: size, oldLiveUntilLedger: current, newLiveUntilLedger: newLiveUntil,
      });
      ltx.update(ttlEntry(ttl.data.ttl.keyHash, newLiveUntil));
    }
    const rent = BigInt(s.host.rentFee(changes, ledger.ledgerSeq));
    const feeShort = s.fees.consume(0, rent, s.refundableFeeFor);
    if (feeShort) return failure(s, INSUFFICIENT_REFUNDABLE_FEE, feeShort);
    return result(0);
  },
};
