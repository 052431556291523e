// `ledgers`: every committed ledger, in the getLedgers item shape; item id = the sequence (the
// getLedgers cursor form). A cursor is a sequence already seen.
import type { LedgerRow } from '../../store/types.ts';
import { ledgerInfo } from '../../rpc/methods/getLedgers.ts';
import { formatOf } from '../../rpc/methods/shared/xdrFormat.ts';
import type { MethodContext } from '../../rpc/methods/types.ts';
import {
  invalid, joinParts, paramsValidator, readStart, RenderCache, requireStored, startProperties, validate,
  type Kind, type ReplayPage, type StreamItem, type Subscription,
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
  /** A pubnet ledger's meta is over a megabyte: a few per page. */
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

  async replay(sub: LedgersSubscription, through: number, n: number): Promise<ReplayPage> {
    const count = Math.min(n, through - sub.next + 1);
    if (count <= 0) return { items: [], done: true };
    const rows = this.ctx.store.ledgers(sub.next, count).filter((r) => r.sequence <= through);
    const items: StreamItem[] = [];
    for (const row of rows) items.push({ id: String(row.sequence), text: await this.render(row, sub) });
    sub.next = rows.length > 0 ? rows[rows.length - 1].sequence + 1 : through + 1;
    return { items, done: rows.length < count || sub.next > through };
  }

  add(sub: LedgersSubscription): void { this.subs.add(sub); }
  remove(sub: LedgersSubscription): void { this.subs.delete(sub); }
  live(): Iterable<LedgersSubscription> { return this.subs; }
  get liveCount(): number { return this.subs.size; }

  async ledger(sequence: number): Promise<Array<{ sub: LedgersSubscription; item: StreamItem }>> {
    if (this.subs.size === 0) return [];
    const row = this.ctx.store.ledger(sequence);
    if (row === undefined) return [];
    const cache = new RenderCache<LedgerRow>((r, format) => ledgerInfo(r, format, this.ctx).then(joinParts));
    const out: Array<{ sub: LedgersSubscription; item: StreamItem }> = [];
    for (const sub of [...this.subs]) {
      out.push({ sub, item: { id: String(sequence), text: await cache.get('', row, sub.format) } });
    }
    return out;
  }

  private render(row: LedgerRow, sub: LedgersSubscription): Promise<string> {
    return ledgerInfo(row, sub.format, this.ctx).then(joinParts);
  }
}
