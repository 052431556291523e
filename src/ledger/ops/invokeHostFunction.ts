// InvokeHostFunction: runs a contract call (or a Wasm upload, or a contract creation) in the Soroban
// host, the way stellar-core's InvokeHostFunctionOpFrame does: load the footprint (auto-restoring
// archived entries the transaction lists), let the host run, write back what it changed, and charge
// rent and events to the refundable fee.
import { xdr } from '@stellar/stellar-sdk';
import { decodeLedgerEntry, encodeLedgerEntry, sha256 } from '../../xdr/codec.ts';
import { keyId, ledgerKeyOf, ttlKeyFor } from '../../xdr/ledgerKeys.ts';
import { entryTooLarge, isPersistentKey, isSorobanKey, ttlEntry } from '../soroban/context.ts';
import { failWith, isAssetValid, succeed } from './accounts.ts';
import type { OpHandler, OpOutcome } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 24 }>;

const INVOKE_HOST_FUNCTION = {
  SUCCESS: 0, MALFORMED: -1, TRAPPED: -2, RESOURCE_LIMIT_EXCEEDED: -3, ENTRY_ARCHIVED: -4, INSUFFICIENT_REFUNDABLE_FEE: -5,
} as const;

const failed = (code: Exclude<xdr.InvokeHostFunctionResultWire['code'], 0>): OpOutcome =>
  failWith({ type: 24, invokeHostFunctionResult: { code } as xdr.InvokeHostFunctionResultWire });

export const invokeHostFunction: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body, ctx) {
    const fn = body.invokeHostFunctionOp.hostFunction;
    const config = ctx.soroban?.config;
    if (config && fn.type === 2 && fn.wasm.length > config.maxContractSizeBytes) return failed(INVOKE_HOST_FUNCTION.MALFORMED);
    if (fn.type === 1 || fn.type === 3) {
      const preimage = fn.type === 1 ? fn.createContract.contractIdPreimage : fn.createContractV2.contractIdPreimage;
      if (preimage.type === 1 && !isAssetValid(preimage.fromAsset)) return failed(INVOKE_HOST_FUNCTION.MALFORMED);
    }
    return null;
  },

  apply(body, ctx) {
    const s = ctx.soroban;
    if (!s) return failed(INVOKE_HOST_FUNCTION.MALFORMED);
    const { ltx, ledger } = ctx;
    const { resources } = s.data;
    const { readOnly, readWrite } = resources.footprint;
    const autoRestore = new Set(s.data.ext.v === 1 ? s.data.ext.resourceExt.archivedSorobanEntries : []);

    const entries: Array<{ entry?: Uint8Array; liveUntil?: number }> = [];
    const restoredIndices: number[] = [];
    let diskReadBytes = 0;
    const keys = [...readOnly, ...readWrite];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const rwIndex = i - readOnly.length;
      const entry = ltx.load(key);
      if (!isSorobanKey(key)) {
        if (!entry) { entries.push({}); continue; }
        const bytes = encodeLedgerEntry(entry);
        diskReadBytes += bytes.length;
        entries.push({ entry: bytes });
        continue;
      }
      const ttl = ltx.load(ttlKeyFor(key));
      if (!entry || !ttl || ttl.data.type !== 9) { entries.push({}); continue; }
      const bytes = encodeLedgerEntry(entry);
      if (entryTooLarge(key, bytes.length, s.config)) return failed(INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED);
      let liveUntil = ttl.data.ttl.liveUntilLedgerSeq;
      if (liveUntil < ledger.ledgerSeq) {
        if (!isPersistentKey(key)) { entries.push({}); continue; } // expired temporary data is gone
        if (rwIndex < 0 || !autoRestore.has(rwIndex)) {
          s.diagnosticEvents.push(archivedEntryEvent(key));
          return failed(INVOKE_HOST_FUNCTION.ENTRY_ARCHIVED);
        }
        liveUntil = ledger.ledgerSeq + s.config.minPersistentTtl - 1;
        ltx.update(ttlEntry(ttl.data.ttl.keyHash, liveUntil));
        diskReadBytes += bytes.length;
        restoredIndices.push(rwIndex);
      }
      entries.push({ entry: bytes, liveUntil });
    }
    if (diskReadBytes > resources.diskReadBytes) return failed(INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED);

    const op = body.invokeHostFunctionOp;
    const out = s.host.invoke({
      hostFunction: xdr.HostFunction.schema.encode(op.hostFunction),
      resources: xdr.SorobanResources.schema.encode(resources),
      restoredRwEntryIndices: restoredIndices,
      sourceAccount: xdr.AccountId.schema.encode(ctx.source),
      authEntries: op.auth.map((a) => xdr.SorobanAuthorizationEntry.schema.encode(a)),
      ledger: {
        sequence: ledger.ledgerSeq, timestamp: Number(ledger.closeTime), protocolVersion: ledger.protocolVersion,
        baseReserve: ledger.baseReserve, networkId: ledger.networkId,
      },
      entries,
      prngSeed: s.prngSeed,
      enableDiagnostics: true,
    });
    for (const d of out.diagnosticEvents) s.diagnosticEvents.push(xdr.DiagnosticEvent.schema.decode(d));
    if (out.failure) {
      return failed(out.failure === 'resource_limit_exceeded' ? INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED : INVOKE_HOST_FUNCTION.TRAPPED);
    }

    // Write back: every entry the host returned, then delete the read-write keys it did not return.
    let writeBytes = 0;
    const kept = new Set<string>();
    for (const bytes of out.modifiedEntries) {
      const entry = decodeLedgerEntry(bytes);
      const key = ledgerKeyOf(entry.data);
      if (entry.data.type !== 9) {
        if (entryTooLarge(key, bytes.length, s.config)) return failed(INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED);
        writeBytes += bytes.length;
        kept.add(keyId(key));
      }
      ltx.update(entry);
    }
    if (writeBytes > resources.writeBytes) return failed(INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED);
    for (const key of readWrite) {
      if (kept.has(keyId(key)) || !ltx.exists(key)) continue;
      ltx.erase(key);
      if (!isSorobanKey(key)) continue;
      const ttlKey = ttlKeyFor(key);
      if (ltx.exists(ttlKey)) ltx.erase(ttlKey);
    }

    const returnValue = out.returnValue!;
    const eventsBytes = out.contractEvents.reduce((n, e) => n + e.length, 0) + returnValue.length;
    if (eventsBytes > s.config.txMaxContractEventsSizeBytes) return failed(INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED);
    if (!s.fees.consume(eventsBytes, BigInt(out.rentFee), s.refundableFeeFor)) return failed(INVOKE_HOST_FUNCTION.INSUFFICIENT_REFUNDABLE_FEE);

    const events = out.contractEvents.map((e) => xdr.ContractEvent.schema.decode(e));
    ctx.events.push(...events);
    s.returnValue = xdr.ScVal.schema.decode(returnValue);
    const success = sha256(xdr.InvokeHostFunctionSuccessPreImage.schema.encode({ returnValue: s.returnValue, events }));
    return succeed({ type: 24, invokeHostFunctionResult: { code: 0, success } });
  },
};

/** The diagnostic core adds when a transaction touches an archived entry it did not mark for restore. */
function archivedEntryEvent(key: xdr.LedgerKeyWire): xdr.DiagnosticEventWire {
  const what = key.type === 7 ? 'trying to access an archived contract code entry' : 'trying to access an archived contract data entry';
  return {
    inSuccessfulContractCall: false,
    event: {
      ext: { v: 0 }, contractId: null, type: 2,
      body: { v: 0, v0: { topics: [{ type: 15, sym: new xdr.XdrString('error') }, { type: 2, error: { type: 1, code: 3 } as xdr.ScErrorWire }], data: { type: 14, str: new xdr.XdrString(what) } } },
    },
  };
}
