// Ingestion speed of a following node: the real pubnet ledgers of test/fixtures, looped into a
// longer chain (sequence numbers, previous-ledger hashes and header hashes rewritten so the chain
// verifies), written as a SEP-54 datastore and followed by a node process from an empty database;
// and the synthetic load-test meta streams. Reported: ledgers/s from the first stored ledger to the
// last, and the process's peak memory. Baselines of the same run: reading, decompressing and
// decoding the same files with the SDK in this process, the least a JavaScript ingester must do;
// and the same with the decode done by the stellar-xdr crate (the addon), the floor any ingester
// stands on. The same chain is also followed with the entry history off, for its cost.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { xdr } from '@stellar/stellar-sdk';
import { DatastoreWriter } from '../src/sources/datastore/datastoreWriter.ts';
import { sha256 } from '../src/xdr/codec.ts';
import { splitRecords } from '../src/io/recordMarked.ts';
import { startsWithZstdMagic } from '../src/io/zstdFrames.ts';
import { startNodeProcess, type NodeProcess } from '../test/integration/support/nodeProcess.ts';
import { loadNative } from '../src/host/native.ts';
import type { Row } from './report.ts';
import { fmt, median, sleep } from './stats.ts';

const FIXTURES = new URL('../test/fixtures/', import.meta.url).pathname;
const PUBNET = 'Public Global Stellar Network ; September 2015';
const FIRST = 63092982;
const TARGET_LEDGERS_PER_SEC = 20;

export interface IngestionBenchOptions { loops: number; rounds: number }

/**
 * Ledger metas repeated `loops` times as one verifiable chain from `first`, written as a datastore.
 * Only each ledger's header entry changes, so each meta is decoded once and its header entry's
 * bytes found in it; every ledger is then that meta with a re-encoded header entry spliced in (the
 * bytes a full decode and re-encode gave, at a fraction of the time).
 */
export function writeLoopedDatastore(metas: Uint8Array[], passphrase: string, loops: number, first: number): { dir: string; first: number; last: number; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bench-ds-'));
  const writer = new DatastoreWriter(dir, { networkPassphrase: passphrase });
  const templates = metas.map((meta) => {
    const lcm = xdr.LedgerCloseMeta.schema.decode(meta);
    const entry = (lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2).ledgerHeader;
    const original = xdr.LedgerHeaderHistoryEntry.schema.encode(entry);
    const at = Buffer.from(meta).indexOf(original);
    if (at < 0) throw new Error('the header entry was not found in its meta');
    return { entry, before: meta.subarray(0, at), after: meta.subarray(at + original.length) };
  });
  let prevHash: Uint8Array | undefined;
  let bytes = 0;
  const total = loops * metas.length;
  for (let n = 0; n < total; n++) {
    const { entry, before, after } = templates[n % templates.length];
    entry.header.ledgerSeq = first + n;
    if (prevHash) entry.header.previousLedgerHash = prevHash;
    entry.hash = sha256(xdr.LedgerHeader.schema.encode(entry.header));
    prevHash = entry.hash;
    const encoded = Buffer.concat([before, xdr.LedgerHeaderHistoryEntry.schema.encode(entry), after]);
    bytes += encoded.length;
    writer.write({ sequence: first + n, bytes: encoded });
  }
  return { dir, first, last: first + total - 1, bytes };
}

export const pubnetMetas = () => Array.from({ length: 10 }, (_, i) => gunzipSync(readFileSync(join(FIXTURES, `pubnet/ledgers/ledger-${FIRST + i}.xdr.gz`))));

/**
 * The baselines decode 100 files of the chain: 10 loops of the 10 ledgers, the same mix as the whole
 * chain, so the same rate in a third of the time. The SDK's decoder is warmed up once before the
 * first round (60 files decoded untimed: its rate settles after about that many here); over the
 * whole chain its warm-up was spread over 300 files, over 100 it would slow the first baseline.
 */
const BASELINE_FILES = 100;
const SDK_WARMUP_FILES = 60;

/** The first BASELINE_FILES of `files` read and decompressed, then decoded by `decode`: ledgers/s. */
function decodeRate(files: readonly string[], decode: (batch: Buffer) => void): number {
  const timed = files.slice(0, BASELINE_FILES);
  const t0 = performance.now();
  for (const f of timed) decode(zstdDecompressSync(readFileSync(f)));
  return timed.length / ((performance.now() - t0) / 1000);
}

const sdkDecode = (batch: Buffer): void => { xdr.LedgerCloseMetaBatch.schema.decode(batch); };

function warmUpSdkDecoder(files: readonly string[]): void {
  for (const f of files.slice(0, SDK_WARMUP_FILES)) sdkDecode(zstdDecompressSync(readFileSync(f)));
}

/** The SDK's decode, in this process: ledgers/s. */
const baselineDecodeRate = (files: readonly string[]): number => decodeRate(files, sdkDecode);

/**
 * The stellar-xdr crate's decode: ledgers/s. One ledger per file: the LedgerCloseMetaBatch's 12 bytes
 * of header (start, end, count), then the meta.
 */
const rustDecodeRate = (files: readonly string[]): number => decodeRate(files, (batch) => { loadNative().benchDecodeLedgerCloseMeta(batch.subarray(12), 1); });

function datastoreFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string) => { for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.zst') && files.push(join(d, e.name)); };
  walk(dir);
  return files.sort();
}

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface FollowRun { ledgers: number; seconds: number; perSecond: number; peakRssMiB: number }

/** A follower from an empty database until `last` is stored; timed from its first stored ledger. */
async function followOnce(args: string[], last: number, timeoutMs: number): Promise<FollowRun> {
  const node: NodeProcess = await startNodeProcess({ args: ['--log-level', 'warn', '--history-retention-window', '1000000', ...args], readyWhenListening: true, readyTimeoutMs: 60_000 });
  try {
    let first: { seq: number; at: number } | undefined;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await node.rpc('getLatestLedger');
      const seq: number | undefined = r.result?.sequence;
      if (seq !== undefined && !first) first = { seq, at: performance.now() };
      if (seq !== undefined && seq >= last) {
        const seconds = (performance.now() - first!.at) / 1000;
        const ledgers = seq - first!.seq;
        return { ledgers, seconds, perSecond: ledgers / seconds, peakRssMiB: peakRssMiB(node.child.pid!) };
      }
      if (Date.now() > deadline) throw new Error(`follower reached ${seq} of ${last} in ${timeoutMs / 1000} s:\n${node.output().slice(-2000)}`);
      await sleep(20);
    }
  } finally {
    await node.stop();
    rmSync(node.dbPath, { force: true });
  }
}

/** The LedgerCloseMetas of a (zstd-compressed) record-marked stream file, and their contract events. */
function streamMetas(path: string): { metas: Uint8Array[]; events: number } {
  let bytes: Uint8Array = readFileSync(path);
  if (startsWithZstdMagic(bytes)) bytes = zstdDecompressSync(bytes);
  const metas = splitRecords(bytes, path);
  let events = 0;
  for (const meta of metas) {
    const lcm = xdr.LedgerCloseMeta.schema.decode(meta);
    for (const p of (lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2).txProcessing) {
      const m = p.txApplyProcessing;
      if (m.v === 4) events += m.v4.operations.reduce((n, o) => n + o.events.length, 0) + m.v4.events.length;
      if (m.v === 3 && m.v3.sorobanMeta) events += m.v3.sorobanMeta.events.length;
    }
  }
  return { metas, events };
}

/** The synthetic streams' networks (found by recomputing their transaction hashes). */
const SYNTHETIC_PASSPHRASES: Record<string, string> = {
  'load-test-ledgers-v23-standalone.xdr.zstd': 'Standalone Network ; February 2017',
  'load-test-ledgers-v24.xdr.zstd': 'load test network',
};

export async function runIngestionBench(opts: IngestionBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const ds = writeLoopedDatastore(pubnetMetas(), PUBNET, opts.loops, FIRST);
  const ledgers = ds.last - ds.first + 1;
  log(`  datastore of ${ledgers} pubnet ledgers (${fmt(ds.bytes / 1024 / 1024, 0)} MiB of meta) written`);
  try {
    const runs: FollowRun[] = [];
    const withoutHistory: FollowRun[] = [];
    const baselines: number[] = [];
    const floors: number[] = [];
    const follow = (history: boolean) => followOnce(['--datastore', ds.dir, '--network-passphrase', PUBNET, '--ledger-entry-history', String(history)], ds.last, 600_000);
    const files = datastoreFiles(ds.dir);
    warmUpSdkDecoder(files);
    for (let round = 0; round < opts.rounds; round++) {
      baselines.push(baselineDecodeRate(files));
      floors.push(rustDecodeRate(files));
      // alternating which goes first, so neither always runs on a warmer page cache
      const [a, b] = round % 2 === 0 ? [true, false] : [false, true];
      const first = await follow(a);
      const second = await follow(b);
      const r = a ? first : second;
      const off = a ? second : first;
      runs.push(r);
      withoutHistory.push(off);
      log(`  round ${round + 1}/${opts.rounds}: ${r.ledgers} ledgers in ${fmt(r.seconds, 1)} s = ${fmt(r.perSecond, 1)} ledgers/s (history off: ${fmt(off.perSecond, 1)}), peak RSS ${fmt(r.peakRssMiB, 0)} MiB; SDK decode ${fmt(baselines[round], 1)}, Rust decode ${fmt(floors[round], 1)} ledgers/s`);
    }
    const rate = median(runs.map((r) => r.perSecond));
    const ratio = median(runs.map((r, i) => r.perSecond / baselines[i]));
    const floorRatio = median(runs.map((r, i) => r.perSecond / floors[i]));
    const historyRatio = median(runs.map((r, i) => r.perSecond / withoutHistory[i].perSecond));
    const rows: Row[] = [{
      metric: 'Ingestion of real pubnet ledgers from a datastore (protocol 26, ~1 MB meta each), entry history on',
      value: `${fmt(rate, 1)} ledgers/s, peak RSS ${fmt(median(runs.map((r) => r.peakRssMiB)), 0)} MiB`,
      ratio: `${ratio.toFixed(2)}x SDK decode (${fmt(median(baselines), 1)}/s); ${floorRatio.toFixed(2)}x Rust decode (${fmt(median(floors), 1)}/s)`,
      target: `>= 3x SDK decode; >= ${TARGET_LEDGERS_PER_SEC} ledgers/s`, verdict: ratio >= 3 && rate >= TARGET_LEDGERS_PER_SEC ? 'PASS' : 'FAIL',
    }, {
      metric: 'The same with the entry history off (its cost)',
      value: `${fmt(median(withoutHistory.map((r) => r.perSecond)), 1)} ledgers/s`,
      ratio: `history on: ${historyRatio.toFixed(2)}x off`, target: 'on >= 0.9x off', verdict: historyRatio >= 0.9 ? 'PASS' : 'FAIL',
    }];
    const details = ['### Ingestion (following a network)', '',
      `The 10 pubnet ledgers ${FIRST}..${FIRST + 9} (0–51 Soroban txs, 269–505 events each) looped ${opts.loops} times into a chain of ${ledgers} ledgers with rewritten sequence numbers and hashes, written as a SEP-54 datastore (zstd) and followed by a node from an empty database (no archive), with the entry history on (the default) and off, alternating which goes first. Timed from the first stored ledger to the last; peak RSS is the process's VmHWM. Baselines: the same files (${BASELINE_FILES} consecutive ones, ${BASELINE_FILES / 10} loops of the 10 ledgers; the SDK's decoder warmed up on ${SDK_WARMUP_FILES} files before the first round) read and zstd-decompressed in the bench process, then decoded with the SDK, or by the stellar-xdr crate through the addon (the floor).`, '',
      '| Round | Ledgers | Seconds | Ledgers/s | History off, ledgers/s | Peak RSS MiB | SDK decode ledgers/s | Rust decode ledgers/s | Ratio to SDK | Ratio to Rust |', '|---|---|---|---|---|---|---|---|---|---|',
      ...runs.map((r, i) => `| ${i + 1} | ${r.ledgers} | ${fmt(r.seconds, 1)} | ${fmt(r.perSecond, 1)} | ${fmt(withoutHistory[i].perSecond, 1)} | ${fmt(r.peakRssMiB, 0)} | ${fmt(baselines[i], 1)} | ${fmt(floors[i], 1)} | ${(r.perSecond / baselines[i]).toFixed(2)}x | ${(r.perSecond / floors[i]).toFixed(2)}x |`),
      '', `At the median rate a 7-day backfill (120,960 ledgers) takes ${fmt(120960 / rate / 3600, 1)} h.`, ''];

    for (const [name, passphrase] of Object.entries(SYNTHETIC_PASSPHRASES)) {
      const { metas, events } = streamMetas(join(FIXTURES, 'synthetic', name));
      // The streams hold 3 non-consecutive ledgers each: renumbered into one chain, looped.
      const loops = Math.max(1, Math.round((opts.loops * 10) / metas.length / 4));
      const synth = writeLoopedDatastore(metas, passphrase, loops, 2);
      try {
        const synthetic: FollowRun[] = [];
        for (let round = 0; round < opts.rounds; round++) {
          synthetic.push(await followOnce(['--datastore', synth.dir, '--network-passphrase', passphrase], synth.last, 300_000));
        }
        const perSec = median(synthetic.map((r) => r.perSecond));
        const eventsPerLedger = events / metas.length;
        log(`  ${name}: ${fmt(perSec, 1)} ledgers/s (${fmt(perSec * eventsPerLedger, 0)} events/s)`);
        rows.push({ metric: `Ingestion of the synthetic load-test ledgers ${name} (${fmt(eventsPerLedger, 0)} contract events each)`, value: `${fmt(perSec, 1)} ledgers/s, ${fmt(perSec * eventsPerLedger, 0)} events/s`, target: 'reported (no target)', verdict: 'n/a' });
        details.push(`- ${name}: its ${metas.length} ledgers looped ${loops} times (${synth.last - synth.first + 1} ledgers); ledgers/s per round ${synthetic.map((r) => fmt(r.perSecond, 1)).join(', ')}; peak RSS MiB ${synthetic.map((r) => fmt(r.peakRssMiB, 0)).join(', ')}`);
      } finally {
        rmSync(synth.dir, { recursive: true, force: true });
      }
    }
    details.push('');
    return { rows, details };
  } finally {
    rmSync(ds.dir, { recursive: true, force: true });
  }
}
