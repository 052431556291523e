// `transactions`: every committed transaction in the getTransactions item shape, or only those an
// `account` is involved in (source, fee-bump fee source, any operation's source); item id = the
// transaction's TOID as getTransactions' cursor writes it.
import type { StoredTransaction } from '../../store/types.ts';
import { GoNumError, parseGoInt64 } from '../../rpc/methods/shared/go.ts';
import { ledgerStartToid, toidDecode, transactionCursor } from '../../ids/toid.ts';
import { transactionInfo } from '../../rpc/methods/shared/transactionInfo.ts';
import { formatOf, type XdrFormat } from '../../rpc/methods/shared/xdrFormat.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import type { ResumePoint } from '../streamSink.ts';
import {
  byFormat, invalid, paramsValidator, readStart, requireStored, startProperties, toBytes, validate,
  type Kind, type LedgerMatch, type ReplayLimit, type ReplayPage, type StreamItem, type Subscription,
} from './kind.ts';
import { accountKeyOf, transactionAccounts } from './accounts.ts';
import { ledgerTransactions } from './ledgerTransactions.ts';
import { KeyedSets } from '../keyedSets.ts';

interface TransactionsSubscription extends Subscription {
  /** Hex ed25519 key of the account filter; undefined: every transaction. */
  account: string | undefined;
  /** The TOID replay reads from. */
  next: bigint;
}

const check = paramsValidator({ ...startProperties, account: { type: 'string' } });

/** Transactions of a ledger read at a time. */


export class TransactionsKind implements Kind<TransactionsSubscription> {
  readonly name = 'transactions' as const;
  readonly pageSize = 50;
  readonly single = false;
  private readonly ctx: MethodContext;
  private readonly subs = new Set<TransactionsSubscription>();
  /** The account index: live subscriptions by account key, and those without a filter. */
  private readonly byAccount = new KeyedSets<TransactionsSubscription>();
  private readonly unfiltered = new Set<TransactionsSubscription>();

  constructor(ctx: MethodContext) { this.ctx = ctx; }

  open(params: Record<string, unknown>, base: Subscription, latest: number): TransactionsSubscription {
    validate(check, params);
    const start = readStart(params);
    const account = typeof params.account === 'string' ? accountKeyOf(params.account) : undefined;
    const sub: TransactionsSubscription = { ...base, format: formatOf(params.xdrFormat), account, next: ledgerStartToid(latest + 1), through: latest };
    let firstLedger = latest + 1;
    if (start.from === 'ledger') {
      requireStored(this.ctx, start.ledger);
      sub.next = ledgerStartToid(start.ledger);
      firstLedger = start.ledger;
    } else if (start.from === 'cursor') {
      let id: bigint;
      try {
        id = parseGoInt64(start.cursor);
      } catch (e) {
        if (e instanceof GoNumError) throw invalid(`invalid cursor ${JSON.stringify(start.cursor)}: ${e.message}`);
        throw e;
      }
      const seen = toidDecode(id);
      requireStored(this.ctx, seen.ledger);
      // the next transaction's TOID (operation 0); past a ledger's last possible one, the next
      // ledger's first (what resumeAfter's cursor is)
      sub.next = ((id >> 12n) + 1n) << 12n;
      firstLedger = seen.ledger;
    }
    sub.through = firstLedger - 1;
    return sub;
  }

  async replay(sub: TransactionsSubscription, through: number, limit: ReplayLimit): Promise<ReplayPage> {
    const end = ledgerStartToid(through + 1);
    if (sub.next >= end) return { items: [], done: true };
    const rows = this.ctx.store.transactionsFrom(sub.next, limit.items);
    const items: StreamItem[] = [];
    let bytes = 0;
    let done = rows.length < limit.items;
    for (const tx of rows) {
      if (tx.id >= end) { done = true; break; }
      if (items.length > 0 && bytes >= limit.bytes) { done = false; break; }
      sub.next = tx.id + 1n;
      if (!this.involves(sub, tx)) continue;
      const item = { id: transactionCursor(tx.ledgerSequence, tx.applicationOrder), bytes: await this.render(tx, sub.format) };
      items.push(item);
      bytes += item.bytes.length;
    }
    if (done) sub.next = end;
    return { items, done };
  }

  /** The TOID before the next ledger's: its cursor resumes at that ledger's first transaction. */
  resumeAfter(ledger: number): ResumePoint { return { cursor: String(ledgerStartToid(ledger + 1) - 1n) }; }

  add(sub: TransactionsSubscription): void {
    this.subs.add(sub);
    if (sub.account === undefined) {
      this.unfiltered.add(sub);
      return;
    }
    this.byAccount.add(sub.account, sub);
  }

  remove(sub: TransactionsSubscription): void {
    this.subs.delete(sub);
    this.unfiltered.delete(sub);
    if (sub.account === undefined) return;
    this.byAccount.delete(sub.account, sub);
  }

  live(): Iterable<TransactionsSubscription> { return this.subs; }
  get liveCount(): number { return this.subs.size; }

  async *ledger(sequence: number): AsyncIterable<LedgerMatch<TransactionsSubscription>> {
    if (this.subs.size === 0) return;
    for (const tx of ledgerTransactions(this.ctx.store, sequence)) {
      const subs = new Set(this.unfiltered);
      if (this.byAccount.size > 0) {
        for (const key of transactionAccounts(tx.envelope)) for (const s of this.byAccount.get(key)) subs.add(s);
      }
      if (subs.size === 0) continue;
      const id = transactionCursor(tx.ledgerSequence, tx.applicationOrder);
      for (const [format, group] of byFormat(subs)) yield { item: { id, bytes: await this.render(tx, format) }, subs: group };
    }
  }

  private involves(sub: TransactionsSubscription, tx: StoredTransaction): boolean {
    return sub.account === undefined || transactionAccounts(tx.envelope).has(sub.account);
  }

  private async render(tx: StoredTransaction, format: XdrFormat): Promise<Buffer> {
    const item = transactionInfo(tx, format, this.ctx.heavy);
    return toBytes(typeof item === 'string' ? item : await item);
  }
}
