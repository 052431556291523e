// What the network applied over a stretch of ledgers, per contract and function: every Soroban
// transaction the store holds there is traced (re-executed with the host's trace on), so each
// call's instructions and memory are the host's own; fees and rent are what the transactions were
// charged, from their stored results and metas, to the stroop.
//
// Two levels, because the host meters calls but the network charges transactions:
//   - every frame (a contract function, wherever it was called from) counts as a call, with its
//     inclusive instructions and memory, its storage calls and the events it emitted;
//   - the transaction's own resources (entries and bytes read and written, events size, rent, fee
//     charged) go to the function it called at the top: its entry point.
import { xdr } from '../xdr/xdr.ts';
import type { LedgerEntryChange } from '../xdr/codec.ts';
import type { StoreReader, StoredTransaction } from '../store/types.ts';
import { toid } from '../ids/toid.ts';
import { traceStoredTransaction } from './reexecution.ts';
import type { TraceAppliers } from './appliers.ts';
import type { TraceFrame, TransactionTrace } from './types.ts';

export interface Spread { min: number; median: number; max: number }

export interface FunctionReport {
  contract: string;
  function: string;
  calls: number;
  cpuInstructions: Spread;
  memoryBytes: Spread;
  storageReads: number;
  storageWrites: number;
  events: number;
  /** As the entry point of transactions (zero when only ever called by other contracts). */
  transactions: number;
  failedTransactions: number;
  entriesRead: number;
  entriesWritten: number;
  bytesRead: number;
  bytesWritten: number;
  eventsSizeBytes: number;
  /** Stroops, as decimal strings. */
  rentCharged: string;
  feeCharged: string;
}

export interface ResourceReport {
  fromLedger: number;
  toLedger: number;
  /** Soroban transactions traced, and how many of them the re-execution reproduced byte for byte. */
  transactions: number;
  reproduced: number;
  /** Fees charged to every Soroban transaction in the range, in stroops (the sum of the rows' feeCharged). */
  totalFeeCharged: string;
  totalRentCharged: string;
  functions: FunctionReport[];
}

interface Tally {
  contract: string; function: string; cpu: number[]; mem: number[]; reads: number; writes: number; events: number;
  transactions: number; failed: number; entriesRead: number; entriesWritten: number; bytesRead: number; bytesWritten: number;
  eventsBytes: number; rent: bigint; fee: bigint;
}

/** The most Soroban transactions one report traces; a longer stretch is refused, not cut short. */
export const MAX_REPORTED_TRANSACTIONS = 5_000;

const spread = (values: number[]): Spread => {
  if (values.length === 0) return { min: 0, median: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
};

/** The (inner) transaction when it is one InvokeHostFunction, else undefined. */
function sorobanInvocation(tx: StoredTransaction): xdr.TransactionWire | undefined {
  const env = xdr.TransactionEnvelope.schema.decode(tx.envelope);
  const inner = env.type === 5 ? env.feeBump.tx.innerTx.v1.tx : env.type === 2 ? env.v1.tx : undefined;
  return inner?.operations.length === 1 && inner.operations[0].body.type === 24 ? inner : undefined;
}

function frames(f: TraceFrame): TraceFrame[] { return [f, ...f.calls.flatMap(frames)]; }

/** Rent, from the stored meta (the charged amount, not a recomputation). */
function rentOf(meta: xdr.TransactionMetaWire): bigint {
  const s = meta.v === 4 ? meta.v4.sorobanMeta : meta.v === 3 ? meta.v3.sorobanMeta : null;
  return s?.ext.v === 1 ? s.ext.v1.rentFeeCharged : 0n;
}

/** Entries written and their bytes: what the operation's changes created, updated or restored (TTL entries apart). */
function writesOf(changes: readonly LedgerEntryChange[]): { entries: number; bytes: number } {
  let entries = 0, bytes = 0;
  for (const c of changes) {
    const entry = c.type === 0 ? c.created : c.type === 1 ? c.updated : c.type === 4 ? c.restored : undefined;
    if (c.type === 2) { entries++; continue; }
    if (!entry || entry.data.type === 9) continue;
    entries++;
    bytes += xdr.LedgerEntry.schema.encode(entry).length;
  }
  return { entries, bytes };
}

export interface ReportRange { fromLedger: number; toLedger: number }

/**
 * Traces every Soroban transaction of ledgers `fromLedger`..`toLedger`. `between` runs between two
 * traces (the caller's checkpoint: gives the event loop a turn, throws once the call is abandoned).
 */
export async function resourceReport(store: StoreReader, networkId: Uint8Array, range: ReportRange, appliers: TraceAppliers,
  between: () => Promise<void>): Promise<ResourceReport> {
  const tallies = new Map<string, Tally>();
  const tally = (contract: string, fn: string): Tally => {
    const id = `${contract}/${fn}`;
    let t = tallies.get(id);
    if (!t) {
      t = { contract, function: fn, cpu: [], mem: [], reads: 0, writes: 0, events: 0, transactions: 0, failed: 0, entriesRead: 0,
        entriesWritten: 0, bytesRead: 0, bytesWritten: 0, eventsBytes: 0, rent: 0n, fee: 0n };
      tallies.set(id, t);
    }
    return t;
  };
  let traced = 0, reproduced = 0;
  let totalFee = 0n, totalRent = 0n;
  let next = toid(range.fromLedger, 0, 0);
  const end = toid(range.toLedger + 1, 0, 0);
  for (;;) {
    const page = store.transactionsFrom(next, 200).filter((t) => t.id < end);
    if (page.length === 0) break;
    for (const tx of page) {
      const inner = sorobanInvocation(tx);
      if (!inner) continue;
      if (++traced > MAX_REPORTED_TRANSACTIONS) {
        throw new RangeError(`more than ${MAX_REPORTED_TRANSACTIONS} Soroban transactions from ledger ${range.fromLedger} to ${range.toLedger}: ask for a shorter stretch`);
      }
      const trace: TransactionTrace = traceStoredTransaction(store, networkId, tx.hash, appliers);
      if (trace.reproduced?.result && trace.reproduced.meta) reproduced++;
      const result = xdr.TransactionResult.schema.decode(tx.result);
      const meta = xdr.TransactionMeta.schema.decode(tx.meta);
      const op = trace.operations[0];
      const root = op?.invocation;
      for (const f of root ? frames(root) : []) {
        if (f.kind === 'host_function') continue;
        const t = tally(f.contract ?? '', f.function);
        t.cpu.push(f.cpuInstructions.inclusive);
        t.mem.push(f.memoryBytes.inclusive);
        t.reads += f.storage.filter((c) => c.access === 'read').length;
        t.writes += f.storage.filter((c) => c.access === 'write' || c.access === 'delete').length;
        t.events += f.events.length;
      }
      // the entry point: the first contract frame, or the host function itself (uploads, deploys)
      const top = root?.calls[0] ?? root;
      const entry = top && top.kind !== 'host_function' ? tally(top.contract ?? '', top.function) : tally('', root?.function ?? 'InvokeHostFunction');
      const run = traceRunFacts(inner, meta);
      const fee = result.feeCharged;
      const rent = rentOf(meta);
      entry.transactions++;
      if (trace.status !== 'txSUCCESS') entry.failed++;
      entry.entriesRead += run.entriesRead;
      entry.bytesRead += run.bytesRead;
      entry.entriesWritten += run.entriesWritten;
      entry.bytesWritten += run.bytesWritten;
      entry.eventsBytes += run.eventsBytes;
      entry.rent += rent;
      entry.fee += fee;
      totalFee += fee;
      totalRent += rent;
      await between();
    }
    next = page[page.length - 1].id + 1n;
    if (page.length < 200) break;
  }
  const functions = [...tallies.values()].map((t): FunctionReport => ({
    contract: t.contract, function: t.function, calls: t.cpu.length, cpuInstructions: spread(t.cpu), memoryBytes: spread(t.mem),
    storageReads: t.reads, storageWrites: t.writes, events: t.events, transactions: t.transactions, failedTransactions: t.failed,
    entriesRead: t.entriesRead, entriesWritten: t.entriesWritten, bytesRead: t.bytesRead, bytesWritten: t.bytesWritten,
    eventsSizeBytes: t.eventsBytes, rentCharged: String(t.rent), feeCharged: String(t.fee),
  })).sort((a, b) => a.contract.localeCompare(b.contract) || a.function.localeCompare(b.function));
  return {
    ...range, transactions: traced, reproduced,
    totalFeeCharged: String(totalFee), totalRentCharged: String(totalRent), functions,
  };
}

/**
 * A transaction's reads and writes as the network counted them: the footprint's entries and the
 * sizes it declared for reading (the meta does not repeat what was only read), what its meta shows
 * written, and the events it emitted.
 */
function traceRunFacts(inner: xdr.TransactionWire, meta: xdr.TransactionMetaWire): {
  entriesRead: number; bytesRead: number; entriesWritten: number; bytesWritten: number; eventsBytes: number;
} {
  const data = inner.ext.v === 1 ? inner.ext.sorobanData : undefined;
  const footprint = data?.resources.footprint;
  const ops = meta.v === 4 ? meta.v4.operations : meta.v === 3 ? meta.v3.operations : [];
  const written = writesOf(ops.flatMap((o) => o.changes));
  const events = meta.v === 4 ? meta.v4.operations.flatMap((o) => o.events) : meta.v === 3 ? meta.v3.sorobanMeta?.events ?? [] : [];
  return {
    entriesRead: (footprint?.readOnly.length ?? 0) + (footprint?.readWrite.length ?? 0),
    bytesRead: data?.resources.diskReadBytes ?? 0,
    entriesWritten: written.entries,
    bytesWritten: written.bytes,
    eventsBytes: events.reduce((n, e) => n + xdr.ContractEvent.schema.encode(e).length, 0),
  };
}

const fmt = (n: number | string): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const short = (c: string): string => (c.length > 12 ? `${c.slice(0, 5)}…${c.slice(-4)}` : c || '(none)');

/** The report as a Markdown table, for a CI diff. */
export function reportMarkdown(r: ResourceReport): string {
  const lines = [
    `# Resource report: ledgers ${r.fromLedger}–${r.toLedger}`,
    '',
    `${r.transactions} Soroban transactions traced (${r.reproduced} reproduced byte for byte); fees charged ${fmt(r.totalFeeCharged)} stroops, of which rent ${fmt(r.totalRentCharged)}.`,
    '',
    '| contract | function | calls | CPU insns min / median / max | memory bytes median | storage reads / writes | events | txs (failed) | entries read / written | bytes read / written | events bytes | rent | fee charged |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of r.functions) {
    lines.push(`| ${short(f.contract)} | ${f.function} | ${f.calls} | ${fmt(f.cpuInstructions.min)} / ${fmt(f.cpuInstructions.median)} / ${fmt(f.cpuInstructions.max)} `
      + `| ${fmt(f.memoryBytes.median)} | ${f.storageReads} / ${f.storageWrites} | ${f.events} | ${f.transactions} (${f.failedTransactions}) `
      + `| ${f.entriesRead} / ${f.entriesWritten} | ${fmt(f.bytesRead)} / ${fmt(f.bytesWritten)} | ${fmt(f.eventsSizeBytes)} | ${fmt(f.rentCharged)} | ${fmt(f.feeCharged)} |`);
  }
  return `${lines.join('\n')}\n`;
}

