// The resource fee in parts, each priced by the host's own fee function (the addon's resourceFee,
// soroban-env-host's compute_transaction_resource_fee): the fee of one resource alone, less the fee
// of none; the fee of none (the historical fee of the result every transaction leaves) is a part of
// its own, `baseline`. Charged amounts come from the transaction's meta and result, never from these
// parts.
import type { NativeSorobanApplier, ResourceUse } from '../host/native.ts';
import type { xdr } from '../xdr/xdr.ts';
import type { TraceFee } from './types.ts';

const NONE: ResourceUse = {
  instructions: 0, diskReadEntries: 0, writeEntries: 0, diskReadBytes: 0, writeBytes: 0, contractEventsSizeBytes: 0, transactionSizeBytes: 0,
};

/** `use`: the declared resources, with the events' actual size (what the events fee is charged on). */
export function feeOf(host: NativeSorobanApplier, use: ResourceUse, declaredResourceFee: bigint, result: xdr.TransactionResultWire,
  meta: xdr.TransactionMetaWire): TraceFee {
  const total = (u: ResourceUse): number => { const f = host.resourceFee(u); return f.nonRefundable + f.refundable; };
  const base = total(NONE);
  const part = (field: keyof ResourceUse): string => String(total({ ...NONE, [field]: use[field] }) - base);
  const charged = result.feeCharged;
  const v1 = meta.v === 4 && meta.v4.sorobanMeta?.ext.v === 1 ? meta.v4.sorobanMeta.ext.v1
    : meta.v === 3 && meta.v3.sorobanMeta?.ext.v === 1 ? meta.v3.sorobanMeta.ext.v1 : undefined;
  const nonRefundable = v1?.totalNonRefundableResourceFeeCharged ?? 0n;
  const refundable = v1?.totalRefundableResourceFeeCharged ?? 0n;
  return {
    declaredResourceFee: String(declaredResourceFee),
    charged: String(charged),
    inclusion: String(charged - nonRefundable - refundable),
    nonRefundable: String(nonRefundable),
    refundable: String(refundable),
    rent: String(v1?.rentFeeCharged ?? 0n),
    parts: {
      baseline: String(base),
      instructions: part('instructions'),
      diskReadEntries: part('diskReadEntries'),
      writeEntries: part('writeEntries'),
      diskReadBytes: part('diskReadBytes'),
      writeBytes: part('writeBytes'),
      transactionSize: part('transactionSizeBytes'),
      contractEvents: part('contractEventsSizeBytes'),
    },
  };
}
