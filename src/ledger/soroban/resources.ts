// Soroban transaction-level validity and resource fees, after stellar-core's
// TransactionFrame::checkSorobanResources and computePreApplySorobanResourceFee. The fee arithmetic
// itself is the host's (native `resourceFee`), so it is the network's to the stroop.
import { xdr } from '../../xdr/xdr.ts';
import { encodeLedgerKey } from '../../xdr/codec.ts';
import { isPersistentKey, isSorobanKey, keyId } from '../../xdr/ledgerKeys.ts';
import type { NativeSorobanApplier, ResourceUse } from '../../host/native.ts';
import type { TransactionFrame } from '../transactionFrame.ts';
import type { SorobanNetworkConfig } from './networkConfig.ts';
import { isAssetValid, isIssuer } from '../assets.ts';
import { ErrorCode, ErrorType, limitExceeded, type NetworkError } from './diagnostics.ts';
import { u64Val } from '../../xdr/scVals.ts';

/** What the engine needs to validate and apply Soroban transactions. */
export interface SorobanEnv {
  config: SorobanNetworkConfig;
  host: NativeSorobanApplier;
}

/** MAX_RESOURCE_FEE in core: 2^50 stroops. */
const MAX_RESOURCE_FEE = 1n << 50n;

/**
 * The size the network charges for: the (inner) transaction as a plain V1 envelope, which is what a
 * fee bump wraps and what simulation estimated.
 */
export function chargedTransactionSize(frame: TransactionFrame): number {
  if (!frame.feeBump && frame.envelopeXdr) return frame.envelopeXdr.length;
  if (!frame.feeBump) return xdr.TransactionEnvelope.schema.encode(frame.envelope).length;
  return xdr.TransactionEnvelope.schema.encode({ type: 2, v1: { tx: frame.tx, signatures: frame.signatures } }).length;
}

/** Disk reads in protocol 23+: classic entries and the archived entries to restore; every key for RestoreFootprint. */
function diskReadEntries(frame: TransactionFrame, data: xdr.SorobanTransactionDataWire): number {
  const { readOnly, readWrite } = data.resources.footprint;
  if (frame.tx.operations[0]?.body.type === 26) return readWrite.length;
  const classic = [...readOnly, ...readWrite].filter((k) => !isSorobanKey(k)).length;
  return classic + (data.ext.v === 1 ? data.ext.resourceExt.archivedSorobanEntries.length : 0);
}

/** The declared resources (no events yet), as the fee functions take them. */
export function resourceUse(frame: TransactionFrame, data: xdr.SorobanTransactionDataWire): ResourceUse {
  const r = data.resources;
  return {
    instructions: r.instructions,
    diskReadEntries: diskReadEntries(frame, data),
    writeEntries: r.footprint.readWrite.length,
    diskReadBytes: r.diskReadBytes,
    writeBytes: r.writeBytes,
    contractEventsSizeBytes: 0,
    transactionSizeBytes: chargedTransactionSize(frame),
  };
}

/** Resource fee due before apply (no events yet): [non-refundable, refundable]. */
export function preApplyResourceFee(frame: TransactionFrame, data: xdr.SorobanTransactionDataWire, host: NativeSorobanApplier): [bigint, bigint] {
  const fee = host.resourceFee(resourceUse(frame, data));
  return [BigInt(fee.nonRefundable), BigInt(fee.refundable)];
}

/** core's footprintKeyIsValid: the error for a key a Soroban footprint may not hold, if any. */
function footprintKeyProblem(key: xdr.LedgerKeyWire, config: SorobanNetworkConfig): NetworkError | undefined {
  switch (key.type) {
    case 0: case 6: case 7: break; // account, contract data, contract code
    case 1: {
      const { asset, accountId } = key.trustLine;
      // pool-share trustlines are allowed; a credit-asset line must be valid and not the issuer's
      if (asset.type === 0 || (asset.type !== 3 && !isAssetValid(asset)) || isIssuer(accountId, asset)) {
        return { type: ErrorType.STORAGE, code: ErrorCode.INVALID_INPUT, message: 'transaction footprint contains invalid trustline asset' };
      }
      break;
    }
    default:
      return {
        type: ErrorType.STORAGE, code: ErrorCode.UNEXPECTED_TYPE,
        message: 'transaction footprint contains unsupported ledger key type', args: [u64Val(key.type)],
      };
  }
  return overLimit(encodeLedgerKey(key).length, config.maxContractDataKeySizeBytes, ErrorType.STORAGE, 'transaction footprint key exceeds network config limit');
}

/** A limit check: the error when `value` is over `max`. */
function overLimit(value: number | bigint, max: number | bigint, type: number, message: string): NetworkError | undefined {
  return value > max ? limitExceeded(type, message, value, max) : undefined;
}

/** core's checkSorobanResources: the declared resources against the network limits. */
function resourcesProblem(frame: TransactionFrame, data: xdr.SorobanTransactionDataWire, config: SorobanNetworkConfig): NetworkError | undefined {
  const r = data.resources;
  const { readOnly, readWrite } = r.footprint;
  const limit = overLimit(r.instructions, config.txMaxInstructions, ErrorType.BUDGET, 'transaction instructions resources exceed network config limit')
    ?? overLimit(r.diskReadBytes, config.txMaxDiskReadBytes, ErrorType.STORAGE, 'transaction byte-read resources exceed network config limit')
    ?? overLimit(r.writeBytes, config.txMaxWriteBytes, ErrorType.STORAGE, 'transaction byte-write resources exceed network config limit')
    ?? overLimit(readOnly.length + readWrite.length, config.txMaxFootprintEntries, ErrorType.STORAGE,
      'the number of entries in transaction footprint exceeds the network config limit')
    ?? overLimit(diskReadEntries(frame, data), config.txMaxDiskReadEntries, ErrorType.STORAGE, 'transaction entry-disk-read resources exceed network config limit')
    ?? overLimit(readWrite.length, config.txMaxWriteLedgerEntries, ErrorType.STORAGE, 'transaction entry-write resources exceed network config limit');
  if (limit) return limit;
  for (const key of [...readOnly, ...readWrite]) {
    const problem = footprintKeyProblem(key, config);
    if (problem) return problem;
  }
  const size = overLimit(chargedTransactionSize(frame), config.txMaxSizeBytes, ErrorType.BUDGET, 'total transaction size exceeds network config limit');
  if (size) return size;
  if (data.ext.v === 1) {
    const indices = data.ext.resourceExt.archivedSorobanEntries;
    for (let i = 0; i < indices.length; i++) {
      const idx = indices[i];
      if (i > 0 && idx <= indices[i - 1]) {
        return { type: ErrorType.STORAGE, code: ErrorCode.INVALID_INPUT, message: 'archivedSorobanEntries must be sorted in ascending order' };
      }
      if (idx >= readWrite.length) {
        return {
          type: ErrorType.STORAGE, code: ErrorCode.INVALID_INPUT,
          message: 'archivedSorobanEntries index is out of bounds', args: [u64Val(idx), u64Val(readWrite.length)],
        };
      }
      if (!isPersistentKey(readWrite[idx])) {
        return {
          type: ErrorType.STORAGE, code: ErrorCode.INVALID_INPUT,
          message: 'archivedSorobanEntries index points to a non-persistent entry', args: [u64Val(idx), u64Val(readWrite[idx].type)],
        };
      }
    }
  }
  return undefined;
}

export interface SorobanCheckFailure {
  code: 'malformed' | 'soroban_invalid';
  /** What core reports with the failure (txSOROBAN_INVALID ones). */
  error?: NetworkError;
}

/**
 * Checks a Soroban transaction's envelope against the network limits, in stellar-core's order
 * (commonValidPreSeqNum): `malformed` (txMALFORMED) or `soroban_invalid` (txSOROBAN_INVALID, with
 * core's diagnostic error). The inclusion fee is checked by the caller, after the time bounds, as
 * core does. `chargeFee` is false for the inner transaction of a fee bump.
 */
export function checkSorobanTransaction(frame: TransactionFrame, env: SorobanEnv, chargeFee: boolean): SorobanCheckFailure | null {
  const data = frame.sorobanData;
  const { config } = env;
  if (!data || data.resourceFee < 0n || data.resourceFee > MAX_RESOURCE_FEE) return { code: 'malformed' };
  if (frame.envelope.type === 0) return { code: 'malformed' };

  const invalid = (error: NetworkError): SorobanCheckFailure => ({ code: 'soroban_invalid', error });
  const resources = resourcesProblem(frame, data, config);
  if (resources) return invalid(resources);

  const fullFee = BigInt(frame.tx.fee);
  if (chargeFee && data.resourceFee > fullFee) {
    return invalid(limitExceeded(ErrorType.STORAGE, 'transaction `sorobanData.resourceFee` is higher than the full transaction fee', data.resourceFee, fullFee));
  }
  const [nonRefundable, refundable] = preApplyResourceFee(frame, data, env.host);
  if (data.resourceFee < nonRefundable + refundable) {
    // the declared fee first, then what the resources need (the "limit" it falls short of)
    return invalid(limitExceeded(ErrorType.STORAGE, 'transaction `sorobanData.resourceFee` is lower than the actual Soroban resource fee',
      data.resourceFee, nonRefundable + refundable));
  }
  // every key once, across both footprints (which also keeps them disjoint)
  const seen = new Set<string>();
  for (const key of [...data.resources.footprint.readOnly, ...data.resources.footprint.readWrite]) {
    const id = keyId(key);
    if (seen.has(id)) {
      return invalid({
        type: ErrorType.STORAGE, code: ErrorCode.INVALID_INPUT,
        message: 'Found duplicate key in the Soroban footprint; every key across read-only and read-write footprints has to be unique.',
      });
    }
    seen.add(id);
  }
  return null;
}

/**
 * stellar-core's transaction-queue rule for Soroban memos (validateSorobanMemo): an
 * InvokeHostFunction transaction whose authorization is not all the source account's must carry no
 * memo and no muxed source. Checked at submission only (not when applying) and not for fee bumps,
 * as core does.
 */
export function sorobanMemoProblem(frame: TransactionFrame): NetworkError | undefined {
  if (frame.envelope.type !== 2 || frame.tx.operations.length !== 1) return undefined;
  const op = frame.tx.operations[0];
  if (op.body.type !== 24) return undefined;
  if (op.body.invokeHostFunctionOp.auth.every((a) => a.credentials.type === 0)) return undefined;
  const muxedSource = frame.tx.sourceAccount.type !== 0 || (op.sourceAccount !== null && op.sourceAccount !== undefined && op.sourceAccount.type !== 0);
  if (frame.tx.memo.type === 0 && !muxedSource) return undefined;
  return { type: ErrorType.CONTEXT, code: ErrorCode.INVALID_INPUT, message: 'non-source auth Soroban tx uses memo or muxed source account' };
}
