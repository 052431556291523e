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
import { xdr } from '../xdr/xdr.ts';
import { sha256, type LedgerHeader } from '../xdr/codec.ts';
import { updateSkipList } from '../ledger/header.ts';
import { loadNative, nativeAvailable } from '../host/native.ts';
import { emptyTxSet } from '../ledger/txSet.ts';

const digest = (bytes: Uint8Array): Buffer => nodeHash('sha256', bytes, 'buffer') as Buffer;

/** Where the patched fields sit in a LedgerHeader's XDR with a BASIC StellarValue without upgrades. */
const H = { prevHash: 4, txSetHash: 36, closeTime: 68, bucketListHash: 116, ledgerSeq: 148, skipList: 192, size: 324 } as const;
/** A LedgerHeaderHistoryEntry's XDR: hash, header, ext v0. */
export const ENTRY_SIZE = 32 + H.size + 4;
/** The transaction set's previousLedgerHash (after the union's discriminant). */
const TXSET_PREV_HASH = 4;
const TXSET_SIZE = 60;
/**
 * The chain state, one buffer (native/src/chain.rs reads the same layout): the header template, the
 * transaction set's XDR, the state hash's input (bucket-list hash | tx set hash | result set hash)
 * and the hash of the ledger last made.
 */
const C = { header: 0, txSet: H.size, state: H.size + TXSET_SIZE, lastHash: H.size + TXSET_SIZE + 96, size: H.size + TXSET_SIZE + 96 + 32 } as const;

/**
 * The chain of empty ledgers after `prev`. `next(closeTime)` makes the next one;
 * `headerEntryXdr()` / `metaXdr()` give the encodings of the ledger last made, for those that are
 * stored (a fast-forward past the retention window stores only its last ledgers); `skip` makes many
 * whose encodings nobody needs, natively when the addon has it.
 */
export class EmptyLedgerChain {
  private chain: Buffer;
  private header!: Buffer;
  private txSet!: Buffer;
  private stateInput!: Buffer;
  private seq: number;
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
    };
    const header = xdr.LedgerHeader.schema.encode(template);
    const txSet = xdr.GeneralizedTransactionSet.schema.encode(emptyTxSet(new Uint8Array(32)));
    if (header.length !== H.size || txSet.length !== TXSET_SIZE) throw new Error('fast-forward: unexpected template sizes');
    this.chain = Buffer.alloc(C.size);
    this.chain.set(header, C.header);
    this.chain.set(txSet, C.txSet);
    this.chain.set(h.bucketListHash, C.state);
    this.chain.set(resultSetHash, C.state + 64);
    this.chain.set(prev.hash, C.lastHash);
    this.views();
    this.seq = h.ledgerSeq;
    this.closeTime = h.scpValue.closeTime;
    this.protocolVersion = h.ledgerVersion;
  }

  private views(): void {
    this.header = this.chain.subarray(C.header, C.header + H.size);
    this.txSet = this.chain.subarray(C.txSet, C.txSet + TXSET_SIZE);
    this.stateInput = this.chain.subarray(C.state, C.state + 96);
  }

  /** The sequence of the ledger last made (the previous ledger's before any). */
  get latestSeq(): number { return this.seq; }
  /** The hash of the ledger last made (a copy). */
  get latestHash(): Buffer { return Buffer.from(this.chain.subarray(C.lastHash)); }
  get latestCloseTime(): bigint { return this.closeTime; }

  /**
   * Makes the next empty ledger, closing at `closeTime`. Its bucketListHash is the state hash chain's
   * (closeLedger.ts), or `bucketListHash` when given (a published checkpoint's, checkpointCommitment.ts);
   * the next ledger chains onto whichever it is.
   */
  next(closeTime: bigint, bucketListHash?: Uint8Array): void {
    const seq = ++this.seq;
    const prevHash = this.chain.subarray(C.lastHash);
    this.txSet.set(prevHash, TXSET_PREV_HASH);
    const txSetHash = digest(this.txSet);
    this.stateInput.set(txSetHash, 32);
    bucketListHash ??= digest(this.stateInput);
    this.stateInput.set(bucketListHash, 0);
    const hdr = this.header;
    hdr.set(prevHash, H.prevHash);
    hdr.set(txSetHash, H.txSetHash);
    hdr.writeBigUInt64BE(closeTime, H.closeTime);
    hdr.set(bucketListHash, H.bucketListHash);
    hdr.writeUInt32BE(seq, H.ledgerSeq);
    if (seq % 50 === 0) {
      const skip = { ledgerSeq: seq, bucketListHash, skipList: [0, 1, 2, 3].map((i) => Buffer.from(hdr.subarray(H.skipList + 32 * i, H.skipList + 32 * (i + 1)))) };
      updateSkipList(skip);
      for (let i = 0; i < 4; i++) hdr.set(skip.skipList[i], H.skipList + 32 * i);
    }
    this.chain.set(digest(hdr), C.lastHash);
    this.closeTime = closeTime;
  }

  /**
   * Makes `count` empty ledgers, the i-th (from 1) closing at the latest close time + i x `step`,
   * without their encodings: natively when the addon can (a fraction of a microsecond a ledger,
   * against about six through crypto.hash), else by next().
   */
  skip(count: number, step: bigint): void {
    if (count <= 0) return;
    if (this.advanceNatively(count, step, false)) return;
    for (let i = 0; i < count; i++) this.next(this.closeTime + step);
  }

  /**
   * Makes `count` empty ledgers as skip() does, and returns their LedgerHeaderHistoryEntry XDRs,
   * ENTRY_SIZE bytes each, one after the other (the ledgers that are stored).
   */
  nextMany(count: number, step: bigint): Buffer {
    const entries = this.advanceNatively(count, step, true);
    if (entries) return entries;
    const out = Buffer.alloc(count * ENTRY_SIZE);
    for (let i = 0; i < count; i++) {
      this.next(this.closeTime + step);
      out.set(this.chain.subarray(C.lastHash), i * ENTRY_SIZE);
      out.set(this.header, i * ENTRY_SIZE + 32);
    }
    return out;
  }

  /** The addon's loop (native/src/chain.rs), when the addon has it; the header entries with `withHeaders`. */
  private advanceNatively(count: number, step: bigint, withHeaders: boolean): Buffer | undefined {
    const native = nativeAvailable() ? loadNative().advanceEmptyLedgers : undefined;
    const lastTime = this.closeTime + BigInt(count) * step;
    if (!native || lastTime > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    const out = native(this.chain, this.seq + 1, count, Number(this.closeTime + step), Number(step), withHeaders);
    // an addon built before header entries were returned gives the chain state only: do it here then
    if (withHeaders && out.length !== C.size + count * ENTRY_SIZE) return undefined;
    this.chain = Buffer.from(out.subarray(0, C.size));
    this.views();
    this.seq += count;
    this.closeTime = lastTime;
    return out.subarray(C.size);
  }

  /** The LedgerHeaderHistoryEntry XDR of the ledger last made (hash, header, ext v0). */
  headerEntryXdr(): Buffer {
    const out = Buffer.alloc(32 + H.size + 4);
    out.set(this.chain.subarray(C.lastHash), 0);
    out.set(this.header, 32);
    return out;
  }

  /**
   * The LedgerCloseMeta (V2) XDR of an empty ledger: its header entry, its empty transaction set
   * (chained by `previousLedgerHash`), no transactions, upgrades or SCP messages, the state-size
   * average and the evicted keys.
   */
  metaXdr(headerEntry: Uint8Array, previousLedgerHash: Uint8Array, liveSorobanStateSize: bigint, evictedKeys: readonly Uint8Array[]): Buffer {
    let keysLength = 0;
    for (const k of evictedKeys) keysLength += k.length;
    const out = Buffer.alloc(8 + headerEntry.length + this.txSet.length + 12 + 8 + 4 + keysLength);
    let at = out.writeUInt32BE(2, 0);            // LedgerCloseMeta v2
    at = out.writeUInt32BE(0, at);               // LedgerCloseMetaV2.ext v0
    out.set(headerEntry, at); at += headerEntry.length;
    out.set(this.txSet, at);
    out.set(previousLedgerHash, at + TXSET_PREV_HASH);
    at += this.txSet.length;
    at += 12;                                    // txProcessing, upgradesProcessing, scpInfo: empty
    at = out.writeBigUInt64BE(liveSorobanStateSize, at);
    at = out.writeUInt32BE(evictedKeys.length, at);
    for (const k of evictedKeys) { out.set(k, at); at += k.length; }
    return out;
  }
}
