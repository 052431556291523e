// Turns one LedgerCloseMeta, from any source and of any version, into the rows storage keeps for it.
// The standalone network goes through it with the meta it already holds decoded. Raw metas from
// outside take native/src/ingest.rs, the same mapping in Rust (fastLedgerToBatch below); the two are
// kept equal by test/unit/ingest/nativeLedgerToBatch.test.ts on every fixture ledger.
import { xdr } from '../xdr/xdr.ts';
import {
  encodeLedgerEntry, encodeLedgerKey, toHex,
  type LedgerCloseMeta, type LedgerEntryChange, type LedgerKey, type TransactionEnvelope,
} from '../xdr/codec.ts';
import { innerTransaction, transactionHash } from '../xdr/transactions.ts';
import { isPersistentKey, keyId, ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import type { FeeSample, IngestBatch, TransactionRow } from '../store/types.ts';
import { ledgerEventRows } from '../events/eventRows.ts';
import { eventsOf } from '../events/metaEvents.ts';
import { nativeAvailable } from '../host/native.ts';
import { nativeLedgerToBatch } from './nativeLedgerToBatch.ts';

type TxResultMeta = xdr.TransactionResultMetaWire | xdr.TransactionResultMetaV1Wire;

const SOROBAN_OPS = new Set([24, 25, 26]); // InvokeHostFunction, ExtendFootprintTtl, RestoreFootprint

export interface LedgerInput {
  /** The LedgerCloseMeta as received; stored unchanged. */
  bytes: Uint8Array;
  /** Its decoded form, when the source already has it (the standalone network does). */
  meta?: LedgerCloseMeta;
  /** The envelopes of txProcessing, in order, when the source already knows them (saves re-hashing every one). */
  envelopes?: TransactionEnvelope[];
  /** Their XDR, in the same order, when the source has it (saves re-encoding every one). */
  envelopeXdrs?: Array<Uint8Array | undefined>;
  /** Each transaction's encoded TransactionResult and TransactionMeta, when the source made them. */
  encodedTransactions?: Array<{ result: Uint8Array; meta: Uint8Array }>;
}

export function ledgerToBatch(input: LedgerInput, networkId: Uint8Array): IngestBatch {
  const lcm = input.meta ?? xdr.LedgerCloseMeta.schema.decode(input.bytes);
  const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
  const headerEntry = body.ledgerHeader;
  const header = headerEntry.header;
  const seq = header.ledgerSeq;

  const envelopeOf = envelopeLookup(lcm, input.envelopes, networkId);

  const processing: TxResultMeta[] = body.txProcessing;
  const transactions: TransactionRow[] = [];
  const feeSamples: FeeSample[] = [];
  const writes = new EntryWrites();

  processing.forEach((p) => writes.applyAll(p.feeProcessing));
  processing.forEach((p, i) => {
    const hash = p.result.transactionHash;
    const env = envelopeOf(i, hash);
    if (!env) throw new Error(`ledger ${seq}: no envelope in the tx set for result ${toHex(hash)}`);
    const result = p.result.result;
    const txMeta = p.txApplyProcessing;
    writes.applyAll(metaChanges(txMeta));
    const feeBump = env.type === 5;
    transactions.push({
      ledgerSequence: seq,
      applicationOrder: i + 1,
      hash,
      innerHash: result.result.code === 1 || result.result.code === -13 ? result.result.innerResultPair.transactionHash : null,
      successful: result.result.code === 0 || result.result.code === 1,
      feeBump,
      envelope: input.envelopeXdrs?.[i] ?? xdr.TransactionEnvelope.schema.encode(env),
      result: input.encodedTransactions?.[i]?.result ?? xdr.TransactionResult.schema.encode(result),
      meta: input.encodedTransactions?.[i]?.meta ?? xdr.TransactionMeta.schema.encode(txMeta),
      events: eventsOf(txMeta),
    });
    const sample = feeSampleOf(env, result, txMeta);
    if (sample) feeSamples.push(sample);
  });
  for (const p of processing) if ('postTxApplyFeeProcessing' in p) writes.applyAll(p.postTxApplyFeeProcessing);
  for (const u of body.upgradesProcessing) writes.applyAll(u.changes);
  // An evicted persistent entry moves to the hot archive: it stays in the store without its TTL
  // entry (evicted, and listed, separately), and so reads as archived. Temporary entries and TTLs go.
  for (const k of evictedKeysOf(lcm)) if (!isPersistentKey(k)) writes.remove(k);

  return {
    ledger: {
      sequence: seq,
      hash: headerEntry.hash,
      closeTime: Number(header.scpValue.closeTime),
      protocolVersion: header.ledgerVersion,
      header: xdr.LedgerHeaderHistoryEntry.schema.encode(headerEntry),
      meta: input.bytes,
    },
    transactions,
    entryWrites: writes.list(seq),
    feeSamples,
    ...(lcm.v === 2 ? { liveSorobanStateSize: lcm.v2.totalByteSizeOfLiveSorobanState } : {}),
    events: ledgerEventRows(transactions),
  };
}

let useNative: boolean | undefined;

/** ledgerToBatch for raw LedgerCloseMeta bytes, natively when the addon is built (same batch, ~10x faster). */
export function fastLedgerToBatch(bytes: Uint8Array, networkId: Uint8Array): IngestBatch {
  useNative ??= nativeAvailable();
  return useNative ? nativeLedgerToBatch(bytes, networkId) : ledgerToBatch({ bytes }, networkId);
}

/**
 * The envelope of the i-th applied transaction. The tx set is not in apply order, so in general
 * envelopes are matched to results by hash; a source that already knows the order says so.
 */
function envelopeLookup(lcm: LedgerCloseMeta, known: TransactionEnvelope[] | undefined, networkId: Uint8Array) {
  if (known) return (i: number) => known[i];
  const byHash = new Map<string, TransactionEnvelope>();
  for (const env of envelopesOf(lcm)) byHash.set(toHex(transactionHash(networkId, env)), env);
  return (_i: number, hash: Uint8Array) => byHash.get(toHex(hash));
}

/** Every envelope in the ledger's transaction set, whatever the set's version. */
export function envelopesOf(lcm: LedgerCloseMeta): TransactionEnvelope[] {
  if (lcm.v === 0) return lcm.v0.txSet.txs;
  const set = lcm.v === 1 ? lcm.v1.txSet : lcm.v2.txSet;
  const out: TransactionEnvelope[] = [];
  for (const phase of set.v1TxSet.phases) {
    if (phase.v === 0) for (const c of phase.v0Components) out.push(...c.txsMaybeDiscountedFee.txs);
    else for (const stage of phase.parallelTxsComponent.executionStages) for (const cluster of stage) out.push(...cluster);
  }
  return out;
}

function evictedKeysOf(lcm: LedgerCloseMeta): LedgerKey[] {
  if (lcm.v === 0) return [];
  return lcm.v === 1 ? lcm.v1.evictedKeys : lcm.v2.evictedKeys;
}

/** The entry changes of a transaction's apply phase, in the order they happened. */
export function metaChanges(m: xdr.TransactionMetaWire): LedgerEntryChange[] {
  switch (m.v) {
    case 0: return m.operations.flatMap((o) => o.changes);
    case 1: return [...m.v1.txChanges, ...m.v1.operations.flatMap((o) => o.changes)];
    case 2: return [...m.v2.txChangesBefore, ...m.v2.operations.flatMap((o) => o.changes), ...m.v2.txChangesAfter];
    case 3: return [...m.v3.txChangesBefore, ...m.v3.operations.flatMap((o) => o.changes), ...m.v3.txChangesAfter];
    case 4: return [...m.v4.txChangesBefore, ...m.v4.operations.flatMap((o) => o.changes), ...m.v4.txChangesAfter];
  }
}

/**
 * getFeeStats' sample for one transaction, as the reference computes it: a Soroban transaction's
 * inclusion fee (fee charged less the resource fees), or a classic one's fee per operation.
 */
function feeSampleOf(env: TransactionEnvelope, result: xdr.TransactionResultWire, m: xdr.TransactionMetaWire): FeeSample | null {
  const ops = innerTransaction(env).operations;
  if (ops.length === 1 && SOROBAN_OPS.has(ops[0].body.type)) {
    const ext = m.v === 4 ? m.v4.sorobanMeta?.ext : m.v === 3 ? m.v3.sorobanMeta?.ext : undefined;
    if (!ext || ext.v !== 1) return null;
    const resource = ext.v1.totalNonRefundableResourceFeeCharged + ext.v1.totalRefundableResourceFeeCharged;
    return { soroban: true, fee: result.feeCharged - resource };
  }
  if (ops.length === 0) return null;
  return { soroban: false, fee: result.feeCharged / BigInt(ops.length) };
}

/** The final value of every entry a ledger touched (last change wins), encoded once at the end. */
class EntryWrites {
  private readonly byKey = new Map<string, { key: LedgerKey; entry: xdr.LedgerEntryWire | null }>();

  applyAll(changes: LedgerEntryChange[]): void {
    for (const c of changes) {
      switch (c.type) {
        case 0: this.put(c.created); break;
        case 1: this.put(c.updated); break;
        case 2: this.remove(c.removed); break;
        case 3: break; // the state before a change: not a write
        case 4: this.put(c.restored); break;
      }
    }
  }

  private put(e: xdr.LedgerEntryWire): void {
    const key = ledgerKeyOf(e.data);
    this.byKey.set(keyId(key), { key, entry: e });
  }

  remove(key: LedgerKey): void { this.byKey.set(keyId(key), { key, entry: null }); }

  list(seq: number) {
    return [...this.byKey.values()].map(({ key, entry }) => ({
      key: encodeLedgerKey(key),
      entry: entry ? encodeLedgerEntry(entry) : null,
      lastModified: entry ? entry.lastModifiedLedgerSeq : seq,
    }));
  }
}
