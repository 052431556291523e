// Closes one ledger of the standalone network: charges every fee first, applies the transactions in
// order, and produces the LedgerCloseMeta (V2, TransactionMeta V4) a real network would publish.
import { xdr } from '../xdr/xdr.ts';
import { accountKey, encodeXdr, sha256, type LedgerEntryChange, type LedgerHeader } from '../xdr/codec.ts';
import { LedgerTxn, type EntrySource } from './ledgerTxn.ts';
import { chargedFee, feeAtBaseFee, type TransactionFrame } from './transactionFrame.ts';
import { checkTransaction, type Invalid } from './validation.ts';
import type { Impersonated } from './impersonation.ts';
import { opHandlers, operationResultOf } from './ops/index.ts';
import { touchSeqLedger } from './ops/accounts.ts';
import { removeSignerWithPossibleSponsorship } from './sponsorship.ts';
import { hasOpenSponsorship } from './futureReserves.ts';
import { feeEvent } from './sacEvents.ts';
import { TxCode } from './resultCodes.ts';
import { bytesEqual, muxedToAccountId, toHex, type AccountId } from '../xdr/codec.ts';
import type { LedgerContext } from './ops/types.ts';
import { nextHeader, headerHash } from './header.ts';
import { signedStellarValue } from './validator.ts';
import { u64 } from './encodeCloseMeta.ts';
import { resourceUse, type SorobanEnv } from './soroban/resources.ts';
import { RefundableFeeTracker, type HostRun, type SorobanOpContext } from './soroban/context.ts';
import { isPersistentKey } from '../xdr/ledgerKeys.ts';
import type { EvictionCandidate } from './sorobanState.ts';
import { withRestores } from './soroban/restores.ts';

export interface ClosedLedger {
  meta: xdr.LedgerCloseMetaWire & { v: 2 };
  /** The transactions in the order they were applied (classic phase, then Soroban phase). */
  applied: TransactionFrame[];
  /** The encoded transaction set (needed for its hash; reused when the meta is encoded). */
  txSetXdr: Uint8Array;
  header: LedgerHeader;
  hash: Uint8Array;
  /** Transactions that failed with txINTERNAL_ERROR because applying them threw: the node logs why. */
  internalErrors: InternalError[];
}

export interface InternalError { hash: string; error: unknown }

export interface PreviousLedger { header: LedgerHeader; hash: Uint8Array }

/** Fee bookkeeping of one Soroban transaction, settled after every transaction of the ledger applied. */
export interface SorobanFees { tracker: RefundableFeeTracker; nonRefundable: bigint }

export interface CloseOptions {
  closeTime: bigint;
  /** From protocol 30 on (CAP-88): the close time in milliseconds, whose whole seconds are `closeTime`. */
  closeTimeMs?: bigint;
  networkId: Uint8Array;
  soroban?: SorobanEnv;
  /** Contract entries whose TTL ended before this ledger, to evict after its transactions applied. */
  evictionCandidates?: EvictionCandidate[];
  /** The average of the state-size window as this ledger leaves it (LedgerCloseMetaV2.totalByteSizeOfLiveSorobanState). */
  liveSorobanStateSize?: bigint;
  /**
   * Upgrades this ledger applies after its transactions, in order (the developer network's edits and
   * settings): each sees the state the transactions and the upgrades before it left.
   */
  upgrades?: readonly LedgerUpgradeStep[];
  /** Accounts the developer network impersonates (impersonation.ts). */
  impersonated?: Impersonated;
}

/**
 * One upgrade of a closing ledger. `apply` makes its entry changes in `ltx` (a child of the ledger's,
 * committed by the caller into the meta's UpgradeEntryMeta) and may change header values; it throws
 * to refuse the upgrade, which refuses the whole close.
 */
export interface LedgerUpgradeStep {
  upgrade: xdr.LedgerUpgradeWire;
  apply?(ltx: LedgerTxn, header: UpgradableHeader): void;
}

/** The header values an upgrade may change (LedgerUpgrade's kinds). */
export interface UpgradableHeader { ledgerVersion: number; baseFee: number; baseReserve: number; maxTxSetSize: number }

/**
 * Closes a ledger, pausing (yielding) after each transaction's fee charge, apply and refund so the
 * caller can let other work run in between: a ledger of a thousand contract calls takes over a
 * second to apply. Nothing
 * is written to `state` (the changes are in the returned meta), so readers of `state` keep seeing
 * the previous ledger until the caller stores this one.
 */
/** The seed a transaction without a Soroban host gets (it reads none). */
const UNUSED_PRNG_SEED = new Uint8Array(32);

export function* closeLedgerSteps(prev: PreviousLedger, queued: TransactionFrame[], state: EntrySource,
  opts: CloseOptions): Generator<void, ClosedLedger, void> {
  const ledgerSeq = prev.header.ledgerSeq + 1;
  // the two phases of a generalized transaction set: classic transactions apply first
  const classic = queued.filter((f) => !f.isSoroban);
  const sorobanTxs = queued.filter((f) => f.isSoroban);
  const frames = [...classic, ...sorobanTxs];
  const ledger: LedgerContext = {
    ledgerSeq, closeTime: opts.closeTime, protocolVersion: prev.header.ledgerVersion,
    baseReserve: prev.header.baseReserve, baseFee: prev.header.baseFee, networkId: opts.networkId,
    ...(opts.impersonated ? { impersonated: opts.impersonated } : {}),
  };
  const root = new LedgerTxn(state, ledgerSeq, { idPool: prev.header.idPool });
  const txSet: xdr.GeneralizedTransactionSetWire = {
    v: 1,
    v1TxSet: {
      previousLedgerHash: prev.hash,
      phases: [
        { v: 0, v0Components: classic.length ? [{ type: 0, txsMaybeDiscountedFee: { baseFee: BigInt(ledger.baseFee), txs: classic.map((f) => f.envelope) } }] : [] },
        { v: 1, parallelTxsComponent: { baseFee: sorobanTxs.length ? BigInt(ledger.baseFee) : null, executionStages: sorobanTxs.length ? [[sorobanTxs.map((f) => f.envelope)]] : [] } },
      ],
    },
  };
  const txSetXdr = encodeXdr(xdr.GeneralizedTransactionSet.schema, txSet);
  const txSetHash = sha256(txSetXdr);

  let feePool = prev.header.feePool;
  const fees: Array<{ charged: bigint; changes: xdr.LedgerEntryChangeWire[] }> = [];
  for (const frame of frames) {
    const fee = chargeFee(root, frame, ledger.baseFee);
    feePool += fee.charged;
    fees.push(fee);
    yield;
  }

  const maxSeqNumToApply = maxSeqNumsToApply(frames);

  const sorobanFees: Array<SorobanFees | undefined> = [];
  const txProcessing: xdr.TransactionResultMetaV1Wire[] = [];
  const internalErrors: InternalError[] = [];
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    // only a Soroban transaction's host reads its seed: classic ones skip the hash
    const prngSeed = frame.isSoroban && opts.soroban ? sha256(txSetHash, u64(BigInt(i))) : UNUSED_PRNG_SEED;
    let applied: AppliedTransaction;
    try {
      applied = applyTransaction(frame, root, ledger, fees[i].charged, maxSeqNumToApply, opts.soroban, prngSeed);
    } catch (error) {
      applied = internallyFailed(frame, ledger, fees[i].charged, error);
    }
    const { result, meta, soroban } = applied;
    if (applied.internalError !== undefined) internalErrors.push({ hash: frame.hashHex, error: applied.internalError });
    sorobanFees.push(soroban);
    txProcessing.push({
      ext: { v: 0 },
      result: { transactionHash: frame.hash, result },
      feeProcessing: fees[i].changes,
      txApplyProcessing: meta,
      postTxApplyFeeProcessing: [],
    });
    yield;
  }

  // Soroban refunds come after every transaction applied (protocol 23+), with an AFTER_ALL_TXS fee event
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    const refund = sorobanFees[i]?.tracker.refund ?? 0n;
    if (refund <= 0n) continue;
    const ltx = root.nest();
    const entry = ltx.load(accountKey(frame.feeSourceId));
    if (!entry || entry.data.type !== 0) { ltx.rollback(); continue; }
    entry.data.account.balance += refund;
    ltx.update(entry);
    feePool -= refund;
    const processed = txProcessing[i];
    processed.postTxApplyFeeProcessing = ltx.commit();
    recordRefund(processed.result.result, processed.txApplyProcessing, refund, ledger.networkId, frame);
    yield;
  }

  // upgrades apply after the transactions and before eviction, as in core's ledger close
  const upgraded: UpgradableHeader = {
    ledgerVersion: prev.header.ledgerVersion, baseFee: prev.header.baseFee, baseReserve: prev.header.baseReserve, maxTxSetSize: prev.header.maxTxSetSize,
  };
  const upgradesProcessing: xdr.UpgradeEntryMetaWire[] = [];
  for (const step of opts.upgrades ?? []) {
    const ltx = root.nest();
    step.apply?.(ltx, upgraded);
    upgradesProcessing.push({ upgrade: step.upgrade, changes: ltx.commit() });
  }

  const evictedKeys = evictions(root, opts.evictionCandidates ?? []);

  const resultSet: xdr.TransactionResultSetWire = { results: txProcessing.map((p) => p.result) };
  const txSetResultHash = sha256(encodeXdr(xdr.TransactionResultSet.schema, resultSet));
  const scpValue = signedStellarValue(opts.networkId, txSetHash, opts.closeTime, opts.closeTimeMs);
  scpValue.upgrades = upgradesProcessing.map((u) => xdr.LedgerUpgrade.schema.encode(u.upgrade));
  const header = nextHeader(prev, {
    scpValue, txSetResultHash, ...upgraded,
    bucketListHash: stateHash(prev.header.bucketListHash, txSetHash, txSetResultHash),
    feePool, idPool: root.idPool,
  });
  const hash = headerHash(header);
  const meta: xdr.LedgerCloseMetaWire & { v: 2 } = {
    v: 2,
    v2: {
      ext: { v: 0 },
      ledgerHeader: { hash, header, ext: { v: 0 } },
      txSet,
      txProcessing,
      upgradesProcessing,
      scpInfo: [],
      totalByteSizeOfLiveSorobanState: opts.liveSorobanStateSize ?? 0n,
      evictedKeys,
    },
  };
  return { meta, applied: frames, txSetXdr, header, hash, internalErrors };
}

/**
 * Per source account, the highest sequence number among a ledger's transactions: AccountMerge must
 * not merge an account that still has a later transaction in this ledger.
 */
export function maxSeqNumsToApply(frames: readonly TransactionFrame[]): (account: AccountId) => bigint | undefined {
  const maxSeq = new Map<string, bigint>();
  for (const f of frames) {
    const id = toHex(f.sourceId.ed25519);
    if ((maxSeq.get(id) ?? -1n) < f.tx.seqNum) maxSeq.set(id, f.tx.seqNum);
  }
  return (account) => maxSeq.get(toHex(account.ed25519));
}

/**
 * The ledger's evicted keys, as core lists them: first what is deleted, in eviction order (a
 * temporary entry and its TTL; a persistent entry's TTL), then the persistent entries that moved to
 * the hot archive. An entry whose TTL this ledger wrote (extended, restored, deleted) stays.
 * Nothing is written here: ingestion applies the list, for this network as for any other.
 */
function evictions(root: LedgerTxn, candidates: readonly EvictionCandidate[]): xdr.LedgerKeyWire[] {
  return evictedKeyList(candidates, (ttlKey) => root.modified(ttlKey));
}

/** evictions() over any ledger: `written(ttlKey)` says whether the ledger wrote that TTL (an empty ledger wrote none). */
export function evictedKeyList(candidates: readonly EvictionCandidate[], written: (ttlKey: xdr.LedgerKeyWire) => boolean = () => false): xdr.LedgerKeyWire[] {
  const deleted: xdr.LedgerKeyWire[] = [];
  const archived: xdr.LedgerKeyWire[] = [];
  for (const { key, ttlKey } of candidates) {
    if (written(ttlKey)) continue;
    if (isPersistentKey(key)) {
      deleted.push(ttlKey);
      archived.push(key);
    } else {
      deleted.push(key, ttlKey);
    }
  }
  return [...deleted, ...archived];
}

/**
 * There is no bucket list here. The header still commits to the state: the state is a function of
 * the history, so chaining the previous value with this ledger's transaction set and results makes
 * two nodes with the same history agree on it, without re-encoding every entry the ledger wrote.
 */
function stateHash(prev: Uint8Array, txSetHash: Uint8Array, txSetResultHash: Uint8Array): Uint8Array {
  return sha256(prev, txSetHash, txSetResultHash);
}

export interface AppliedTransaction {
  result: xdr.TransactionResultWire;
  meta: xdr.TransactionMetaWire;
  soroban?: SorobanFees;
  /** What was thrown while applying it, when it failed with txINTERNAL_ERROR (for the log). */
  internalError?: unknown;
}

export interface ApplyOptions {
  /** Only for replaying a network's closed ledgers, whose signatures that network verified (validation.ts). */
  skipSignatureVerification?: boolean;
  /**
   * The base fee the transaction set charged this transaction at (its component's discounted base
   * fee); null when the component has none, so the transaction paid its whole bid. Default: the
   * ledger's base fee, as this network's sets charge. Only read for a fee bump's inner fee before
   * protocol 25.
   */
  txSetBaseFee?: bigint | null;
  /** Traces the host: each of its runs is recorded here (src/trace/). */
  hostRuns?: HostRun[];
}

/**
 * Applies one transaction whose fee was already charged (`feeCharged`) in a child of `root`, which
 * it commits into `root`: its TransactionResult and its TransactionMeta (V4, fee events included).
 */
export function applyTransaction(frame: TransactionFrame, root: LedgerTxn, ledger: LedgerContext, feeCharged: bigint,
  maxSeqNumToApply: (a: AccountId) => bigint | undefined, sorobanEnv: SorobanEnv | undefined, txPrngSeed: Uint8Array,
  options: ApplyOptions = {}): AppliedTransaction {
  const txLtx = root.nest();
  const feeSourceChanges = frame.feeBump ? touchFeeBumpSource(frame, txLtx) : [];
  const soroban = frame.isSoroban && frame.sorobanData && sorobanEnv
    ? sorobanContext(frame, frame.sorobanData, sorobanEnv, txPrngSeed, options.hostRuns) : undefined;
  const check = checkTransaction(frame, txLtx, {
    ledger, applying: true, soroban: sorobanEnv, skipSignatureVerification: options.skipSignatureVerification,
  });
  const invalid: Invalid | null = check.outer ?? check.inner;
  const txChangesBefore = [...feeSourceChanges, ...(invalid && !invalid.afterSeqCheck ? [] : bumpSequence(frame, txLtx, ledger))];
  const feeEvents = chargedFeeEvents(frame, ledger, feeCharged);

  let code: number;
  let opResults: xdr.OperationResultWire[] | undefined;
  let operations: xdr.OperationMetaV2Wire[] = [];
  let internalError: unknown;
  if (invalid) {
    code = invalid.code;
    opResults = invalid.opResults;
    txLtx.commit();
  } else {
    try {
      const applied = applyOperations(frame, txLtx, ledger, maxSeqNumToApply, soroban?.ctx);
      code = applied.code;
      // only txSUCCESS and txFAILED carry operation results (resultBody leaves them out otherwise)
      opResults = applied.results;
      if (code === TxCode.SUCCESS) operations = applied.metas;
    } catch (error) {
      // stellar-core's applyOperations: an exception fails this transaction alone (txINTERNAL_ERROR),
      // its operations' changes dropped (their nested state is never committed); the fee and the
      // sequence number stay used
      internalError = error;
      code = TxCode.INTERNAL_ERROR;
      opResults = undefined;
      txLtx.commit();
    }
  }

  const result = transactionResult(frame, feeCharged, code, opResults, check.outer !== null,
    innerFeeCharged(frame, ledger, options.txSetBaseFee));
  let sorobanMeta: xdr.SorobanTransactionMetaV2Wire | null = null;
  if (soroban) {
    const ok = code === TxCode.SUCCESS;
    if (!ok) soroban.fees.tracker.reset();
    const { tracker, nonRefundable } = soroban.fees;
    sorobanMeta = {
      ext: { v: 1, v1: { ext: { v: 0 }, totalNonRefundableResourceFeeCharged: nonRefundable, totalRefundableResourceFeeCharged: tracker.consumedRefundable, rentFeeCharged: tracker.consumedRent } },
      returnValue: ok ? soroban.ctx.returnValue ?? null : null,
    };
  }
  const meta: xdr.TransactionMetaWire = {
    v: 4,
    v4: {
      ext: { v: 0 }, txChangesBefore, operations, txChangesAfter: [], sorobanMeta, events: feeEvents,
      diagnosticEvents: soroban?.ctx.diagnosticEvents ?? [],
    },
  };
  return { result, meta, soroban: soroban?.fees, ...(internalError !== undefined ? { internalError } : {}) };
}

/**
 * The fee stage for one transaction, committed into `root`: its fee source pays the fee due at
 * `baseFee`, or all it has if that is less. (A ledger charges every fee before any transaction
 * applies; a traced simulation charges its one the same way.)
 */
export function chargeFee(root: LedgerTxn, frame: TransactionFrame, baseFee: number): { charged: bigint; changes: xdr.LedgerEntryChangeWire[] } {
  const ltx = root.nest();
  const entry = ltx.load(accountKey(frame.feeSourceId));
  let charged = 0n;
  if (entry && entry.data.type === 0) {
    const acc = entry.data.account;
    const due = chargedFee(frame, baseFee);
    charged = due < acc.balance ? due : acc.balance;
    acc.balance -= charged;
    ltx.update(entry);
  }
  return { charged, changes: ltx.commit() };
}

/**
 * What a Soroban refund (made after every transaction of the ledger applied) changes in the
 * transaction's own result and meta: the fee charged drops by it, and an AFTER_ALL_TXS fee event
 * records it. Re-executing one transaction (src/trace/) ends the same way.
 */
export function recordRefund(result: xdr.TransactionResultWire, meta: xdr.TransactionMetaWire, refund: bigint,
  networkId: Uint8Array, frame: TransactionFrame): void {
  result.feeCharged -= refund;
  if (meta.v === 4) meta.v4.events.push({ stage: 2, event: feeEvent(networkId, frame.feeSourceId, -refund) });
}

/** The BEFORE_ALL_TXS fee event of a transaction that was charged (none for a free one). */
function chargedFeeEvents(frame: TransactionFrame, ledger: LedgerContext, feeCharged: bigint): xdr.TransactionEventWire[] {
  return feeCharged > 0n ? [{ stage: 0, event: feeEvent(ledger.networkId, frame.feeSourceId, feeCharged) }] : [];
}

/**
 * What a transaction becomes when applying it threw outside its operations (applyTransaction's own
 * steps): txINTERNAL_ERROR with its fee charged and no other change (its nested state under the
 * ledger's is never committed), so the rest of the ledger still applies.
 */
function internallyFailed(frame: TransactionFrame, ledger: LedgerContext, feeCharged: bigint, error: unknown): AppliedTransaction {
  const feeEvents = chargedFeeEvents(frame, ledger, feeCharged);
  return {
    result: transactionResult(frame, feeCharged, TxCode.INTERNAL_ERROR, undefined, false),
    meta: {
      v: 4,
      v4: { ext: { v: 0 }, txChangesBefore: [], operations: [], txChangesAfter: [], sorobanMeta: null, events: feeEvents, diagnosticEvents: [] },
    },
    internalError: error,
  };
}

/** The Soroban context of a transaction: its fee split (stellar-core's commonPreApply) and the host. */
function sorobanContext(frame: TransactionFrame, data: xdr.SorobanTransactionDataWire, env: SorobanEnv, prngSeed: Uint8Array,
  hostRuns: HostRun[] | undefined): { ctx: SorobanOpContext; fees: SorobanFees } {
  const use = resourceUse(frame, data);
  const nonRefundable = BigInt(env.host.resourceFee(use).nonRefundable);
  const tracker = new RefundableFeeTracker(data.resourceFee - nonRefundable);
  const ctx: SorobanOpContext = {
    data, config: env.config, host: env.host, fees: tracker,
    refundableFeeFor: (eventsBytes) => BigInt(env.host.resourceFee({ ...use, contractEventsSizeBytes: eventsBytes }).refundable),
    prngSeed: sha256(prngSeed, u64(0n)),
    diagnosticEvents: [],
    restores: [],
    ...(hostRuns ? { hostRuns } : {}),
  };
  return { ctx, fees: { tracker, nonRefundable } };
}

/**
 * Applies every operation in its own nested state; any failure discards all of them. So does a
 * sponsorship still open once every operation succeeded (BeginSponsoringFutureReserves without its
 * EndSponsoringFutureReserves): the transaction then fails with txBAD_SPONSORSHIP, whose result
 * carries no operation results.
 */
function applyOperations(frame: TransactionFrame, txLtx: LedgerTxn, ledger: LedgerContext,
  maxSeqNumToApply: (a: AccountId) => bigint | undefined, soroban: SorobanOpContext | undefined) {
  const opsLtx = txLtx.nest();
  const results: xdr.OperationResultWire[] = [];
  const metas: xdr.OperationMetaV2Wire[] = [];
  let success = true;
  frame.tx.operations.forEach((op, opIndex) => {
    const handler = opHandlers[op.body.type]!;
    const sourceMuxed = op.sourceAccount ?? frame.tx.sourceAccount;
    const ltx = opsLtx.nest();
    const events: xdr.ContractEventWire[] = [];
    const outcome = handler.apply(op.body, {
      ltx, ledger, sourceMuxed, source: muxedToAccountId(sourceMuxed), txMemo: frame.tx.memo, events,
      opIndex, txSeqNum: frame.tx.seqNum, txSourceId: frame.sourceId, maxSeqNumToApply, soroban,
    });
    results.push(operationResultOf(outcome));
    if (outcome.success) {
      const changes = ltx.commit();
      metas.push({ ext: { v: 0 }, changes: soroban ? withRestores(changes, soroban.restores, ledger.ledgerSeq) : changes, events });
    } else {
      ltx.rollback();
      success = false;
    }
  });
  let code: number = success ? TxCode.SUCCESS : TxCode.FAILED;
  if (success && hasOpenSponsorship(opsLtx)) code = TxCode.BAD_SPONSORSHIP;
  if (code === TxCode.SUCCESS) opsLtx.commit(); else opsLtx.rollback();
  txLtx.commit();
  return { code, results, metas };
}

/**
 * Consumes the sequence number (stamping when, AccountEntryExtensionV3) and, as stellar-core does
 * once signatures were processed, removes the pre-authorized-transaction signers this transaction
 * used from every source account: a pre-auth signer authorizes one transaction only.
 */
function bumpSequence(frame: TransactionFrame, txLtx: LedgerTxn, ledger: LedgerContext) {
  const ltx = txLtx.nest();
  const entry = ltx.load(accountKey(frame.sourceId));
  if (!entry || entry.data.type !== 0) { ltx.rollback(); return []; }
  const acc = entry.data.account;
  acc.seqNum = frame.tx.seqNum;
  touchSeqLedger(ledger, acc);
  ltx.update(entry);
  removeOneTimeSigners(frame, ltx);
  return ltx.commit();
}

/**
 * What a fee bump does before its inner transaction (stellar-core's FeeBumpTransactionFrame::apply,
 * removeOneTimeSignerKeyFromFeeSource): it loads the fee source and removes the pre-authorized
 * signer of the fee bump itself, if the account has one. Core's load alone records the account as
 * changed, so the meta shows it (STATE, then UPDATED stamped with this ledger) whether or not a
 * signer went, ahead of the inner transaction's changes, whatever becomes of the inner transaction.
 */
function touchFeeBumpSource(frame: TransactionFrame, txLtx: LedgerTxn): LedgerEntryChange[] {
  const ltx = txLtx.nest();
  const entry = ltx.load(accountKey(frame.feeSourceId));
  if (!entry || entry.data.type !== 0) { ltx.rollback(); return []; }
  const signers = entry.data.account.signers;
  const i = signers.findIndex((s) => s.key.type === 1 && bytesEqual(s.key.preAuthTx, frame.hash));
  if (i >= 0) removeSignerWithPossibleSponsorship(ltx, entry, i);
  ltx.update(entry);
  return ltx.commit();
}

function removeOneTimeSigners(frame: TransactionFrame, ltx: LedgerTxn): void {
  const sources = new Map([frame.sourceId, ...frame.tx.operations.flatMap((op) => op.sourceAccount ? [muxedToAccountId(op.sourceAccount)] : [])]
    .map((id) => [toHex(id.ed25519), id]));
  for (const id of sources.values()) {
    // most accounts have no pre-authorized signer: read before copying
    const current = ltx.read(accountKey(id));
    if (!current || current.data.type !== 0 || !current.data.account.signers.some((s) => s.key.type === 1)) continue;
    const entry = ltx.load(accountKey(id))!;
    if (entry.data.type !== 0) continue;
    const signers = entry.data.account.signers;
    let removed = false;
    for (let i = signers.length - 1; i >= 0; i--) {
      const key = signers[i].key;
      if (key.type === 1 && bytesEqual(key.preAuthTx, frame.innerHash)) { removeSignerWithPossibleSponsorship(ltx, entry, i); removed = true; }
    }
    if (removed) ltx.update(entry);
  }
}

/**
 * The fee a fee bump's result reports for its inner transaction (stellar-core's
 * FeeBumpTransactionFrame::processFeeSeqNum): before protocol 25, what the inner transaction would
 * have been charged on its own at the set's base fee (its resource fee plus its inclusion fee, at
 * most base fee x its operations); from protocol 25 on, 0.
 */
function innerFeeCharged(frame: TransactionFrame, ledger: LedgerContext, txSetBaseFee: bigint | null | undefined): bigint {
  if (!frame.feeBump || ledger.protocolVersion >= 25) return 0n;
  const declared = BigInt(frame.tx.fee);
  const baseFee = txSetBaseFee === undefined ? BigInt(ledger.baseFee) : txSetBaseFee;
  if (baseFee === null) return declared;
  return feeAtBaseFee(declared, frame.resourceFee, Math.max(1, frame.tx.operations.length), baseFee);
}

/** Builds a TransactionResult; a fee bump wraps the inner outcome unless the outer envelope itself failed. */
export function transactionResult(frame: TransactionFrame, feeCharged: bigint, code: number,
  opResults: xdr.OperationResultWire[] | undefined, outerFailed: boolean, innerFee = 0n): xdr.TransactionResultWire {
  const body = resultBody(code, opResults);
  if (!frame.feeBump || outerFailed) return { feeCharged, result: body as xdr.TransactionResultResultWire, ext: { v: 0 } };
  const ok = code === TxCode.SUCCESS;
  return {
    feeCharged,
    result: {
      code: ok ? TxCode.FEE_BUMP_INNER_SUCCESS : TxCode.FEE_BUMP_INNER_FAILED,
      innerResultPair: { transactionHash: frame.innerHash, result: { feeCharged: innerFee, result: body as xdr.InnerTransactionResultResultWire, ext: { v: 0 } } },
    } as xdr.TransactionResultResultWire,
    ext: { v: 0 },
  };
}

function resultBody(code: number, opResults: xdr.OperationResultWire[] | undefined) {
  if (code === TxCode.SUCCESS || code === TxCode.FAILED) return { code, results: opResults ?? [] };
  return { code };
}
