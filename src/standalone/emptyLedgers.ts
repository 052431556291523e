// Empty ledgers made fast, for the developer network's fast-forward (src/standalone/fastForward.ts):
// a million of them must take seconds, so nothing here goes through js-xdr per ledger. The header,
// the transaction set and the meta of an empty ledger differ from the previous one's only in a few
// fixed places (sequence, hashes, close time, skip list, evicted keys), so each is a template
// encoded once and patched in place; the three hashes a ledger needs (its transaction set, its
// state hash, its header) are one crypto.hash call each.
//
// Deviation from stellar-core (and from this network's ordinary closes, src/ledger/closeLedger.ts):
// a fast-forwarded ledger's StellarValue is STELLAR_VALUE_BASIC, unsigned. Signing costs 54 µs per
// ledger here (ed25519), more than all the rest of an empty ledger together: a million signed
// ledgers would take over 50 s. Everything else is what an ordinary close of an empty ledger
// makes: the same transaction set (empty phases, chained by the previous ledger's hash), result-set
// hash, state hash chain (closeLedger.ts stateHash), skip list, and a header hash that is the
// sha256 of the header's XDR, so followers (src/ingest/verifiedLedger.ts) and getLedgers' clients
// see an unbroken chain.
import { hash as nodeHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import { sha256, type LedgerHeader } from '../xdr/codec.ts';
import { updateSkipList } from '../ledger/header.ts';

const digest = (bytes: Uint8Array): Buffer => nodeHash('sha256', bytes, 'buffer') as Buffer;

/** The empty generalized transaction set every empty ledger closes with (closeLedgerSteps' shape). */
export function emptyTxSet(previousLedgerHash: Uint8Array): xdr.GeneralizedTransactionSetWire {
  return {
    v: 1,
    v1TxSet: { previousLedgerHash, phases: [{ v: 0, v0Components: [] }, { v: 1, parallelTxsComponent: { baseFee: null, executionStages: [] } }] },
  };
}

/** Where the patched fields sit in a LedgerHeader's XDR with a BASIC StellarValue without upgrades. */
const H = { prevHash: 4, txSetHash: 36, closeTime: 68, bucketListHash: 116, ledgerSeq: 148, skipList: 192, size: 324 } as const;
/** The transaction set's previousLedgerHash (after the union's discriminant). */
const TXSET_PREV_HASH = 4;

/** One empty ledger as made: its header entry's XDR and its hash, and what the meta needs. */
export interface EmptyLedger {
  seq: number;
  closeTime: bigint;
  hash: Buffer;
}

/**
 * The chain of empty ledgers after `prev`. `next(closeTime)` makes the next one (its hashes);
 * `headerEntryXdr()` / `metaXdr()` give the encodings of the ledger last made, for those that are
 * stored (a fast-forward past the retention window stores only its last ledgers).
 */
export class EmptyLedgerChain {
  private readonly header: Buffer;
  private readonly txSet: Buffer;
  /** prev bucketListHash | txSetHash | txSetResultHash: the state hash's input. */
  private readonly stateInput: Buffer;
  private readonly skip: { ledgerSeq: number; skipList: Uint8Array[]; bucketListHash: Uint8Array };
  private seq: number;
  private lastHash: Buffer;
  private closeTime: bigint;
  readonly protocolVersion: number;

  constructor(prev: { header: LedgerHeader; hash: Uint8Array }) {
    const h = prev.header;
    if (h.ext.v !== 0) throw new Error('fast-forward: a ledger header extension is not supported');
    const resultSetHash = sha256(xdr.TransactionResultSet.schema.encode({ results: [] }));
    const template: LedgerHeader = {
      ...h,
      scpValue: { txSetHash: new Uint8Array(32), closeTime: 0n, upgrades: [], ext: { v: 0 } },
      txSetResultHash: resultSetHash,
      skipList: [...h.skipList],
    };
    this.header = Buffer.from(xdr.LedgerHeader.schema.encode(template));
    if (this.header.length !== H.size) throw new Error(`fast-forward: unexpected header size ${this.header.length}`);
    this.txSet = Buffer.from(xdr.GeneralizedTransactionSet.schema.encode(emptyTxSet(new Uint8Array(32))));
    this.stateInput = Buffer.alloc(96);
    this.stateInput.set(h.bucketListHash, 0);
    this.stateInput.set(resultSetHash, 64);
    this.skip = { ledgerSeq: h.ledgerSeq, skipList: [...h.skipList], bucketListHash: h.bucketListHash };
    this.seq = h.ledgerSeq;
    this.lastHash = Buffer.from(prev.hash);
    this.closeTime = h.scpValue.closeTime;
    this.protocolVersion = h.ledgerVersion;
  }

  /** The sequence of the ledger last made (the previous ledger's before any). */
  get latestSeq(): number { return this.seq; }
  get latestHash(): Buffer { return this.lastHash; }
  get latestCloseTime(): bigint { return this.closeTime; }

  /** Makes the next empty ledger, closing at `closeTime`; returns its hash. */
  next(closeTime: bigint): Buffer {
    const seq = ++this.seq;
    const prevHash = this.lastHash;
    this.txSet.set(prevHash, TXSET_PREV_HASH);
    const txSetHash = digest(this.txSet);
    this.stateInput.set(txSetHash, 32);
    const bucketListHash = digest(this.stateInput);
    this.stateInput.set(bucketListHash, 0);
    const hdr = this.header;
    hdr.set(prevHash, H.prevHash);
    hdr.set(txSetHash, H.txSetHash);
    hdr.writeBigUInt64BE(closeTime, H.closeTime);
    hdr.set(bucketListHash, H.bucketListHash);
    hdr.writeUInt32BE(seq, H.ledgerSeq);
    if (seq % 50 === 0) {
      this.skip.ledgerSeq = seq;
      this.skip.bucketListHash = bucketListHash;
      updateSkipList(this.skip);
      for (let i = 0; i < 4; i++) hdr.set(this.skip.skipList[i], H.skipList + 32 * i);
    }
    this.lastHash = digest(hdr);
    this.closeTime = closeTime;
    return this.lastHash;
  }

  /** The LedgerHeaderHistoryEntry XDR of the ledger last made (hash, header, ext v0). */
  headerEntryXdr(): Buffer {
    const out = Buffer.alloc(32 + H.size + 4);
    out.set(this.lastHash, 0);
    out.set(this.header, 32);
    return out;
  }

  /**
   * The LedgerCloseMeta (V2) XDR of the ledger last made: its header entry, its empty transaction
   * set, no transactions, upgrades or SCP messages, the state-size average and the evicted keys.
   */
  metaXdr(headerEntry: Buffer, liveSorobanStateSize: bigint, evictedKeys: readonly Uint8Array[]): Buffer {
    let keysLength = 0;
    for (const k of evictedKeys) keysLength += k.length;
    const out = Buffer.alloc(8 + headerEntry.length + this.txSet.length + 12 + 8 + 4 + keysLength);
    let at = out.writeUInt32BE(2, 0);            // LedgerCloseMeta v2
    at = out.writeUInt32BE(0, at);               // LedgerCloseMetaV2.ext v0
    out.set(headerEntry, at); at += headerEntry.length;
    out.set(this.txSet, at); at += this.txSet.length;  // patched with this ledger's previous hash by next()
    at += 12;                                    // txProcessing, upgradesProcessing, scpInfo: empty
    at = out.writeBigUInt64BE(liveSorobanStateSize, at);
    at = out.writeUInt32BE(evictedKeys.length, at);
    for (const k of evictedKeys) { out.set(k, at); at += k.length; }
    return out;
  }
}
