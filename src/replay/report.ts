// The replay's report: a table per (operation types, outcome), the reasons transactions could not
// be decided, the differences; as text for people and as JSON for machines.
import { CLASSIFICATION_NOTE } from './classification.ts';
import type { ReplayRun } from './replayRun.ts';
import type { Counts, DifferenceRecord, OperationTypeCounts, Row, UndeterminedRecord } from './tally.ts';

export interface ReplaySummary {
  files: string[];
  networkPassphrase: string;
  ledgers: { first: number; last: number; count: number };
  entriesKnown: number;
  classification: string;
  total: Counts;
  rows: Row[];
  undeterminedReasons: Array<{ reason: string; transactions: number }>;
  /** Successful transactions made only of operation types the engine supports, applied by it. */
  supportedSuccesses: Counts & { identicalShare: number | null };
  operationTypes: Record<string, OperationTypeCounts>;
  differences: DifferenceRecord[];
  /** Applied transactions whose difference the metas cannot settle (JSON only; the text gives their reasons). */
  undetermined: UndeterminedRecord[];
  notes: string[];
}

export function summaryOf(run: ReplayRun): ReplaySummary {
  const t = run.tally;
  const rows = [...t.rows.values()].sort((a, b) => Number(a.unsupported) - Number(b.unsupported) || b.transactions - a.transactions || a.label.localeCompare(b.label));
  const s = t.supportedSuccesses;
  const decided = s.identical + s.different;
  return {
    files: run.files,
    networkPassphrase: run.networkPassphrase,
    ledgers: { first: run.firstLedger, last: run.lastLedger, count: run.lastLedger - run.firstLedger + 1 },
    entriesKnown: run.entriesKnown,
    classification: CLASSIFICATION_NOTE,
    total: { ...t.total },
    rows,
    undeterminedReasons: [...t.reasons].sort((a, b) => b[1] - a[1]).map(([reason, transactions]) => ({ reason, transactions })),
    supportedSuccesses: { ...s, identicalShare: decided > 0 ? s.identical / decided : null },
    operationTypes: Object.fromEntries([...t.operationTypes].sort((a, b) => a[0].localeCompare(b[0]))),
    differences: t.differences,
    undetermined: t.undetermined,
    notes: run.notes,
  };
}

export interface RenderOptions {
  /** List the differences of transactions holding unsupported operation types too (they are counted either way). */
  allDifferences?: boolean;
}

export function renderSummary(s: ReplaySummary, opts: RenderOptions = {}): string {
  const out: string[] = [];
  out.push(`Replay of ledgers ${s.ledgers.first}..${s.ledgers.last} (${s.ledgers.count}) on '${s.networkPassphrase}'; ${s.entriesKnown} entries shown by the metas`);
  for (const n of s.notes) out.push(`note: ${n}`);
  out.push('', s.classification, 'Rows marked * hold an operation type the engine does not support (it answers opNOT_SUPPORTED).', '');
  out.push(...table(
    ['', 'transactions', 'identical', 'different', 'undetermined'],
    [
      ...s.rows.map((r) => [(r.unsupported ? '* ' : '  ') + r.label, r.transactions, r.identical, r.different, r.undetermined]),
      ['  total', s.total.transactions, s.total.identical, s.total.different, s.total.undetermined],
    ],
  ));
  const ss = s.supportedSuccesses;
  out.push('', `Successful transactions of supported operation types only: ${ss.identical} identical, ${ss.different} different, ${ss.undetermined} undetermined` +
    (ss.identicalShare === null ? '' : ` (${(ss.identicalShare * 100).toFixed(2)}% of those decided identical)`));

  out.push('', 'Undetermined:');
  if (s.undeterminedReasons.length === 0) out.push('  none');
  for (const r of s.undeterminedReasons) out.push(`  ${String(r.transactions).padStart(6)}  ${r.reason}`);

  const listed = opts.allDifferences ? s.differences : s.differences.filter((d) => !d.unsupported);
  out.push('', `Differences (${s.differences.length}${listed.length < s.differences.length ? `; ${s.differences.length - listed.length} in transactions with unsupported operation types not listed, --all-differences lists them` : ''}):`);
  if (listed.length === 0) out.push('  none');
  for (const d of listed) out.push(`  ledger ${d.ledger} tx ${d.hash} ${d.row}`, `      ${d.difference}`);
  return out.join('\n') + '\n';
}

/** Columns padded to their widest cell; the first left-aligned, numbers right-aligned. */
function table(header: string[], rows: Array<Array<string | number>>): string[] {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd());
}
