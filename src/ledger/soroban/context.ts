// What a Soroban operation needs beyond a classic one: the transaction's declared resources, the
// network configuration, the host, and the refundable-fee budget it spends rent and events from.
import type { xdr } from '../../xdr/xdr.ts';
import type { InvokeApplyResult, NativeSorobanApplier } from '../../host/native.ts';
import type { SorobanNetworkConfig } from './networkConfig.ts';
import { budgetExceeded, type NetworkError } from './diagnostics.ts';
import type { Restore } from './restores.ts';

/**
 * stellar-core's RefundableFeeTracker: the refundable part of the declared resource fee is what rent
 * and contract events may consume; what is left is refunded after the ledger's transactions. A
 * failed transaction consumes nothing, so all of it comes back.
 */
export class RefundableFeeTracker {
  readonly maxRefundable: bigint;
  private eventsBytes = 0;
  private rent = 0n;
  private consumed = 0n;

  constructor(maxRefundable: bigint) { this.maxRefundable = maxRefundable > 0n ? maxRefundable : 0n; }

  /**
   * Adds an operation's events and rent; core's error when they exceed what was declared (rent
   * first, then the events on top of it). `refundableFeeFor` prices the events (the refundable part
   * of the resource fee).
   */
  consume(eventsBytes: number, rentFee: bigint, refundableFeeFor: (eventsBytes: number) => bigint): NetworkError | undefined {
    this.eventsBytes += eventsBytes;
    this.rent += rentFee;
    if (this.rent > this.maxRefundable) {
      // core's message keeps its "{} > {}" unformatted; the amounts are the arguments
      return budgetExceeded('refundable resource fee was not sufficient to cover the ledger storage rent: {} > {}', this.rent, this.maxRefundable);
    }
    const eventsFee = refundableFeeFor(this.eventsBytes);
    if (eventsFee > this.maxRefundable - this.rent) {
      return budgetExceeded('refundable resource fee was not sufficient to cover the events fee after paying for ledger storage rent: {} > {}',
        eventsFee, this.maxRefundable - this.rent);
    }
    this.consumed = this.rent + eventsFee;
    return undefined;
  }

  /** The transaction failed: nothing was consumed. */
  reset(): void { this.eventsBytes = 0; this.rent = 0n; this.consumed = 0n; }

  get consumedRefundable(): bigint { return this.consumed; }
  get consumedRent(): bigint { return this.rent; }
  get refund(): bigint { return this.maxRefundable - this.consumed; }
}

export interface SorobanOpContext {
  data: xdr.SorobanTransactionDataWire;
  config: SorobanNetworkConfig;
  host: NativeSorobanApplier;
  fees: RefundableFeeTracker;
  /** The refundable resource fee of the declared resources with this many bytes of events. */
  refundableFeeFor(eventsBytes: number): bigint;
  /** The operation's 32-byte PRNG seed (derived from the transaction set, as core does). */
  prngSeed: Uint8Array;
  /** Diagnostic events the operation produced (TransactionMetaV4.diagnosticEvents). */
  diagnosticEvents: xdr.DiagnosticEventWire[];
  /** Entries the operation restored (marked in its meta as core marks them). */
  restores: Restore[];
  /** Set by a successful InvokeHostFunction. */
  returnValue?: xdr.ScValWire;
  /** When set (tracing), each host run the operation made is recorded here, with the host's trace. */
  hostRuns?: HostRun[];
}

/** One run of the host, as a trace reads it (src/trace/). */
export interface HostRun {
  result: InvokeApplyResult;
  /** The run's diagnostic events, decoded (the operation decodes them for the meta anyway). */
  diagnostics: xdr.DiagnosticEventWire[];
}

/** The TTL entry of a contract entry (by its key's hash); `LedgerTxn.update` stamps lastModifiedLedgerSeq. */
export const ttlEntry = (keyHash: Uint8Array, liveUntilLedgerSeq: number): xdr.LedgerEntryWire =>
  ({ lastModifiedLedgerSeq: 0, data: { type: 9, ttl: { keyHash, liveUntilLedgerSeq } }, ext: { v: 0 } });

/** stellar-core's validateContractLedgerEntry: core's error for a code or data entry above the network's size limits. */
export function entrySizeProblem(key: xdr.LedgerKeyWire, entryBytes: number, config: SorobanNetworkConfig): NetworkError | undefined {
  if (key.type === 7 && entryBytes > config.maxContractSizeBytes) {
    return budgetExceeded('Wasm size exceeds network config maximum contract size', entryBytes, config.maxContractSizeBytes);
  }
  if (key.type === 6 && entryBytes > config.maxContractDataEntrySizeBytes) {
    return budgetExceeded('ContractData size exceeds network config maximum size', entryBytes, config.maxContractDataEntrySizeBytes);
  }
  return undefined;
}
