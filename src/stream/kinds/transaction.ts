// `transaction`: one notification, in the getTransaction result shape, once the transaction with
// `hash` (inner or outer hash of a fee bump) is in a stored ledger — at once when it already is —
// then the subscription ends. Replaces polling getTransaction after sendTransaction. The item id is
// the hash (lowercase hex).
import { AnswerBudget } from '../../rpc/answerBudget.ts';
import { methodCall } from '../../rpc/callScope.ts';
import { getTransaction } from '../../rpc/methods/getTransaction.ts';
import { goHexDecode } from '../../rpc/methods/shared/go.ts';
import { formatOf } from '../../rpc/methods/shared/xdrFormat.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import { resultText } from '../../rpc/rawJson.ts';
import { networkIdOf, toHex } from '../../xdr/codec.ts';
import { decodeEnvelope, innerTransactionHash } from '../../xdr/transactions.ts';
import { ledgerTransactions } from './ledgerTransactions.ts';
import { KeyedSets } from '../keyedSets.ts';
import type { ResumePoint } from '../streamSink.ts';
import {
  invalid, paramsValidator, toBytes, validate, type Kind, type LedgerMatch, type ReplayPage, type StreamItem, type Subscription,
} from './kind.ts';

interface TransactionSubscription extends Subscription {
  /** Lowercase hex. */
  hash: string;
  hashBytes: Uint8Array;
}

const check = paramsValidator({ hash: { type: 'string' } }, ['hash']);

/** Transactions of a ledger read at a time. */

export class TransactionKind implements Kind<TransactionSubscription> {
  readonly name = 'transaction' as const;
  readonly pageSize = 1;
  readonly single = true;
  private readonly ctx: MethodContext;
  private readonly networkId: Uint8Array;
  private readonly subs = new Set<TransactionSubscription>();
  /** The hash index: live subscriptions by the hash they wait for. */
  private readonly byHash = new KeyedSets<TransactionSubscription>();

  constructor(ctx: MethodContext) {
    this.ctx = ctx;
    this.networkId = networkIdOf(ctx.config.networkPassphrase);
  }

  open(params: Record<string, unknown>, base: Subscription, latest: number): TransactionSubscription {
    validate(check, params);
    const text = params.hash as string;
    const bytes = text.length === 64 ? goHexDecode(text) : 'a 64-digit hex hash';
    if (typeof bytes === 'string') throw invalid(`invalid hash ${JSON.stringify(text)}: ${bytes}`);
    return { ...base, format: formatOf(params.xdrFormat), hash: toHex(bytes), hashBytes: bytes, through: latest };
  }

  async replay(sub: TransactionSubscription, through: number): Promise<ReplayPage> {
    const tx = this.ctx.store.transactionByHash(sub.hashBytes);
    if (tx === undefined || tx.ledgerSequence > through) return { items: [], done: true };
    return { items: [await this.render(sub)], done: true };
  }

  /** It has no cursor: subscribing again with its hash resumes it. */
  resumeAfter(): ResumePoint { return {}; }

  add(sub: TransactionSubscription): void {
    this.subs.add(sub);
    this.byHash.add(sub.hash, sub);
  }

  remove(sub: TransactionSubscription): void {
    this.subs.delete(sub);
    this.byHash.delete(sub.hash, sub);
  }

  live(): Iterable<TransactionSubscription> { return this.subs; }
  get liveCount(): number { return this.subs.size; }

  async *ledger(sequence: number): AsyncIterable<LedgerMatch<TransactionSubscription>> {
    if (this.subs.size === 0) return;
    const waiting: TransactionSubscription[] = [];
    for (const tx of ledgerTransactions(this.ctx.store, sequence)) {
      const hashes = [toHex(tx.hash)];
      if (tx.feeBump) {
        const inner = innerTransactionHash(this.networkId, decodeEnvelope(tx.envelope));
        if (inner) hashes.push(toHex(inner));
      }
      for (const h of hashes) for (const s of this.byHash.get(h)) waiting.push(s);
    }
    for (const sub of waiting) yield { item: await this.render(sub), subs: [sub] };
  }

  /** getTransaction's own answer for the hash, as that method gives it now. */
  private async render(sub: TransactionSubscription): Promise<StreamItem> {
    const call = methodCall(new AbortController().signal, new AnswerBudget(0));
    const result = await getTransaction.handler({ hash: sub.hash, xdrFormat: sub.format }, this.ctx, call);
    return { id: sub.hash, bytes: toBytes(resultText(result)) };
  }
}
