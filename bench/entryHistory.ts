// The cost of getLedgerEntries at a past ledger (src/store/sqlite/entryHistory.ts):
//  - reads: the method (in process, on a real SQLite store) for the same keys at the window's far
//    end and at the latest ledger (the baseline), interleaved call by call; p50/p99 and their ratio;
//  - storage: bytes the history's tables add per million entry changes, on synthetic
//    account updates and on the ten real pubnet ledgers (their entries' versions before the first
//    ledger taken from the metas' pre-images), where it is also set against the metas the store
//    already keeps;
//  - ingestion: the time to store pubnet ledgers (converted beforehand) with the history kept and
//    without it (--ledger-entry-history false), in two stores fed the same ledgers alternately;
//  - the time to read and decode one stored meta, which a read without the packed images would pay
//    for every distinct ledger it has to open.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DatabaseSync } from 'node:sqlite';
import { randomBytes } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import { SqliteStore } from '../src/store/sqlite/sqliteStore.ts';
import { getLedgerEntries } from '../src/rpc/methods/getLedgerEntries.ts';
import { fastLedgerToBatch, ledgerToBatch } from '../src/ingest/ledgerToBatch.ts';
import { changeListsInOrder } from '../src/replay/closedLedger.ts';
import { InitialState } from '../src/replay/initialState.ts';
import { decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, networkIdOf, toBase64 } from '../src/xdr/codec.ts';
import { ledgerKeyOf } from '../src/xdr/ledgerKeys.ts';
import type { IngestBatch } from '../src/store/types.ts';
import { contextFor, testCall } from '../test/unit/methods/support/pubnet.ts';
import type { Row } from './report.ts';
import { fmt, median, percentile } from './stats.ts';

export interface EntryHistoryBenchOptions {
  /** Synthetic entry changes in the window. */
  changes: number;
  perLedger: number;
  accounts: number;
  /** Calls per kind of read. */
  calls: number;
  /** Times the ten pubnet ledgers are stored for the ingestion comparison. */
  ingestLoops: number;
}
export const DEFAULT_ENTRY_HISTORY_OPTIONS: EntryHistoryBenchOptions = { changes: 500_000, perLedger: 1000, accounts: 50_000, calls: 300, ingestLoops: 20 };
export const QUICK_ENTRY_HISTORY_OPTIONS: EntryHistoryBenchOptions = { changes: 100_000, perLedger: 500, accounts: 20_000, calls: 50, ingestLoops: 3 };

const PUBNET = 'Public Global Stellar Network ; September 2015';
const FIRST_PUBNET = 63092982;
const FIXTURES = new URL('../test/fixtures/pubnet/ledgers/', import.meta.url);
const pubnetLedgers = (): Uint8Array[] =>
  Array.from({ length: 10 }, (_, i) => new Uint8Array(gunzipSync(readFileSync(new URL(`ledger-${FIRST_PUBNET + i}.xdr.gz`, FIXTURES)))));

function accountEntry(seed: Uint8Array, balance: bigint, seq: number): xdr.LedgerEntryWire {
  return {
    lastModifiedLedgerSeq: seq,
    data: { type: 0, account: {
      accountId: { type: 0, ed25519: seed }, balance, seqNum: BigInt(seq) << 32n, numSubEntries: 0, inflationDest: null, flags: 0,
      homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
    } },
    ext: { v: 0 },
  };
}

function ledgerBatch(seq: number, entryWrites: IngestBatch['entryWrites'], meta = new Uint8Array(8)): IngestBatch {
  return {
    ledger: { sequence: seq, hash: randomBytes(32), closeTime: 1_700_000_000 + seq, protocolVersion: 28, header: new Uint8Array(8), meta },
    transactions: [], entryWrites, feeSamples: [],
  };
}

/** Bytes of the named tables with their indexes (dbstat), after checkpointing the WAL into the file. */
function tableBytes(path: string, tables: string[]): number {
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const r = db.prepare(`SELECT sum(pgsize) AS s FROM dbstat WHERE name IN
      (SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => '?').join(',')}))`).get(...tables) as { s: number | null };
    return Number(r.s ?? 0);
  } finally {
    db.close();
  }
}

const HISTORY = ['entry_history_images', 'entry_history_writers'];

/** The changes the history holds: the images its rows pack (each blob starts with their count). */
const historyRows = (path: string): number => {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    let n = 0;
    for (const r of db.prepare('SELECT images FROM entry_history_images').iterate() as Iterable<{ images: Uint8Array }>) {
      n += new DataView(r.images.buffer, r.images.byteOffset, r.images.byteLength).getUint32(0, true);
    }
    return n;
  } finally { db.close(); }
};

interface Synthetic { path: string; store: SqliteStore; keys: string[]; ingestSec: number; ledgers: number }

/** Accounts created in the first ledger, then `changes` balance updates, `perLedger` per ledger, all in the window. */
function buildSynthetic(dir: string, o: EntryHistoryBenchOptions, log: (m: string) => void): Synthetic {
  const path = join(dir, 'synthetic.sqlite');
  const store = new SqliteStore(path);
  const seeds = Array.from({ length: o.accounts }, () => randomBytes(32));
  const keyBytes = seeds.map((ed25519) => encodeLedgerKey({ type: 0, account: { accountId: { type: 0, ed25519 } } }));
  const ledgers = Math.ceil(o.changes / o.perLedger);
  const window = ledgers + 1;
  store.ingest(ledgerBatch(1, seeds.map((s, i) => ({ key: keyBytes[i], entry: encodeLedgerEntry(accountEntry(s, 1_000_000_000n, 1)), lastModified: 1 }))), window);
  let ingestMs = 0;
  let state = 12345;
  const next = () => { state = (state * 1103515245 + 12345) >>> 0; return state; };
  for (let seq = 2; seq <= ledgers + 1; seq++) {
    const picked = new Set<number>();
    while (picked.size < o.perLedger) picked.add(next() % o.accounts);
    const writes = [...picked].map((i) => ({ key: keyBytes[i], entry: encodeLedgerEntry(accountEntry(seeds[i], BigInt(next()), seq)), lastModified: seq }));
    const t0 = performance.now();
    store.ingest(ledgerBatch(seq, writes), window);
    ingestMs += performance.now() - t0;
  }
  log(`  synthetic store: ${o.accounts.toLocaleString('en-US')} accounts, ${(ledgers * o.perLedger).toLocaleString('en-US')} changes over ${ledgers} ledgers, ingested in ${fmt(ingestMs / 1000, 1)} s`);
  const keys: string[] = [];
  for (let i = 0; keys.length < 200; i += Math.floor(o.accounts / 200)) keys.push(toBase64(keyBytes[i]));
  return { path, store, keys, ingestSec: ingestMs / 1000, ledgers };
}

interface Timing { p50: number; p99: number }
const timing = (ms: number[]): Timing => ({ p50: percentile(ms, 50), p99: percentile(ms, 99) });

/** The method on the store, at the far end and at the latest ledger alternately: per-call ms. */
async function readLatencies(store: SqliteStore, keys: string[], calls: number): Promise<{ far: Timing; latest: Timing; farLedger: number }> {
  const ctx = contextFor(store);
  const farLedger = store.entryHistoryOldest()!;
  const far: number[] = [], latest: number[] = [];
  const once = async (params: Record<string, unknown>) => {
    const t0 = performance.now();
    const r = await getLedgerEntries.handler(params, ctx, testCall()) as { entries: unknown[] };
    const ms = performance.now() - t0;
    if (r.entries.length !== keys.length) throw new Error(`found ${r.entries.length} of ${keys.length} entries`);
    return ms;
  };
  for (let i = 0; i < 20; i++) { await once({ keys }); await once({ keys, ledger: farLedger }); } // warm-up
  for (let i = 0; i < calls; i++) {
    latest.push(await once({ keys }));
    far.push(await once({ keys, ledger: farLedger }));
  }
  return { far: timing(far), latest: timing(latest), farLedger };
}

interface PubnetCost { changes: number; historyBytes: number; metaBytes: number; decodeMs: number }

/** The ten pubnet ledgers on a store holding their entries' versions from before the first one. */
async function pubnetCost(dir: string): Promise<PubnetCost> {
  const path = join(dir, 'pubnet.sqlite');
  const store = new SqliteStore(path);
  const networkId = networkIdOf(PUBNET);
  const raw = pubnetLedgers();
  const initial = new InitialState();
  raw.forEach((bytes, i) => initial.observe(FIRST_PUBNET + i, changeListsInOrder(xdr.LedgerCloseMeta.schema.decode(bytes))));
  await store.replaceState(FIRST_PUBNET - 1, async (sink) => {
    for (const entry of initial.entries()) {
      const e = decodeLedgerEntry(entry);
      sink.put(encodeLedgerKey(ledgerKeyOf(e.data)), entry, e.lastModifiedLedgerSeq);
    }
  });
  for (const bytes of raw) store.ingest(ledgerToBatch({ bytes }, networkId), 100);
  const decodeMs: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (let seq = FIRST_PUBNET; seq < FIRST_PUBNET + 10; seq++) {
      const t0 = performance.now();
      xdr.LedgerCloseMeta.schema.decode(store.ledger(seq)!.meta);
      decodeMs.push(performance.now() - t0);
    }
  }
  store.close();
  return {
    changes: historyRows(path), historyBytes: tableBytes(path, HISTORY), metaBytes: tableBytes(path, ['ledgers']),
    decodeMs: median(decodeMs),
  };
}

interface IngestCost { withHistory: number; without: number; ratio: number; ledgers: number }

/**
 * The ten pubnet ledgers (converted once, natively) stored `loops` times over as one chain, into a
 * store keeping the history and one not keeping it, alternately ledger by ledger: mean ms per ledger
 * of each, after the first loop (which creates what later loops update).
 */
function ingestCost(dir: string, loops: number): IngestCost {
  const networkId = networkIdOf(PUBNET);
  const batches = pubnetLedgers().map((bytes) => fastLedgerToBatch(bytes, networkId));
  const stores = [new SqliteStore(join(dir, 'ingest-with.sqlite')), new SqliteStore(join(dir, 'ingest-without.sqlite'), { entryHistory: false })];
  const ms = [0, 0];
  let timed = 0;
  for (let n = 0; n < loops; n++) {
    batches.forEach((b, i) => {
      const seq = FIRST_PUBNET + n * batches.length + i;
      const batch = { ...b, ledger: { ...b.ledger, sequence: seq }, transactions: b.transactions.map((t) => ({ ...t, ledgerSequence: seq })) };
      for (const k of (n + i) % 2 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        stores[k].ingest(batch, 1_000_000);
        if (n > 0) ms[k] += performance.now() - t0;
      }
      if (n > 0) timed++;
    });
  }
  for (const s of stores) s.close();
  return { withHistory: ms[0] / timed, without: ms[1] / timed, ratio: ms[0] / ms[1], ledgers: timed };
}

export async function runEntryHistoryBench(o: EntryHistoryBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bench-history-'));
  try {
    const syn = buildSynthetic(dir, o, log);
    const one = await readLatencies(syn.store, syn.keys.slice(0, 1), o.calls);
    const many = await readLatencies(syn.store, syn.keys, o.calls);
    syn.store.close();
    const synChanges = historyRows(syn.path);
    const synBytes = tableBytes(syn.path, HISTORY);
    const perMillion = (bytes: number, changes: number) => bytes / changes * 1e6 / 2 ** 20;
    log(`  reads at ledger ${many.farLedger} vs latest, 200 keys: p50 ${fmt(many.far.p50, 2)} vs ${fmt(many.latest.p50, 2)} ms, p99 ${fmt(many.far.p99, 2)} vs ${fmt(many.latest.p99, 2)} ms; 1 key: p50 ${fmt(one.far.p50, 3)} vs ${fmt(one.latest.p50, 3)} ms`);
    log(`  synthetic history: ${synChanges.toLocaleString('en-US')} rows, ${fmt(synBytes / 2 ** 20, 1)} MiB (${fmt(perMillion(synBytes, synChanges), 0)} MiB per million changes)`);
    const pub = await pubnetCost(dir);
    const ingest = ingestCost(dir, o.ingestLoops);
    log(`  storing a pubnet ledger: ${fmt(ingest.withHistory, 1)} ms with the history, ${fmt(ingest.without, 1)} ms without (${ingest.ratio.toFixed(2)}x, ${ingest.ledgers} ledgers each)`);
    log(`  pubnet history: ${pub.changes.toLocaleString('en-US')} rows, ${fmt(pub.historyBytes / 2 ** 20, 2)} MiB; the metas ${fmt(pub.metaBytes / 2 ** 20, 1)} MiB; a meta decodes in ${fmt(pub.decodeMs, 1)} ms`);

    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    const changesText = synChanges.toLocaleString('en-US');
    return {
      rows: [
        {
          metric: `getLedgerEntries of 200 accounts at the window's far end (ledger parameter, ${changesText} changes in the window)`,
          value: `p50 ${fmt(many.far.p50, 2)} ms, p99 ${fmt(many.far.p99, 2)} ms`,
          ratio: `${ratio(many.far.p50, many.latest.p50)} / ${ratio(many.far.p99, many.latest.p99)} latest (p50 / p99)`,
          target: 'reported (no target)', verdict: 'n/a',
        },
        {
          metric: 'Entry history storage per million ledger entry changes (table + index)',
          value: `${fmt(perMillion(synBytes, synChanges), 0)} MiB (account updates), ${fmt(perMillion(pub.historyBytes, pub.changes), 0)} MiB (pubnet's mix)`,
          ratio: `pubnet: +${fmt(pub.historyBytes / pub.metaBytes * 100, 1)}% over the ledgers' metas`,
          target: 'reported (no target)', verdict: 'n/a',
        },
        {
          metric: 'Storing a pubnet ledger (its entry writes, transactions, events) with the entry history kept',
          value: `${fmt(ingest.withHistory, 1)} ms`, ratio: `${ingest.ratio.toFixed(2)}x without (${fmt(ingest.without, 1)} ms)`,
          target: 'reported (no target)', verdict: 'n/a',
        },
      ],
      details: ['### Ledger entries at a past ledger', '',
        `A store fed ${o.accounts.toLocaleString('en-US')} accounts, then ${changesText} balance updates (${o.perLedger} a ledger over ${syn.ledgers} ledgers, all inside the retention window, so each account has about ${fmt(synChanges / o.accounts, 0)} older versions), ingested at ${fmt(synChanges / syn.ingestSec)} changes/s with the history kept. getLedgerEntries runs in process (the method's handler on the real store: key decoding, lookups, rendering), alternating the window's far end (\`ledger\`: ${many.farLedger}) and the latest ledger (no \`ledger\`, the baseline) for the same keys, ${o.calls} calls each after a warm-up.`, '',
        '| Keys | far end p50 | far end p99 | latest p50 | latest p99 | ratio p50 / p99 |', '|---|---|---|---|---|---|',
        ...[['1', one], ['200', many] as const].map(([n, t]) => {
          const x = t as typeof one;
          return `| ${n} | ${fmt(x.far.p50, 3)} ms | ${fmt(x.far.p99, 3)} ms | ${fmt(x.latest.p50, 3)} ms | ${fmt(x.latest.p99, 3)} ms | ${ratio(x.far.p50, x.latest.p50)} / ${ratio(x.far.p99, x.latest.p99)} |`;
        }), '',
        `Storage (SQLite dbstat, 16 KiB pages): the history of the synthetic store holds ${changesText} rows in ${fmt(synBytes / 2 ** 20, 1)} MiB, ${fmt(perMillion(synBytes, synChanges), 0)} MiB per million changes. On the ten pubnet fixture ledgers (their entries' earlier versions taken from the metas' pre-images, so every update keeps a real previous version) ${pub.changes.toLocaleString('en-US')} changes take ${fmt(pub.historyBytes / 2 ** 20, 2)} MiB, ${fmt(perMillion(pub.historyBytes, pub.changes), 0)} MiB per million, ${fmt(pub.historyBytes / pub.metaBytes * 100, 1)}% of the ${fmt(pub.metaBytes / 2 ** 20, 1)} MiB their LedgerCloseMetas take in the ledgers table.`, '',
        `Ingestion: the ten pubnet ledgers (about ${fmt(pub.changes / 10, 0)} entry changes each), converted once, stored ${o.ingestLoops} times over as one chain into a store keeping the history and one without it (\`--ledger-entry-history false\`), alternately ledger by ledger; after the first pass every change replaces a version the history keeps. Mean store time per ledger: ${fmt(ingest.withHistory, 1)} ms with the history, ${fmt(ingest.without, 1)} ms without (${ingest.ratio.toFixed(2)}x). Each change costs one insert at a random place of the history's index. A follower bootstrapped from a history archive backfills its window without entry writes (ledgers up to the checkpoint are history only) and pays this only from the checkpoint on.`, '',
        `Without the packed images, a read would decode the metas of the ledgers it reaches: ${fmt(pub.decodeMs, 1)} ms for a pubnet ledger (median), against ${fmt(many.far.p50, 2)} ms for the whole 200-key read above.`, ''],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
