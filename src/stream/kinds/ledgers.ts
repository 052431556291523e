// `ledgers`: every committed ledger, in the getLedgers item shape; item id = the sequence (the
// getLedgers cursor form). A cursor is a sequence already seen.
import type { LedgerRow } from '../../store/types.ts';
import { ledgerInfo } from '../../rpc/methods/getLedgers.ts';
import { formatOf, type XdrFormat } from '../../rpc/methods/shared/xdrFormat.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import type { ResumePoint } from '../streamSink.ts';
import {
  byFormat, invalid, paramsValidator, readStart, requireStored, startProperties, toBytes, validate,
  type Kind, type LedgerMatch, type ReplayLimit, type ReplayPage, type StreamItem, type Subscription,
} from './kind.ts';

interface LedgersSubscription extends Subscription {
  /** The next ledger replay reads. */
  next: number;
}

const check = paramsValidator(startProperties);

/** A decimal ledger sequence. */
function cursorLedger(cursor: string): number {
  if (!/^\d{1,10}$/.test(cursor) || Number(cursor) > 0xffffffff) throw invalid(`invalid cursor ${JSON.stringify(cursor)}: a ledger sequence`);
  return Number(cursor);
}

export class LedgersKind implements Kind<LedgersSubscription> {
  readonly name = 'ledgers' as const;
  /** A pubnet ledger's meta is over a megabyte: a few per page (fewer when the connection has less room). */
  readonly pageSize = 4;
  readonly single = false;
  private readonly ctx: MethodContext;
  private readonly subs = new Set<LedgersSubscription>();

  constructor(ctx: MethodContext) { this.ctx = ctx; }

  open(params: Record<string, unknown>, base: Subscription, latest: number): LedgersSubscription {
    validate(check, params);
    const start = readStart(params);
    const sub: LedgersSubscription = { ...base, format: formatOf(params.xdrFormat), next: latest + 1, through: latest };
    if (start.from === 'ledger') {
      requireStored(this.ctx, start.ledger);
      sub.next = start.ledger;
    } else if (start.from === 'cursor') {
      const seen = cursorLedger(start.cursor);
      requireStored(this.ctx, seen);
      sub.next = seen + 1;
    }
    sub.through = sub.next - 1;
    return sub;
  }

  async replay(sub: LedgersSubscription, through: number, limit: ReplayLimit): Promise<ReplayPage> {
    const items: StreamItem[] = [];
    let bytes = 0;
    // one ledger read at a time: a page stops as soon as it holds what the connection has room for
    while (sub.next <= through && items.length < limit.items && (items.length === 0 || bytes < limit.bytes)) {
      const [row] = this.ctx.store.ledgers(sub.next, 1);
      if (row === undefined || row.sequence > through) {
        sub.next = through + 1;
        break;
      }
      const item = { id: String(row.sequence), bytes: await this.render(row, sub.format) };
      items.push(item);
      bytes += item.bytes.length;
      sub.next = row.sequence + 1;
    }
    return { items, done: sub.next > through };
  }

  resumeAfter(ledger: number): ResumePoint { return { cursor: String(ledger) }; }
  add(sub: LedgersSubscription): void { this.subs.add(sub); }
  remove(sub: LedgersSubscription): void { this.subs.delete(sub); }
  live(): Iterable<LedgersSubscription> { return this.subs; }
  get liveCount(): number { return this.subs.size; }

  async *ledger(sequence: number): AsyncIterable<LedgerMatch<LedgersSubscription>> {
    if (this.subs.size === 0) return;
    const row = this.ctx.store.ledger(sequence);
    if (row === undefined) return;
    for (const [format, subs] of byFormat(this.subs)) {
      yield { item: { id: String(sequence), bytes: await this.render(row, format) }, subs };
    }
  }

  private async render(row: LedgerRow, format: XdrFormat): Promise<Buffer> {
    return toBytes(await ledgerInfo(row, format, this.ctx));
  }
}
