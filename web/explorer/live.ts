// The latest ledgers and transactions, kept current by the node's own streaming: the last ledgers
// come as the `ledgers` subscription's replay and then live; the last transactions are read with
// getTransactions (from ever wider windows back from the latest ledger until there are enough) and
// then followed by a `transactions` subscription starting right after the ledger that read ended at.
// A ledger that comes with a sequence already held means a developer revert took the network back:
// what was held from that ledger on is dropped.
import { call, ledgerWindow } from './rpc.ts';
import { stream, transactionToid, type Subscription } from './stream.ts';
import { summarize, type TxSummary } from './transactions.ts';

export interface LedgerSummary { sequence: number; hash: string; closeTime: number }

/** Transactions read from a start ledger: all of them up to `through` when `complete`. */
interface Window { start: number; found: TxSummary[]; counts: Map<number, number>; through: number; complete: boolean }

const LEDGERS = 10;
const TRANSACTIONS = 20;
/** getTransactions pages read at most when looking back for the last transactions. */
const MAX_PAGES = 20;

export class Live {
  ledgers: LedgerSummary[] = [];
  transactions: TxSummary[] = [];
  /** Transactions seen per ledger, known for the ledgers from `countedFrom` on. */
  readonly txCounts = new Map<number, number>();
  countedFrom = Infinity;
  private subs: Subscription[] = [];
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  get latest(): number | undefined { return this.ledgers[0]?.sequence; }

  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void { for (const l of this.listeners) l(); }

  /** Starts (again, after a revert: from what the node has now). */
  async start(): Promise<void> {
    const generation = ++this.generation;
    for (const s of this.subs) s.close();
    this.subs = [];
    this.ledgers = [];
    this.transactions = [];
    this.txCounts.clear();
    this.countedFrom = Infinity;
    stream.warm();
    const { latestLedger, oldestLedger } = await ledgerWindow();
    if (generation !== this.generation) return;
    this.subs.push(stream.subscribe(
      { kind: 'ledgers', startLedger: Math.max(oldestLedger, latestLedger - LEDGERS + 1) },
      (l) => this.ledger({ sequence: l.sequence, hash: l.hash, closeTime: Number(l.ledgerCloseTime) }),
      (l) => ({ cursor: String(l.sequence) }),
    ));
    const { through } = await this.readTransactions(latestLedger, oldestLedger, generation);
    if (generation !== this.generation) return;
    this.subs.push(stream.subscribe(
      { kind: 'transactions', cursor: (BigInt(transactionToid(through + 1, 0)) - 1n).toString(), xdrFormat: 'json' },
      (t) => this.transaction(summarize(t)),
      (t) => ({ cursor: transactionToid(t.ledger, t.applicationOrder) }),
    ));
    this.changed();
  }

  /**
   * The last transactions, looking back 10, 100, 1,000… ledgers until there are enough; `through`:
   * the ledger the read reached. A window with more than MAX_PAGES pages keeps the smaller one
   * before it (fewer transactions, but the newest); when even 10 ledgers are that many, the latest
   * ledger alone is read. Counts are kept for the ledgers of the window read (`countedFrom` on).
   */
  private async readTransactions(latest: number, oldest: number, generation: number): Promise<{ through: number }> {
    let best: Window | undefined;
    for (let span = LEDGERS; ; span *= 10) {
      const start = Math.max(oldest, latest - span + 1);
      const window = await this.readWindow(start, generation);
      if (window === undefined || !window.complete) break;
      best = window;
      if (window.found.length >= TRANSACTIONS || start === oldest) break;
    }
    if (generation !== this.generation) return { through: latest };
    best ??= await this.readWindow(latest, generation);
    if (best === undefined) return { through: latest };
    for (const [ledger, n] of best.counts) this.txCounts.set(ledger, n);
    this.countedFrom = best.start;
    this.transactions = best.found.slice(-TRANSACTIONS).reverse();
    return { through: best.through };
  }

  /** The transactions from `start` on, up to MAX_PAGES pages; undefined once the page was left for another start. */
  private async readWindow(start: number, generation: number): Promise<Window | undefined> {
    const w: Window = { start, found: [], counts: new Map(), through: start, complete: false };
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && !w.complete; page++) {
      const answer = await call('getTransactions', cursor === undefined
        ? { startLedger: start, pagination: { limit: 100 }, xdrFormat: 'json' }
        : { pagination: { cursor, limit: 100 }, xdrFormat: 'json' });
      if (generation !== this.generation) return undefined;
      for (const t of answer.transactions) {
        const s = summarize(t);
        w.found.push(s);
        w.counts.set(s.ledger, (w.counts.get(s.ledger) ?? 0) + 1);
      }
      cursor = answer.cursor;
      w.complete = answer.transactions.length < 100;
      w.through = w.complete ? answer.latestLedger : w.found[w.found.length - 1].ledger;
    }
    return w;
  }

  private ledger(l: LedgerSummary): void {
    if (this.latest !== undefined && l.sequence <= this.latest) this.dropFrom(l.sequence);
    this.ledgers.unshift(l);
    this.ledgers.length = Math.min(this.ledgers.length, LEDGERS);
    this.changed();
  }

  private transaction(t: TxSummary): void {
    const newest = this.transactions[0];
    if (newest && (t.ledger < newest.ledger || (t.ledger === newest.ledger && t.applicationOrder <= newest.applicationOrder))) {
      this.transactions = this.transactions.filter((x) => x.ledger < t.ledger || (x.ledger === t.ledger && x.applicationOrder < t.applicationOrder));
    }
    this.transactions.unshift(t);
    this.transactions.length = Math.min(this.transactions.length, TRANSACTIONS);
    this.txCounts.set(t.ledger, (this.txCounts.get(t.ledger) ?? 0) + 1);
    this.changed();
  }

  /** A revert: ledgers from `sequence` on are gone. */
  private dropFrom(sequence: number): void {
    this.ledgers = this.ledgers.filter((x) => x.sequence < sequence);
    this.transactions = this.transactions.filter((x) => x.ledger < sequence);
    for (const ledger of [...this.txCounts.keys()]) if (ledger >= sequence) this.txCounts.delete(ledger);
  }
}

export const live = new Live();
