// The contract between the transaction applier and one operation (classic or Soroban).
import type { xdr } from '../../xdr/xdr.ts';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { AccountId, ContractEvent, MuxedAccount } from '../../xdr/codec.ts';
import type { SorobanOpContext } from '../soroban/context.ts';
import type { Impersonated } from '../impersonation.ts';

/** Header facts an operation may read. */
export interface LedgerContext {
  ledgerSeq: number;        // the ledger being closed
  closeTime: bigint;        // its close time, unix seconds
  protocolVersion: number;
  baseReserve: number;      // stroops
  baseFee: number;
  networkId: Uint8Array;    // sha256(passphrase)
  /** Accounts the developer network impersonates (their signatures are not needed; impersonation.ts). */
  impersonated?: Impersonated;
}

export type ThresholdLevel = 'low' | 'medium' | 'high';

export interface OpContext {
  /** A child transaction of the tx; the applier commits it on success and rolls it back on failure. */
  ltx: LedgerTxn;
  ledger: LedgerContext;
  /** Operation source (the op's own, else the tx's), and the account id behind it. */
  sourceMuxed: MuxedAccount;
  source: AccountId;
  /** Transaction memo, which CAP-67 events carry as the destination's muxed id where the destination is not muxed. */
  txMemo: xdr.MemoWire;
  /** CAP-67 events this operation emits, in order; the applier puts them in OperationMetaV2.events. */
  events: ContractEvent[];
  /** Index of the operation in its transaction, 0-based. */
  opIndex: number;
  /** Sequence number of the transaction (for ids derived from it). */
  txSeqNum: bigint;
  txSourceId: AccountId;
  /**
   * Optional: the highest sequence number among this ledger's transactions whose source is `account`
   * (stellar-core's MAX_SEQ_NUM_TO_APPLY, protocol 19+). AccountMerge refuses with
   * ACCOUNT_MERGE_SEQNUM_TOO_FAR when it reaches the starting sequence number of the ledger, so a
   * recreated account could not replay a later transaction of the same set. When absent only the
   * account's current seqNum is checked.
   */
  maxSeqNumToApply?: (account: AccountId) => bigint | undefined;
  /** Soroban operations only: declared resources, configuration, host and refundable fee. */
  soroban?: SorobanOpContext;
}

/** What static checks may read; Soroban operations also see their declared resources and the network limits. */
export type CheckContext = Pick<OpContext, 'ledger' | 'source' | 'sourceMuxed'> & {
  soroban?: Pick<SorobanOpContext, 'data' | 'config'>;
};

export interface OpOutcome {
  /** The operation-specific result (OperationResult.tr). */
  tr: xdr.OperationResultTrWire;
  success: boolean;
  /**
   * Set (only on failure) when the result is an OperationResult code other than opINNER:
   * opNO_ACCOUNT (-2), opNOT_SUPPORTED (-3), opTOO_MANY_SUBENTRIES (-4), opEXCEEDED_WORK_LIMIT (-5,
   * a trade that would cross more than 1,000 offers) or opTOO_MANY_SPONSORING (-6). The applier must then emit `{ code }` and ignore `tr`, which is a placeholder.
   * `operationResultOf` in ./index.ts does this mapping.
   */
  code?: -2 | -3 | -4 | -5 | -6;
}

export interface OpHandler<Body = xdr.OperationBodyWire> {
  /** Signature threshold the op source must meet (stellar-core's getThresholdLevel). */
  threshold(body: Body): ThresholdLevel;
  /**
   * Checks that depend only on the operation itself (stellar-core's doCheckValid): a failure here is
   * reported at submission as txFAILED with this op result, without touching state.
   */
  checkValid(body: Body, ctx: CheckContext): OpOutcome | null;
  /** Applies the operation; on failure it leaves `ctx.ltx` for the caller to roll back. */
  apply(body: Body, ctx: OpContext): OpOutcome;
}
