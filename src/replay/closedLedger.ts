// A closed ledger as the replay reads it, whatever the LedgerCloseMeta version: its header, its
// transactions in application order with their envelopes, and every list of entry changes it
// carries, in the order the network made them (fees of all transactions, each transaction's apply,
// the post-apply fee refunds, then upgrades; evictions last).
import type { xdr } from '../xdr/xdr.ts';
import { toHex, type LedgerEntryChange, type LedgerHeader, type LedgerKey, type TransactionEnvelope } from '../xdr/codec.ts';
import { transactionHash } from '../xdr/transactions.ts';
import { envelopesOf, metaChanges } from '../ingest/ledgerToBatch.ts';
import { ReplayInputError } from './ledgerFiles.ts';

export interface ClosedTransaction {
  /** Index in txProcessing: the application order. */
  index: number;
  hashHex: string;
  envelope: TransactionEnvelope;
  result: xdr.TransactionResultWire;
  feeProcessing: LedgerEntryChange[];
  meta: xdr.TransactionMetaWire;
  /** Fee refunds made after every transaction applied (protocol 23+); empty before. */
  postApplyFeeProcessing: LedgerEntryChange[];
  /**
   * The base fee the set charged it at: its component's discounted base fee, null when the component
   * has none (it paid its bid); undefined for a legacy transaction set (the ledger's base fee).
   */
  txSetBaseFee: bigint | null | undefined;
}

export interface ClosedLedger {
  sequence: number;
  header: LedgerHeader;
  transactions: ClosedTransaction[];
  upgradeChanges: LedgerEntryChange[][];
  evictedKeys: LedgerKey[];
}

type TxResultMeta = xdr.TransactionResultMetaWire | xdr.TransactionResultMetaV1Wire;

/** Pairs each result with its envelope (the tx set is not in application order); throws on a result without one. */
export function closedLedgerOf(lcm: xdr.LedgerCloseMetaWire, networkId: Uint8Array, file: string): ClosedLedger {
  const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
  const header = body.ledgerHeader.header;
  const byHash = new Map<string, { envelope: TransactionEnvelope; baseFee: bigint | null | undefined }>();
  for (const { envelopes, baseFee } of setComponents(lcm)) {
    for (const envelope of envelopes) byHash.set(toHex(transactionHash(networkId, envelope)), { envelope, baseFee });
  }
  const processing: TxResultMeta[] = body.txProcessing;
  const transactions = processing.map((p, index): ClosedTransaction => {
    const hashHex = toHex(p.result.transactionHash);
    const inSet = byHash.get(hashHex);
    if (!inSet) {
      throw new ReplayInputError(`${file}: ledger ${header.ledgerSeq}: transaction ${hashHex} has no envelope in the ledger's transaction set under this network passphrase`);
    }
    return {
      index, hashHex, envelope: inSet.envelope, result: p.result.result, feeProcessing: p.feeProcessing, meta: p.txApplyProcessing,
      postApplyFeeProcessing: 'postTxApplyFeeProcessing' in p ? p.postTxApplyFeeProcessing : [], txSetBaseFee: inSet.baseFee,
    };
  });
  return {
    sequence: header.ledgerSeq, header, transactions,
    upgradeChanges: body.upgradesProcessing.map((u) => u.changes),
    evictedKeys: lcm.v === 0 ? [] : lcm.v === 1 ? lcm.v1.evictedKeys : lcm.v2.evictedKeys,
  };
}

/** The transaction set's envelopes by component, with the base fee each component charges. */
function* setComponents(lcm: xdr.LedgerCloseMetaWire): Generator<{ envelopes: TransactionEnvelope[]; baseFee: bigint | null | undefined }> {
  if (lcm.v === 0) { yield { envelopes: lcm.v0.txSet.txs, baseFee: undefined }; return; }
  const set = lcm.v === 1 ? lcm.v1.txSet : lcm.v2.txSet;
  for (const phase of set.v1TxSet.phases) {
    if (phase.v === 0) {
      for (const c of phase.v0Components) yield { envelopes: c.txsMaybeDiscountedFee.txs, baseFee: c.txsMaybeDiscountedFee.baseFee };
    } else {
      const component = phase.parallelTxsComponent;
      yield { envelopes: component.executionStages.flat(2), baseFee: component.baseFee };
    }
  }
}

/**
 * Every change list of a ledger, in the order the network applied them: the fees of all
 * transactions, each transaction's apply, the post-apply fee refunds, then upgrades (evictions are
 * keys only, apart). Needs no envelopes, so any network's ledger can be read this way.
 */
export function* changeListsInOrder(lcm: xdr.LedgerCloseMetaWire): Generator<LedgerEntryChange[]> {
  const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
  const processing: TxResultMeta[] = body.txProcessing;
  for (const p of processing) yield p.feeProcessing;
  for (const p of processing) yield metaChanges(p.txApplyProcessing);
  for (const p of processing) if ('postTxApplyFeeProcessing' in p) yield p.postTxApplyFeeProcessing;
  for (const u of body.upgradesProcessing) yield u.changes;
}

/** The passphrases of the public networks, tried in this order when none is given. */
export const KNOWN_PASSPHRASES = [
  'Public Global Stellar Network ; September 2015',
  'Test SDF Network ; September 2015',
  'Test SDF Future Network ; October 2022',
] as const;

/**
 * Whether the ledger's transactions hash to their results' hashes under `networkId` (the network
 * id is part of every transaction hash). Undefined when the ledger has no transaction to tell by.
 */
export function ledgerBelongsTo(lcm: xdr.LedgerCloseMetaWire, networkId: Uint8Array): boolean | undefined {
  const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
  const first = body.txProcessing[0];
  if (!first) return undefined;
  const want = toHex(first.result.transactionHash);
  return envelopesOf(lcm).some((env) => toHex(transactionHash(networkId, env)) === want);
}
