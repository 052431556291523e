// Re-executes a transaction the store holds, on the state before it, with the host's trace on; and
// says whether the re-executed result and meta equal the stored ones byte for byte. The ledger is
// re-entered as its close entered it: the previous ledger's header rules (version, base fee,
// reserve), this ledger's close time, every fee charged before any transaction applied, the
// transaction-set hash as the PRNG seed's source, and the Soroban refund after the transaction.
import { xdr } from '../xdr/xdr.ts';
import {
  accountKey, bytesEqual, decodeLedgerEntry, encodeLedgerKey, muxedToAccountId, sha256, toBase64, toHex, type AccountId,
  type LedgerEntryChange,
} from '../xdr/codec.ts';
import { isSorobanKey, ttlKeyFor } from '../xdr/ledgerKeys.ts';
import type { StoreReader } from '../store/types.ts';
import { closedLedgerOf } from '../replay/closedLedger.ts';
import { metaChanges } from '../ingest/ledgerToBatch.ts';
import { frameOf } from '../ledger/transactionFrame.ts';
import { applyTransaction, maxSeqNumsToApply, recordRefund } from '../ledger/closeLedger.ts';
import { LedgerTxn } from '../ledger/ledgerTxn.ts';
import { u64 } from '../ledger/encodeCloseMeta.ts';
import type { HostRun } from '../ledger/soroban/context.ts';
import type { LedgerContext } from '../ledger/ops/types.ts';
import { compareTransaction } from '../replay/compareTransaction.ts';
import { describeDifference } from '../replay/firstDifference.ts';
import { StateBeforeTransaction, baseFromStore, type BaseReader } from './stateBeforeTransaction.ts';
import type { TraceAppliers } from './appliers.ts';
import { transactionTrace } from './transactionTrace.ts';
import type { TransactionTrace } from './types.ts';

/** Why a stored transaction cannot be traced (the method answers it as an invalid-params error). */
export class NotTraceable extends Error {}

/** The fee the fee stage took from `feeSource`: its balance before less after, in the fee changes. */
function feeTaken(changes: readonly LedgerEntryChange[], feeSource: AccountId): bigint {
  let before: bigint | undefined;
  let after: bigint | undefined;
  for (const c of changes) {
    const entry = c.type === 3 ? c.state : c.type === 1 ? c.updated : undefined;
    if (!entry || entry.data.type !== 0 || !bytesEqual(entry.data.account.accountId.ed25519, feeSource.ed25519)) continue;
    if (c.type === 3) before = entry.data.account.balance;
    else after = entry.data.account.balance;
  }
  return before !== undefined && after !== undefined ? before - after : 0n;
}

/** sha256 of the ledger's generalized transaction set: what every Soroban transaction's PRNG seed derives from. */
function txSetHash(lcm: xdr.LedgerCloseMetaWire): Uint8Array {
  if (lcm.v === 0) return sha256(xdr.TransactionSet.schema.encode(lcm.v0.txSet));
  return sha256(xdr.GeneralizedTransactionSet.schema.encode(lcm.v === 1 ? lcm.v1.txSet : lcm.v2.txSet));
}

/**
 * Everything a re-execution needs from the store, as bytes: it can run where the store is not (a
 * trace worker, traceWorkers.ts). `base` answers the reads of the state before the ledger.
 */
export interface ReexecutionInput {
  networkId: Uint8Array;
  sequence: number;
  /** The ledger's LedgerCloseMeta, and the previous ledger's LedgerHeaderHistoryEntry. */
  meta: Uint8Array;
  previousHeader: Uint8Array;
  /** The stored transaction: its hash, TransactionResult and TransactionMeta. */
  hash: Uint8Array;
  envelope: Uint8Array;
  result: Uint8Array;
  txMeta: Uint8Array;
  /** The network configuration's ConfigSetting entries at the previous ledger (none: no Soroban). */
  configEntries: Uint8Array[];
}

/** The inputs of a stored transaction's re-execution; NotTraceable when the node cannot give them. */
export function reexecutionInput(store: StoreReader, networkId: Uint8Array, hash: Uint8Array, appliers: TraceAppliers): ReexecutionInput {
  const stored = store.transactionByHash(hash);
  if (!stored) throw new NotTraceable(`transaction ${toHex(hash)} is not held by this node`);
  const sequence = stored.ledgerSequence;
  const oldest = store.entryHistoryOldest();
  if (oldest === undefined || oldest > sequence - 1) {
    throw new NotTraceable(`the entry history starts at ledger ${oldest ?? '(none)'}; tracing a transaction of ledger ${sequence} needs the state of ledger ${sequence - 1}`);
  }
  const row = store.ledger(sequence);
  const previous = store.ledger(sequence - 1);
  if (!row || !previous) throw new NotTraceable(`ledger ${sequence} or the one before it is no longer stored`);
  const base = baseFromStore(store, sequence - 1);
  const config = appliers.configAt(store, sequence - 1, (key) => {
    const keyXdr = encodeLedgerKey(key);
    const bytes = base(keyXdr, toBase64(keyXdr));
    return bytes ? decodeLedgerEntry(bytes) : undefined;
  });
  return {
    networkId, sequence, meta: row.meta, previousHeader: previous.header, hash: stored.hash, envelope: stored.envelope,
    result: stored.result, txMeta: stored.meta,
    configEntries: config?.entries ?? [],
  };
}

export function traceStoredTransaction(store: StoreReader, networkId: Uint8Array, hash: Uint8Array, appliers: TraceAppliers): TransactionTrace {
  const input = reexecutionInput(store, networkId, hash, appliers);
  return reexecute(input, baseFromStore(store, input.sequence - 1), appliers);
}

/** Re-executes the transaction `input` names, reading the state before its ledger through `base`. */
export function reexecute(input: ReexecutionInput, base: BaseReader, appliers: TraceAppliers): TransactionTrace {
  const { networkId, sequence } = input;
  const lcm = xdr.LedgerCloseMeta.schema.decode(input.meta);
  const closed = closedLedgerOf(lcm, networkId, `ledger ${sequence}`);
  const index = closed.transactions.findIndex((t) => t.hashHex === toHex(input.hash));
  if (index < 0) throw new NotTraceable(`ledger ${sequence} does not list transaction ${toHex(input.hash)}`);
  const rules = xdr.LedgerHeaderHistoryEntry.schema.decode(input.previousHeader).header;

  const state = new StateBeforeTransaction(base);
  for (const t of closed.transactions) state.apply(t.feeProcessing);
  for (const t of closed.transactions.slice(0, index)) state.apply(metaChanges(t.meta));

  const target = closed.transactions[index];
  const frames = closed.transactions.map((t) => frameOf(t.envelope, networkId));
  const frame = frames[index];
  const ledger: LedgerContext = {
    ledgerSeq: sequence, closeTime: closed.header.scpValue.closeTime, protocolVersion: rules.ledgerVersion,
    baseReserve: rules.baseReserve, baseFee: rules.baseFee, networkId,
  };
  const config = appliers.configOf(input.configEntries);
  const host = config ? appliers.forConfig(config, rules.ledgerVersion) : undefined;
  const sorobanEnv = config && host ? { config, host } : undefined;
  const prngSeed = sha256(txSetHash(lcm), u64(BigInt(index)));

  const hostRuns: HostRun[] = [];
  const root = new LedgerTxn(state, sequence, { idPool: rules.idPool });
  const applied = applyTransaction(frame, root, ledger, feeTaken(target.feeProcessing, frame.feeSourceId), maxSeqNumsToApply(frames),
    sorobanEnv, prngSeed, { skipSignatureVerification: true, txSetBaseFee: target.txSetBaseFee, hostRuns });
  const refund = applied.soroban?.tracker.refund ?? 0n;
  if (refund > 0n) recordRefund(applied.result, applied.meta, refund, networkId, frame);

  // against the stored bytes themselves
  const sameResult = bytesEqual(xdr.TransactionResult.schema.encode(applied.result), input.result);
  const sameMeta = bytesEqual(xdr.TransactionMeta.schema.encode(applied.meta), input.txMeta);
  const difference = sameResult && sameMeta ? null : compareTransaction(applied, { result: target.result, meta: target.meta });

  const trace = transactionTrace({ frame, result: applied.result, meta: applied.meta, hostRuns, networkId, ...(host ? { host } : {}) },
    { hash: toHex(input.hash), ledger: sequence, applicationOrder: index + 1 });
  trace.reproduced = { result: sameResult, meta: sameMeta };
  if (!sameResult || !sameMeta) {
    trace.reproduced.difference = difference ? describeDifference(difference)
      : 'equal once each list of changes is put in one order (core lists a ledger\'s changes in a per-process order)';
  }
  return trace;
}

/**
 * What a Soroban transaction reads of the state for sure: its footprint, the footprint's TTL entries,
 * and its source and fee-source accounts. A trace worker is given these (traceWorkers.ts); anything
 * else makes it hand the transaction back. Undefined for a classic transaction: it may read anything.
 */
export function readSetOf(envelopeXdr: Uint8Array): Uint8Array[] | undefined {
  const envelope = xdr.TransactionEnvelope.schema.decode(envelopeXdr);
  const inner = envelope.type === 5 ? envelope.feeBump.tx.innerTx.v1.tx : envelope.type === 2 ? envelope.v1.tx : undefined;
  if (!inner || inner.ext.v !== 1 || inner.operations.length !== 1 || inner.operations[0].body.type !== 24) return undefined;
  const { readOnly, readWrite } = inner.ext.sorobanData.resources.footprint;
  const keys = [...readOnly, ...readWrite];
  const out = keys.map(encodeLedgerKey);
  for (const key of keys) if (isSorobanKey(key)) out.push(encodeLedgerKey(ttlKeyFor(key)));
  const op = inner.operations[0];
  for (const account of [inner.sourceAccount, op.sourceAccount, envelope.type === 5 ? envelope.feeBump.tx.feeSource : null]) {
    if (account) out.push(encodeLedgerKey(accountKey(muxedToAccountId(account))));
  }
  return out;
}
