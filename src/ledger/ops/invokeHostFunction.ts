// InvokeHostFunction: runs a contract call (or a Wasm upload, or a contract creation) in the Soroban
// host, the way stellar-core's InvokeHostFunctionOpFrame does: load the footprint (auto-restoring
// archived entries the transaction lists), let the host run, write back what it changed, and charge
// rent and events to the refundable fee.
import { xdr } from '../../xdr/xdr.ts';
import { decodeLedgerEntry, encodeLedgerEntry, sha256, toHex } from '../../xdr/codec.ts';
import { isImpersonatedAccount, signForImpersonated, withImpersonationSigner, withRealSigners } from '../impersonation.ts';
import { isPersistentKey, isSorobanKey, keyId, ledgerKeyOf, ttlKeyFor } from '../../xdr/ledgerKeys.ts';
import { entrySizeProblem, ttlEntry } from '../soroban/context.ts';
import { isAssetValid } from '../assets.ts';
import { failWith, succeed } from './opResult.ts';
import type { OpHandler, OpOutcome } from './types.ts';
import { budgetExceeded, ErrorCode, ErrorType, networkErrorEvent, type NetworkError } from '../soroban/diagnostics.ts';
import { addressVal, bytesVal } from '../../xdr/scVals.ts';

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
    /** Fails with `code`, recording core's diagnostic error for it. */
    const fail = (code: Exclude<xdr.InvokeHostFunctionResultWire['code'], 0>, error: NetworkError | undefined): OpOutcome => {
      if (error) s.diagnosticEvents.push(networkErrorEvent(error));
      return failed(code);
    };
    const LIMIT = INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED;

    // Loads the footprint in core's order (read-only, then read-write), with its checks as it goes.
    // Since protocol 23 only classic entries and auto-restored ones count as disk reads.
    const entries: Array<{ entry?: Uint8Array; liveUntil?: number }> = [];
    const restoredIndices: number[] = [];
    let diskReadBytes = 0;
    const readDisk = (bytes: number): NetworkError | undefined => {
      diskReadBytes += bytes;
      return diskReadBytes > resources.diskReadBytes
        ? budgetExceeded('operation byte-read resources exceeds amount specified', diskReadBytes, resources.diskReadBytes) : undefined;
    };
    const keys = [...readOnly, ...readWrite];
    const impersonated = ledger.impersonated && ledger.impersonated.size > 0 ? ledger.impersonated : undefined;
    /** Impersonated accounts the host is shown with the engine's signer: their real entries, by public key. */
    const realAccounts = new Map<string, xdr.AccountEntryWire>();
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const rwIndex = i - readOnly.length;
      const entry = ltx.load(key);
      if (!isSorobanKey(key)) {
        if (!entry) { entries.push({}); continue; }
        const bytes = encodeLedgerEntry(entry);
        const overRead = readDisk(bytes.length);
        if (overRead) return fail(LIMIT, overRead);
        if (entry.data.type === 0 && isImpersonatedAccount(entry.data, impersonated)) {
          const account = entry.data.account;
          realAccounts.set(toHex(account.accountId.ed25519), account);
          entries.push({ entry: encodeLedgerEntry({ ...entry, data: { type: 0, account: withImpersonationSigner(account) } }) });
          continue;
        }
        entries.push({ entry: bytes });
        continue;
      }
      const ttlKey = ttlKeyFor(key);
      const ttl = ltx.load(ttlKey);
      if (!entry || (ttl && ttl.data.type !== 9)) { entries.push({}); continue; }
      const bytes = encodeLedgerEntry(entry);
      // no TTL: a persistent entry evicted to the hot archive
      let liveUntil = ttl?.data.type === 9 ? ttl.data.ttl.liveUntilLedgerSeq : 0;
      if (liveUntil < ledger.ledgerSeq) {
        if (!isPersistentKey(key)) { entries.push({}); continue; } // expired temporary data is gone
        if (rwIndex < 0 || !autoRestore.has(rwIndex)) return fail(INVOKE_HOST_FUNCTION.ENTRY_ARCHIVED, archivedEntryError(key));
        const problem = entrySizeProblem(key, bytes.length, s.config) ?? readDisk(bytes.length);
        if (problem) return fail(LIMIT, problem);
        liveUntil = ledger.ledgerSeq + s.config.minPersistentTtl - 1;
        const restoredTtl = ttlEntry(ttlKey.ttl.keyHash, liveUntil);
        ltx.update(restoredTtl);
        s.restores.push({ key, entry, ttl: restoredTtl });
        restoredIndices.push(rwIndex);
      } else {
        const tooLarge = entrySizeProblem(key, bytes.length, s.config);
        if (tooLarge) return fail(LIMIT, tooLarge);
      }
      entries.push({ entry: bytes, liveUntil });
    }

    const op = body.invokeHostFunctionOp;
    const out = s.host.invoke({
      hostFunction: xdr.HostFunction.schema.encode(op.hostFunction),
      resources: xdr.SorobanResources.schema.encode(resources),
      restoredRwEntryIndices: restoredIndices,
      sourceAccount: xdr.AccountId.schema.encode(ctx.source),
      authEntries: op.auth.map((a) => xdr.SorobanAuthorizationEntry.schema.encode(impersonated ? signForImpersonated(a, ledger.networkId, impersonated, ledger.ledgerSeq) : a)),
      ledger: {
        sequence: ledger.ledgerSeq, timestamp: Number(ledger.closeTime), protocolVersion: ledger.protocolVersion,
        baseReserve: ledger.baseReserve, networkId: ledger.networkId,
      },
      entries,
      prngSeed: s.prngSeed,
      enableDiagnostics: true,
      ...(s.hostRuns ? { trace: true } : {}),
    });
    const diagnostics = out.diagnosticEvents.map((d) => xdr.DiagnosticEvent.schema.decode(d));
    s.hostRuns?.push({ result: out, diagnostics });
    s.diagnosticEvents.push(...diagnostics);
    if (out.failure) {
      if (out.failure !== 'resource_limit_exceeded') return failed(INVOKE_HOST_FUNCTION.TRAPPED); // the host's events say why
      return fail(LIMIT, out.cpuInsns > resources.instructions
        ? budgetExceeded('operation instructions exceeds amount specified', out.cpuInsns, resources.instructions)
        : budgetExceeded('operation memory usage exceeds network config limit', out.memBytes, s.config.txMemoryLimit));
    }

    // Write back: every entry the host returned, then delete the read-write keys it did not return.
    let writeBytes = 0;
    const kept = new Set<string>();
    for (const hostBytes of out.modifiedEntries) {
      let entry = decodeLedgerEntry(hostBytes);
      let bytes: Uint8Array = hostBytes;
      const real = entry.data.type === 0 ? realAccounts.get(toHex(entry.data.account.accountId.ed25519)) : undefined;
      if (real && entry.data.type === 0) {
        // an impersonated account goes back to the ledger with its real signers
        entry = { ...entry, data: { type: 0, account: withRealSigners(entry.data.account, real) } };
        bytes = encodeLedgerEntry(entry);
      }
      const key = ledgerKeyOf(entry.data);
      if (entry.data.type !== 9) {
        const tooLarge = entrySizeProblem(key, bytes.length, s.config);
        if (tooLarge) return fail(LIMIT, tooLarge);
        writeBytes += bytes.length;
        if (writeBytes > resources.writeBytes) {
          return fail(LIMIT, budgetExceeded('operation byte-write resources exceeds amount specified', writeBytes, resources.writeBytes));
        }
        kept.add(keyId(key));
      }
      ltx.update(entry);
    }
    for (const key of readWrite) {
      if (kept.has(keyId(key)) || !ltx.exists(key)) continue;
      ltx.erase(key);
      if (!isSorobanKey(key)) continue;
      const ttlKey = ttlKeyFor(key);
      if (ltx.exists(ttlKey)) ltx.erase(ttlKey);
    }

    const returnValue = out.returnValue!;
    const maxEvents = s.config.txMaxContractEventsSizeBytes;
    let eventsBytes = 0;
    for (const e of out.contractEvents) {
      eventsBytes += e.length;
      if (eventsBytes > maxEvents) return fail(LIMIT, budgetExceeded('total events size exceeds network config maximum', eventsBytes, maxEvents));
    }
    eventsBytes += returnValue.length;
    if (eventsBytes > maxEvents) {
      return fail(LIMIT, budgetExceeded('return value pushes events size above network config maximum', eventsBytes, maxEvents));
    }
    const feeShort = s.fees.consume(eventsBytes, BigInt(out.rentFee), s.refundableFeeFor);
    if (feeShort) return fail(INVOKE_HOST_FUNCTION.INSUFFICIENT_REFUNDABLE_FEE, feeShort);

    const events = out.contractEvents.map((e) => xdr.ContractEvent.schema.decode(e));
    ctx.events.push(...events);
    s.returnValue = xdr.ScVal.schema.decode(returnValue);
    const success = sha256(xdr.InvokeHostFunctionSuccessPreImage.schema.encode({ returnValue: s.returnValue, events }));
    return succeed({ type: 24, invokeHostFunctionResult: { code: 0, success } });
  },
};

/** The diagnostic core adds when a transaction touches an archived entry it did not mark for restore. */
/** core's apply-time error for a footprint entry that is archived and not marked for restoring. */
function archivedEntryError(key: xdr.LedgerKeyWire): NetworkError {
  const common = { type: ErrorType.VALUE, code: ErrorCode.INVALID_INPUT };
  if (key.type === 7) return { ...common, message: 'trying to access an archived contract code entry', args: [bytesVal(key.contractCode.hash)] };
  const args = key.type === 6 ? [addressVal(key.contractData.contract), key.contractData.key] : [];
  return { ...common, message: 'trying to access an archived contract data entry', args };
}
