// Transactions waiting for a ledger, with stellar-core's admission rules: one pending transaction per
// source account (a fee bump may replace it by paying at least ten times the fee rate), a size limit,
// and a ban on transactions that sat through four ledgers without getting in and, as core's
// removeApplied does, on transactions just applied (sent again, they are TRY_AGAIN_LATER for the
// ban's ten ledgers, then invalid: their sequence number is used).
import { toHex } from '../xdr/codec.ts';
import { feeRate, type TransactionFrame } from './transactionFrame.ts';

export const PENDING_DEPTH = 4;   // ledgers a transaction may wait before it is dropped and banned
export const BAN_DEPTH = 10;      // ledgers a dropped transaction stays banned
const FEE_MULTIPLIER = 10;

interface Queued { frame: TransactionFrame; age: number }

/** A copy of the queue's contents (the frames themselves are immutable and shared). */
export interface QueueContents {
  readonly queued: ReadonlyArray<{ frame: TransactionFrame; age: number }>;
  readonly banned: ReadonlyArray<readonly [string, number]>;
}

export type Admission = 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER';

export class TransactionQueue {
  private readonly queued = new Map<string, Queued>();       // by hash hex, in arrival order
  private readonly bySource = new Map<string, string>();     // source account hex -> hash hex
  private readonly banned = new Map<string, number>();       // hash hex -> ledgers left
  private readonly feesBySource = new Map<string, bigint>(); // fee source hex -> fees promised by queued txs
  private operations = 0;
  private readonly maxOperations: number;

  constructor(maxOperations: number) { this.maxOperations = maxOperations; }

  get size(): number { return this.queued.size; }
  has(hashHex: string): boolean { return this.queued.has(hashHex); }
  isBanned(hashHex: string): boolean { return this.banned.has(hashHex); }

  /** Fees already promised by queued transactions of a fee source (to check its balance covers them all). */
  pendingFees(feeSourceHex: string, except?: string): bigint {
    const total = this.feesBySource.get(feeSourceHex) ?? 0n;
    const replaced = except ? this.queued.get(except) : undefined;
    return replaced && toHex(replaced.frame.feeSourceId.ed25519) === feeSourceHex ? total - replaced.frame.declaredFee : total;
  }

  private addFee(frame: TransactionFrame, sign: 1n | -1n): void {
    const src = toHex(frame.feeSourceId.ed25519);
    const total = (this.feesBySource.get(src) ?? 0n) + sign * frame.declaredFee;
    if (total === 0n) this.feesBySource.delete(src); else this.feesBySource.set(src, total);
  }

  /** Whether the transaction may enter, before validation; `replaces` is the queued one it would replace. */
  admit(frame: TransactionFrame): { status: Admission; replaces?: string } {
    if (this.queued.has(frame.hashHex)) return { status: 'DUPLICATE' };
    if (this.banned.has(frame.hashHex)) return { status: 'TRY_AGAIN_LATER' };
    const current = this.bySource.get(toHex(frame.sourceId.ed25519));
    if (current) {
      const old = this.queued.get(current)!.frame;
      const sameInner = old.innerHash && toHex(old.innerHash) === toHex(frame.innerHash);
      if (!frame.feeBump || !sameInner || feeRate(frame) < feeRate(old) * FEE_MULTIPLIER) return { status: 'TRY_AGAIN_LATER' };
      return { status: 'PENDING', replaces: current };
    }
    if (this.operations + frame.feeOps > this.maxOperations) return { status: 'TRY_AGAIN_LATER' };
    return { status: 'PENDING' };
  }

  add(frame: TransactionFrame, replaces?: string): void {
    if (replaces) this.remove(replaces);
    this.queued.set(frame.hashHex, { frame, age: 0 });
    this.bySource.set(toHex(frame.sourceId.ed25519), frame.hashHex);
    this.operations += frame.feeOps;
    this.addFee(frame, 1n);
  }

  /** Transactions for the next ledger, oldest first, up to `maxOps` operations. */
  take(maxOps: number): TransactionFrame[] {
    const out: TransactionFrame[] = [];
    let ops = 0;
    for (const q of this.queued.values()) {
      if (ops + q.frame.feeOps > maxOps) break;
      ops += q.frame.feeOps;
      out.push(q.frame);
    }
    return out;
  }

  /** After a close: drop and ban what got in, age the rest, ban what waited too long. */
  ledgerClosed(included: TransactionFrame[]): void {
    for (const [hash, left] of this.banned) {
      if (left <= 1) this.banned.delete(hash); else this.banned.set(hash, left - 1);
    }
    for (const f of included) {
      this.remove(f.hashHex);
      this.banned.set(f.hashHex, BAN_DEPTH);
    }
    for (const q of [...this.queued.values()]) {
      q.age++;
      if (q.age >= PENDING_DEPTH) {
        this.remove(q.frame.hashHex);
        this.banned.set(q.frame.hashHex, BAN_DEPTH);
      }
    }
  }

  /**
   * A ledger holding these could not be closed (a fault, not a verdict on them): they leave the
   * queue and are banned, so that one transaction cannot stop every later ledger from closing.
   */
  discard(frames: TransactionFrame[]): void {
    for (const f of frames) {
      this.remove(f.hashHex);
      this.banned.set(f.hashHex, BAN_DEPTH);
    }
  }

  /** What the queue holds now (transactions with their ages, bans), to put back with restore(). */
  save(): QueueContents {
    return {
      queued: [...this.queued.values()].map((q) => ({ frame: q.frame, age: q.age })),
      banned: [...this.banned],
    };
  }

  /** Puts the queue back as save() found it (a developer revert); what it holds now is dropped. */
  restore(contents: QueueContents): void {
    this.clear();
    for (const q of contents.queued) {
      this.add(q.frame);
      this.queued.get(q.frame.hashHex)!.age = q.age;
    }
    for (const [hash, left] of contents.banned) this.banned.set(hash, left);
  }

  /** Empties the queue and lifts every ban. */
  clear(): void {
    this.queued.clear();
    this.bySource.clear();
    this.banned.clear();
    this.feesBySource.clear();
    this.operations = 0;
  }

  private remove(hashHex: string): void {
    const q = this.queued.get(hashHex);
    if (!q) return;
    this.queued.delete(hashHex);
    const src = toHex(q.frame.sourceId.ed25519);
    if (this.bySource.get(src) === hashHex) this.bySource.delete(src);
    this.operations -= q.frame.feeOps;
    this.addFee(q.frame, -1n);
  }
}
