// Answer encoding: getLedgers of the ten real pubnet fixture ledgers (over a megabyte of meta each)
// from a follower, as xdrFormat base64 and json, each uncompressed (identity) and in gzip and zstd
// (Accept-Encoding). Measured per request: the time from sending it to the answer's last byte, and
// the bytes on the wire. The row is `json time / base64 time` uncompressed (the issue's target:
// at most 1.5x); the codings' sizes and times are rows and details. Rounds interleave the six
// requests, so the shared machine's noise hits all alike; figures are medians over rounds.
//
// The follower takes the ten ledgers as one page: its answer budget is raised to 64 MiB (the JSON
// page is about 30 MB; the default 16 MiB would cut it at five ledgers) and getLedgers' time limit to
// 60 s. Every answer is checked: ten ledgers, and each coding decoding to the identity answer's bytes.
import http from 'node:http';
import { promisify } from 'node:util';
import { gunzip, zstdDecompress } from 'node:zlib';
import { availableParallelism } from 'node:os';
import { loadNative } from '../src/host/native.ts';
import { PUBNET_FIRST, PUBNET_LAST, startPubnetFollower } from '../test/integration/support/pubnetFollower.ts';
import { pubnetMetas } from './ingestion.ts';
import type { Row } from './report.ts';
import { fmt, median } from './stats.ts';

export interface AnswerEncodingOptions { rounds: number }
export const DEFAULT_ANSWER_ENCODING_OPTIONS: AnswerEncodingOptions = { rounds: 3 };
export const QUICK_ANSWER_ENCODING_OPTIONS: AnswerEncodingOptions = { rounds: 1 };
export const JSON_RATIO_TARGET = 1.5;

const FORMATS = ['base64', 'json'] as const;
const CODINGS = ['identity', 'gzip', 'zstd'] as const;
type Format = typeof FORMATS[number];
type Coding = typeof CODINGS[number];
const LEDGERS = PUBNET_LAST - PUBNET_FIRST + 1;

interface Sample { ms: number; bytes: number; body: Buffer }

/** One getLedgers page, timed to its last byte; the body as sent (not decoded). */
function fetchPage(url: string, xdrFormat: Format, coding: Coding, limit = LEDGERS): Promise<Sample> {
  const { hostname, port } = new URL(url);
  const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLedgers', params: { startLedger: PUBNET_FIRST, pagination: { limit }, xdrFormat } });
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request({
      host: hostname, port, method: 'POST', path: '/',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'accept-encoding': coding },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - start;
        const sent = res.headers['content-encoding'] ?? 'identity';
        if (res.statusCode !== 200 || sent !== coding) reject(new Error(`${xdrFormat}/${coding}: HTTP ${res.statusCode}, Content-Encoding ${sent}`));
        const body = Buffer.concat(chunks);
        resolve({ ms, bytes: body.length, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

const decoders: Record<Coding, (b: Buffer) => Promise<Buffer>> = {
  identity: async (b) => b,
  gzip: promisify(gunzip),
  zstd: promisify(zstdDecompress),
};

/** Throws unless the page holds the ten ledgers and every coding decodes to the identity bytes. */
async function check(format: Format, samples: Record<Coding, Sample>): Promise<void> {
  const plain = samples.identity.body;
  const answer = JSON.parse(plain.toString('utf8'));
  if (answer.result?.ledgers?.length !== LEDGERS) throw new Error(`${format}: ${answer.result?.ledgers?.length ?? JSON.stringify(answer.error)} ledgers, not ${LEDGERS}`);
  for (const coding of CODINGS) {
    if (!(await decoders[coding](samples[coding].body)).equals(plain)) throw new Error(`${format}/${coding}: decodes to other bytes than the identity answer`);
  }
}

/**
 * The floor of a JSON page: the ten metas rendered by the addon (the stellar-xdr crate's serde, what
 * the node runs) in this process with nothing else, on one thread and split over `threads`; ms.
 */
async function renderAlone(metas: Uint8Array[], threads: number): Promise<number> {
  const native = loadNative();
  const share = Math.ceil(metas.length / threads);
  const parts = Array.from({ length: threads }, (_, i) => metas.slice(i * share, (i + 1) * share)).filter((p) => p.length > 0);
  const t0 = performance.now();
  await Promise.all(parts.map((p) => native.xdrToJson(p.map(() => 'LedgerCloseMeta'), p)));
  return performance.now() - t0;
}

export async function runAnswerEncodingBench(opts: AnswerEncodingOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const node = await startPubnetFollower(['--max-response-body-bytes', String(64 * 1024 * 1024), '--max-get-ledgers-execution-duration', '60s', '--max-request-execution-duration', '60s']);
  const runs: Record<Format, Record<Coding, Array<{ ms: number; bytes: number }>>> = {
    base64: { identity: [], gzip: [], zstd: [] }, json: { identity: [], gzip: [], zstd: [] },
  };
  const metas = pubnetMetas();
  const threads = availableParallelism();
  const alone: { one: number[]; all: number[] } = { one: [], all: [] };
  try {
    // warm-up (JIT, the JSON workers, SQLite's page cache): one ledger of each, and the codings' first use
    for (const format of FORMATS) for (const coding of CODINGS) await fetchPage(node.url, format, coding, 1);
    for (let round = 0; round < opts.rounds; round++) {
      for (const format of FORMATS) {
        const samples = {} as Record<Coding, Sample>;
        for (const coding of CODINGS) samples[coding] = await fetchPage(node.url, format, coding);
        await check(format, samples);
        for (const coding of CODINGS) runs[format][coding].push({ ms: samples[coding].ms, bytes: samples[coding].bytes });
        log(`  round ${round + 1}/${opts.rounds} ${format}: ${CODINGS.map((c) => `${c} ${fmt(samples[c].ms, 0)} ms ${fmt(samples[c].bytes / 1e6, 2)} MB`).join(', ')}`);
      }
      alone.one.push(await renderAlone(metas, 1));
      alone.all.push(await renderAlone(metas, threads));
      log(`  round ${round + 1}/${opts.rounds} the metas rendered alone: ${fmt(alone.one.at(-1)!, 0)} ms on one thread, ${fmt(alone.all.at(-1)!, 0)} ms on ${threads}`);
    }
  } finally {
    await node.stop();
  }
  const ms = (f: Format, c: Coding) => median(runs[f][c].map((s) => s.ms));
  const mb = (f: Format, c: Coding) => runs[f][c][0].bytes / 1e6;
  // ratio per round (same noise for both), then the median
  const ratio = median(runs.json.identity.map((s, i) => s.ms / runs.base64.identity[i].ms));
  const rows: Row[] = [{
    metric: `getLedgers of ${LEDGERS} pubnet ledgers, xdrFormat json vs base64 (uncompressed, time to last byte)`,
    value: `${fmt(ms('json', 'identity'), 0)} ms vs ${fmt(ms('base64', 'identity'), 0)} ms`,
    ratio: `${ratio.toFixed(2)}x`, target: `<= ${JSON_RATIO_TARGET}x`, verdict: ratio <= JSON_RATIO_TARGET ? 'PASS' : 'FAIL',
  }];
  const floorRatio = median(alone.all.map((a, i) => a / runs.base64.identity[i].ms));
  rows.push({
    metric: `The ${LEDGERS} metas rendered as JSON alone (the addon's stellar-xdr serde, in the bench process, no HTTP): the floor of the json page`,
    value: `${fmt(median(alone.one), 0)} ms on one thread, ${fmt(median(alone.all), 0)} ms on ${threads}`,
    ratio: `${floorRatio.toFixed(2)}x the base64 answer`, target: 'reported (the json target is under this floor where it exceeds 1.5x)', verdict: 'n/a',
  });
  for (const format of FORMATS) {
    rows.push({
      metric: `getLedgers of ${LEDGERS} pubnet ledgers as ${format}, gzip / zstd (Accept-Encoding)`,
      value: `${fmt(mb(format, 'gzip'), 2)} / ${fmt(mb(format, 'zstd'), 2)} MB in ${fmt(ms(format, 'gzip'), 0)} / ${fmt(ms(format, 'zstd'), 0)} ms`,
      ratio: `${(mb(format, 'identity') / mb(format, 'gzip')).toFixed(1)}x / ${(mb(format, 'identity') / mb(format, 'zstd')).toFixed(1)}x smaller`,
      target: `reported (uncompressed: ${fmt(mb(format, 'identity'), 1)} MB in ${fmt(ms(format, 'identity'), 0)} ms)`, verdict: 'n/a',
    });
  }
  const details = ['### Answer encoding', '',
    `getLedgers of the ${LEDGERS} pubnet fixture ledgers (${PUBNET_FIRST}..${PUBNET_LAST}) in one page from a follower (answer budget 64 MiB), over loopback, one request at a time; time from sending the request to the answer's last byte (the client does not decode within it; every answer is decoded afterwards and checked against the identity bytes). ${opts.rounds} rounds, each requesting base64 then json, each uncompressed, gzip (level 3) and zstd (level 3); medians over rounds. After each round the bench process renders the ten metas with the addon alone (its xdrToJson, the stellar-xdr crate's serde: the node's own renderer, no HTTP, no store), on one thread and split over ${threads}: that time is the floor of the json answer, since the node renders the same bytes before it can send them (per round, ms: one thread ${alone.one.map((x) => fmt(x, 0)).join(', ')}; ${threads} threads ${alone.all.map((x) => fmt(x, 0)).join(', ')}). json/base64 per round: ${runs.json.identity.map((s, i) => (s.ms / runs.base64.identity[i].ms).toFixed(2)).join(', ')}.`, '',
    '| xdrFormat | Accept-Encoding | Median ms | ms per round | Bytes sent | vs identity |', '|---|---|---|---|---|---|',
    ...FORMATS.flatMap((f) => CODINGS.map((c) => `| ${f} | ${c} | ${fmt(ms(f, c), 0)} | ${runs[f][c].map((s) => fmt(s.ms, 0)).join(', ')} | ${runs[f][c][0].bytes.toLocaleString('en-US')} | ${(mb(f, c) / mb(f, 'identity') * 100).toFixed(1)}% |`)), ''];
  return { rows, details };
}
