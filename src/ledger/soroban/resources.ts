// Soroban transaction-level validity and resource fees, after stellar-core's
// TransactionFrame::checkSorobanResources and computePreApplySorobanResourceFee. The fee arithmetic
// itself is the host's (native `resourceFee`), so it is the network's to the stroop.
import { xdr } from '@stellar/stellar-sdk';
import { encodeLedgerKey } from '../../xdr/codec.ts';
import { keyId } from '../../xdr/ledgerKeys.ts';
import type { NativeSorobanApplier, ResourceUse } from '../../host/native.ts';
import type { TransactionFrame } from '../transactionFrame.ts';
import type { SorobanNetworkConfig } from './networkConfig.ts';
import { isPersistentKey, isSorobanKey } from './context.ts';
import { isAssetValid, isIssuer } from '../ops/accounts.ts';

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

/** A trustline key the footprint may name: a valid credit-asset line of an account that is not its issuer. */
const validTrustlineKey = (key: Extract<xdr.LedgerKeyWire, { type: 1 }>): boolean =>
  (key.trustLine.asset.type === 1 || key.trustLine.asset.type === 2) && isAssetValid(key.trustLine.asset)
  && !isIssuer(key.trustLine.accountId, key.trustLine.asset);

export type SorobanCheck = { code: 'malformed' | 'soroban_invalid' | 'insufficient_fee' } | null;

/**
 * Checks a Soroban transaction's envelope against the network limits: `malformed` (txMALFORMED),
 * `soroban_invalid` (txSOROBAN_INVALID), or `insufficient_fee` when the inclusion fee is below the
 * base fee. `chargeFee` is false for the inner transaction of a fee bump.
 */
export function checkSorobanTransaction(frame: TransactionFrame, env: SorobanEnv, baseFee: number, chargeFee: boolean, applying: boolean): SorobanCheck {
  const data = frame.sorobanData;
  const { config } = env;
  if (!data || data.resourceFee < 0n || data.resourceFee > MAX_RESOURCE_FEE) return { code: 'malformed' };
  if (frame.envelope.type === 0) return { code: 'malformed' };
  const muxed = frame.tx.sourceAccount.type !== 0 || frame.tx.operations.some((op) => op.sourceAccount && op.sourceAccount.type !== 0);
  if (frame.tx.memo.type !== 0 || muxed) return { code: 'soroban_invalid' };

  const r = data.resources;
  const { readOnly, readWrite } = r.footprint;
  if (BigInt(r.instructions) > config.txMaxInstructions || r.diskReadBytes > config.txMaxDiskReadBytes
    || r.writeBytes > config.txMaxWriteBytes || readOnly.length + readWrite.length > config.txMaxFootprintEntries
    || diskReadEntries(frame, data) > config.txMaxDiskReadEntries || readWrite.length > config.txMaxWriteLedgerEntries) {
    return { code: 'soroban_invalid' };
  }
  const seen = new Set<string>();
  for (const key of [...readOnly, ...readWrite]) {
    const allowed = key.type === 0 || key.type === 6 || key.type === 7 || (key.type === 1 && validTrustlineKey(key));
    if (!allowed || encodeLedgerKey(key).length > config.maxContractDataKeySizeBytes) return { code: 'soroban_invalid' };
    const id = keyId(key);
    if (seen.has(id)) return { code: 'soroban_invalid' };
    seen.add(id);
  }
  if (chargedTransactionSize(frame) > config.txMaxSizeBytes) return { code: 'soroban_invalid' };
  if (data.ext.v === 1) {
    const indices = data.ext.resourceExt.archivedSorobanEntries;
    for (let i = 0; i < indices.length; i++) {
      const idx = indices[i];
      if ((i > 0 && idx <= indices[i - 1]) || idx >= readWrite.length || !isPersistentKey(readWrite[idx])) return { code: 'soroban_invalid' };
    }
  }

  if (chargeFee && data.resourceFee > BigInt(frame.tx.fee)) return { code: 'soroban_invalid' };
  const [nonRefundable, refundable] = preApplyResourceFee(frame, data, env.host);
  if (data.resourceFee < nonRefundable + refundable) return { code: 'soroban_invalid' };
  if (chargeFee && !applying && BigInt(frame.tx.fee) - data.resourceFee < BigInt(baseFee) * BigInt(frame.tx.operations.length)) {
    return { code: 'insufficient_fee' };
  }
  return null;
}
