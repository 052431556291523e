// Transaction validity, in the order stellar-core checks it (TransactionFrame::commonValid and
// FeeBumpTransactionFrame): the first failing check decides the TransactionResult code.
import type { xdr } from '../xdr/xdr.ts';
import { accountKey, bytesEqual, muxedToAccountId } from '../xdr/codec.ts';
import type { LedgerTxn } from './ledgerTxn.ts';
import { accountSigners, SignatureChecker } from './signatures.ts';
import { availableBalance, sequenceStamp } from './ops/accounts.ts';
import { OpCode, TxCode, MAX_OPS_PER_TX } from './resultCodes.ts';
import type { TransactionFrame } from './transactionFrame.ts';
import { opHandlers, operationResultOf, validResultOf } from './ops/index.ts';
import type { CheckContext, LedgerContext, ThresholdLevel } from './ops/types.ts';
import { checkSorobanTransaction, type SorobanEnv } from './soroban/resources.ts';
import type { NetworkError } from './soroban/diagnostics.ts';

export type OperationResult = xdr.OperationResultWire;

/** Why a transaction is invalid: its code and, for txFAILED, every operation's result. */
export interface Invalid {
  code: number;
  opResults?: OperationResult[];
  /** True when the failure came after the sequence number check: applying still consumes the sequence. */
  afterSeqCheck: boolean;
  /** The network's diagnostic error for it, where core reports one (Soroban resource checks). */
  error?: NetworkError;
}

export interface ValidationContext {
  ledger: LedgerContext;   // the ledger the transaction would go into
  applying: boolean;
  /** Fees of transactions already queued by the same fee source (submission only). */
  pendingFees?: bigint;
  /** The network's Soroban configuration and host; without it Soroban transactions are refused. */
  soroban?: SorobanEnv;
  /**
   * Treat every signature requirement as met. Only for replaying ledgers a network already closed
   * (lumen-rpc replay): the network verified their signatures, and the signers of an account no
   * meta shows are unknown to the replay.
   */
  skipSignatureVerification?: boolean;
}

/** What validation asks of a transaction's signatures (a SignatureChecker, or the replay's stand-in). */
type Signatures = Pick<SignatureChecker, 'check' | 'allUsed'>;

const signaturesTakenAsValid: Signatures = { check: () => true, allUsed: () => true };

function signaturesOf(hash: Uint8Array, signatures: xdr.DecoratedSignatureWire[], ctx: ValidationContext): Signatures {
  return ctx.skipSignatureVerification ? signaturesTakenAsValid : new SignatureChecker(hash, signatures, ctx.ledger.protocolVersion);
}

/**
 * Whether the signatures meet `account`'s threshold: always for an account the developer network
 * impersonates (its signatures are not needed; see impersonation.ts), else checked.
 */
function authorized(sigs: Signatures, account: xdr.AccountEntryWire, level: ThresholdLevel, ledger: LedgerContext): boolean {
  if (ledger.impersonated?.has(account.accountId.ed25519)) return true;
  return sigs.check(accountSigners(account), neededWeight(account, level));
}

const LEVEL_INDEX: Record<ThresholdLevel, number> = { low: 1, medium: 2, high: 3 };

export function neededWeight(account: xdr.AccountEntryWire, level: ThresholdLevel): number {
  return account.thresholds[LEVEL_INDEX[level]];
}

/** Validates a whole envelope. For a fee bump, an invalid inner transaction is reported through `inner`. */
export function checkTransaction(frame: TransactionFrame, ltx: LedgerTxn, ctx: ValidationContext):
  { outer: Invalid | null; inner: Invalid | null } {
  if (!frame.feeBump) {
    return { outer: checkInner(frame, ltx, ctx, true), inner: null };
  }
  const fb = frame.feeBump;
  const innerOps = frame.tx.operations.length;
  if (!ctx.applying) {
    const minFee = BigInt(ctx.ledger.baseFee) * BigInt(innerOps + 1);
    // inclusion fees (what is offered beyond the resource fee): the outer rate must not be lower than the inner one
    const outer = fb.fee - frame.resourceFee;
    const inner = BigInt(frame.tx.fee) - frame.resourceFee;
    if (outer < minFee || outer * BigInt(innerOps) < inner * BigInt(innerOps + 1)) {
      return { outer: { code: TxCode.INSUFFICIENT_FEE, afterSeqCheck: false }, inner: null };
    }
  }
  const feeSource = ltx.load(accountKey(fb.feeSourceId));
  if (!feeSource) return { outer: { code: TxCode.NO_ACCOUNT, afterSeqCheck: false }, inner: null };
  const account = feeSource.data.type === 0 ? feeSource.data.account : undefined;
  const outerSigs = signaturesOf(frame.hash, fb.signatures, ctx);
  if (!account || !authorized(outerSigs, account, 'low', ctx.ledger)) {
    return { outer: { code: TxCode.BAD_AUTH, afterSeqCheck: true }, inner: null };
  }
  if (!ctx.applying && availableBalance(ctx.ledger, account) < fb.fee + (ctx.pendingFees ?? 0n)) {
    return { outer: { code: TxCode.INSUFFICIENT_BALANCE, afterSeqCheck: true }, inner: null };
  }
  const inner = checkInner(frame, ltx, ctx, false);
  if (inner) return { outer: null, inner };
  if (!outerSigs.allUsed()) return { outer: { code: TxCode.BAD_AUTH_EXTRA, afterSeqCheck: true }, inner: null };
  return { outer: null, inner: null };
}

function checkInner(frame: TransactionFrame, ltx: LedgerTxn, ctx: ValidationContext, chargeFee: boolean): Invalid | null {
  const tx = frame.tx;
  const { ledger } = ctx;
  const ops = tx.operations;
  if (ops.length === 0) return { code: TxCode.MISSING_OPERATION, afterSeqCheck: false };
  if (ops.length > MAX_OPS_PER_TX) return { code: TxCode.MALFORMED, afterSeqCheck: false };
  if (frame.isSoroban && ops.length > 1) return { code: TxCode.MALFORMED, afterSeqCheck: false };
  if (!frame.isSoroban && tx.ext.v === 1) return { code: TxCode.MALFORMED, afterSeqCheck: false };
  if (frame.isSoroban) {
    if (!ctx.soroban) return { code: TxCode.SOROBAN_INVALID, afterSeqCheck: false };
    const soroban = checkSorobanTransaction(frame, ctx.soroban, chargeFee);
    if (soroban) {
      return { code: soroban.code === 'malformed' ? TxCode.MALFORMED : TxCode.SOROBAN_INVALID, afterSeqCheck: false, error: soroban.error };
    }
  }

  const timing = checkPreconditionTiming(tx.cond, ledger);
  if (timing) return timing;

  // the inclusion fee: what is offered beyond a Soroban transaction's resource fee
  if (chargeFee && !ctx.applying && BigInt(tx.fee) - frame.resourceFee < BigInt(ledger.baseFee) * BigInt(ops.length)) {
    return { code: TxCode.INSUFFICIENT_FEE, afterSeqCheck: false };
  }
  const sourceEntry = ltx.load(accountKey(frame.sourceId));
  if (!sourceEntry || sourceEntry.data.type !== 0) return { code: TxCode.NO_ACCOUNT, afterSeqCheck: false };
  const source = sourceEntry.data.account;

  if (!sequenceAcceptable(tx, source)) return { code: TxCode.BAD_SEQ, afterSeqCheck: false };
  if (!minSeqAgeAndGapMet(tx.cond, source, ledger)) return { code: TxCode.BAD_MIN_SEQ_AGE_OR_GAP, afterSeqCheck: false };

  const sigs = signaturesOf(frame.innerHash, frame.signatures, ctx);
  if (!authorized(sigs, source, 'low', ledger)) return { code: TxCode.BAD_AUTH, afterSeqCheck: true };
  if (tx.cond.type === 2) {
    for (const signer of tx.cond.v2.extraSigners) {
      if (!sigs.check([{ key: signer, weight: 1 }], 1)) return { code: TxCode.BAD_AUTH, afterSeqCheck: true };
    }
  }
  if (chargeFee && !ctx.applying && availableBalance(ledger, source) < BigInt(tx.fee) + (ctx.pendingFees ?? 0n)) {
    return { code: TxCode.INSUFFICIENT_BALANCE, afterSeqCheck: true };
  }

  const opResults = checkOperations(frame, ltx, sigs, ledger, ctx.soroban);
  if (opResults) return { code: TxCode.FAILED, opResults, afterSeqCheck: true };
  if (!sigs.allUsed()) return { code: TxCode.BAD_AUTH_EXTRA, afterSeqCheck: true };
  return null;
}

/** Per-operation source existence, signatures and static validity; null when every op passes. */
function checkOperations(frame: TransactionFrame, ltx: LedgerTxn, sigs: Signatures, ledger: LedgerContext,
  sorobanEnv: SorobanEnv | undefined): OperationResult[] | null {
  const soroban: CheckContext['soroban'] = frame.isSoroban && frame.sorobanData && sorobanEnv
    ? { data: frame.sorobanData, config: sorobanEnv.config } : undefined;
  let failed = false;
  const results = frame.tx.operations.map((op): OperationResult => {
    const handler = opHandlers[op.body.type];
    if (!handler) { failed = true; return { code: OpCode.NOT_SUPPORTED }; }
    const sourceMuxed = op.sourceAccount ?? frame.tx.sourceAccount;
    const source = muxedToAccountId(sourceMuxed);
    const entry = ltx.load(accountKey(source));
    if (!entry || entry.data.type !== 0) {
      // An operation may name a source that an earlier operation of the transaction creates (a
      // sponsored account ending its sponsorship): its key must have signed, as core's
      // checkSignatureNoAccount wants. Whether it exists by then is checked when it is applied.
      if (!op.sourceAccount) { failed = true; return { code: OpCode.NO_ACCOUNT }; }
      if (!ledger.impersonated?.has(source.ed25519) && !sigs.check([{ key: { type: 0, ed25519: source.ed25519 }, weight: 1 }], 0)) {
        failed = true;
        return { code: OpCode.BAD_AUTH };
      }
    } else {
      const account = entry.data.account;
      if (!authorized(sigs, account, handler.threshold(op.body), ledger)) {
        failed = true;
        return { code: OpCode.BAD_AUTH };
      }
    }
    const invalid = handler.checkValid(op.body, { ledger, source, sourceMuxed, soroban });
    if (invalid && !invalid.success) { failed = true; return operationResultOf(invalid); }
    return { code: 0, tr: validResultOf(op.body.type) };
  });
  return failed ? results : null;
}

function checkPreconditionTiming(cond: xdr.PreconditionsWire, ledger: LedgerContext): Invalid | null {
  const bounds = cond.type === 1 ? cond.timeBounds : cond.type === 2 ? cond.v2.timeBounds : null;
  if (bounds) {
    if (bounds.minTime > ledger.closeTime) return { code: TxCode.TOO_EARLY, afterSeqCheck: false };
    if (bounds.maxTime !== 0n && bounds.maxTime < ledger.closeTime) return { code: TxCode.TOO_LATE, afterSeqCheck: false };
  }
  if (cond.type === 2) {
    const lb = cond.v2.ledgerBounds;
    if (lb) {
      if (lb.minLedger > ledger.ledgerSeq) return { code: TxCode.TOO_EARLY, afterSeqCheck: false };
      if (lb.maxLedger !== 0 && lb.maxLedger <= ledger.ledgerSeq) return { code: TxCode.TOO_LATE, afterSeqCheck: false };
    }
    const extra = cond.v2.extraSigners;
    if (extra.length === 2 && signerKeysEqual(extra[0], extra[1])) return { code: TxCode.MALFORMED, afterSeqCheck: false };
  }
  return null;
}

function sequenceAcceptable(tx: xdr.TransactionWire, source: xdr.AccountEntryWire): boolean {
  if (tx.cond.type === 2 && tx.cond.v2.minSeqNum !== null) {
    return source.seqNum >= tx.cond.v2.minSeqNum && tx.seqNum > source.seqNum;
  }
  return tx.seqNum === source.seqNum + 1n;
}

function minSeqAgeAndGapMet(cond: xdr.PreconditionsWire, source: xdr.AccountEntryWire, ledger: LedgerContext): boolean {
  if (cond.type !== 2) return true;
  const { seqLedger, seqTime } = sequenceStamp(source);
  if (cond.v2.minSeqAge !== 0n && ledger.closeTime - seqTime < cond.v2.minSeqAge) return false;
  if (cond.v2.minSeqLedgerGap !== 0 && ledger.ledgerSeq - seqLedger < cond.v2.minSeqLedgerGap) return false;
  return true;
}

function signerKeysEqual(a: xdr.SignerKeyWire, b: xdr.SignerKeyWire): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 0: return bytesEqual(a.ed25519, (b as typeof a).ed25519);
    case 1: return bytesEqual(a.preAuthTx, (b as typeof a).preAuthTx);
    case 2: return bytesEqual(a.hashX, (b as typeof a).hashX);
    case 3: return bytesEqual(a.ed25519SignedPayload.ed25519, (b as typeof a).ed25519SignedPayload.ed25519)
      && bytesEqual(a.ed25519SignedPayload.payload, (b as typeof a).ed25519SignedPayload.payload);
  }
}
