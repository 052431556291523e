// Bounded input from remotes and files (issue 31, item 7), with real processes, files and HTTP: a zstd
// bomb (2 GiB of zeros in 64 KB), a gzip bomb and /dev/zero given to `lumen-rpc replay`; a zstd bomb
// turning up in the datastore a follower reads; a meta stream whose first ledger runs to 2 GiB; a fork
// remote answering a 1 GB body (at start, and on first use of an entry). Each ends in one clear error
// naming the input, the cap (256 MiB by default) and --max-input-bytes, with the process's peak RSS
// (VmHWM) under 1 GiB, and the nodes keep answering while they read it and after. The probes'
// latencies are printed, not asserted.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, createZstdCompress } from 'node:zlib';
import { Keypair } from '@stellar/stellar-sdk';
import { DatastoreWriter } from '../../src/sources/datastore/datastoreWriter.ts';
import { LedgerChain, SYNTHETIC_PASSPHRASE, emptyTemplate } from '../support/sacLedgers.ts';
import { startNodeProcess, startRefusal, type NodeProcess } from './support/nodeProcess.ts';
import { describeProbes, peakRssMb, peakRssSampler, probeUntil } from './support/processMemory.ts';
import { accountKey } from './support/forks.ts';
import { waitFor } from './support/twoNodes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** What every refusal says about the cap, with the defaults. */
const OVER_CAP = 'larger than the 256 MiB input cap (--max-input-bytes raises it)';
const MEMORY_CEILING_MB = 1024;

/** Zeros (after `prefix`), compressed while they are made: the file is written without the zeros ever being held. */
async function writeBomb(path: string, zeros: number, format: 'zstd' | 'gzip', prefix: Uint8Array = new Uint8Array(0)): Promise<void> {
  const chunk = new Uint8Array(16 * MiB);
  async function* content(): AsyncGenerator<Uint8Array> {
    if (prefix.length) yield prefix;
    for (let left = zeros; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  }
  await pipeline(Readable.from(content()), format === 'zstd' ? createZstdCompress() : createGzip({ level: 1 }), createWriteStream(path));
}

/** The 12-byte prefix of a one-ledger LedgerCloseMetaBatch: what makes a bomb look like a datastore file. */
function batchPrefix(ledger: number): Uint8Array {
  const prefix = new Uint8Array(12);
  const view = new DataView(prefix.buffer);
  view.setUint32(0, ledger);
  view.setUint32(4, ledger);
  view.setUint32(8, 1);
  return prefix;
}

/** `lumen-rpc replay FILES` as a user runs it: exit code, stderr, and its peak RSS. */
async function replay(files: string[]): Promise<{ code: number | null; stderr: string; peakMb: number }> {
  const child = spawn(process.execPath, ['bin/lumen-rpc.js', 'replay', ...files], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const memory = peakRssSampler(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  child.stdout!.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stderr, peakMb: memory.stop() };
}

describe('lumen-rpc replay refuses input past the cap, holding at most the cap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bounded-replay-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a zstd bomb (2 GiB of zeros) ends in one clear error, memory bounded', async () => {
    const bomb = join(dir, 'ledger-5.xdr.zst');
    await writeBomb(bomb, 2 * GiB, 'zstd', batchPrefix(5));
    assert.ok(statSync(bomb).size < MiB, 'the bomb is small on disk');
    const r = await replay([bomb]);
    console.log(`replay of a 2 GiB zstd bomb (${statSync(bomb).size} bytes): exit ${r.code}, peak RSS ${r.peakMb.toFixed(0)} MiB`);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `lumen-rpc: ${bomb}: refused: decompressed, it is ${OVER_CAP}\n`);
    assert.ok(r.peakMb < MEMORY_CEILING_MB, `peak RSS ${r.peakMb.toFixed(0)} MiB`);
  });

  it('a gzip bomb (512 MiB of zeros) too', async () => {
    const bomb = join(dir, 'ledger-6.xdr.gz');
    await writeBomb(bomb, 512 * MiB, 'gzip');
    const r = await replay([bomb]);
    console.log(`replay of a 512 MiB gzip bomb: exit ${r.code}, peak RSS ${r.peakMb.toFixed(0)} MiB`);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `lumen-rpc: ${bomb}: refused: decompressed, it is ${OVER_CAP}\n`);
    assert.ok(r.peakMb < MEMORY_CEILING_MB, `peak RSS ${r.peakMb.toFixed(0)} MiB`);
  });

  it('/dev/zero ends in one clear error instead of being read for ever', async () => {
    const r = await replay(['/dev/zero']);
    console.log(`replay of /dev/zero: exit ${r.code}, peak RSS ${r.peakMb.toFixed(0)} MiB`);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `lumen-rpc: /dev/zero: refused: it is ${OVER_CAP}\n`);
    assert.ok(r.peakMb < MEMORY_CEILING_MB, `peak RSS ${r.peakMb.toFixed(0)} MiB`);
  });
});

describe('a follower refuses a zstd bomb in its datastore and serves on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bounded-datastore-'));
  let node: NodeProcess;
  let writer: DatastoreWriter;
  before(async () => {
    writer = new DatastoreWriter(dir, { networkPassphrase: SYNTHETIC_PASSPHRASE });
    const chain = new LedgerChain(2);
    for (let i = 0; i < 3; i++) { const l = chain.make(emptyTemplate()); writer.write({ sequence: l.sequence, bytes: l.bytes }); }
    node = await startNodeProcess({
      args: ['--log-level', 'info', '--datastore', dir, '--network-passphrase', SYNTHETIC_PASSPHRASE, '--datastore-poll-interval', '50ms'],
      readyTimeoutMs: 60_000,
    });
  });
  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the bomb is refused with the file named, RSS stays far under 1 GiB, getHealth and getLatestLedger answer throughout', async () => {
    // the node answers once it stored a ledger; the three may take more than one commit
    await waitFor('the datastore\'s three ledgers stored', async () => (await node.rpc('getLatestLedger')).result.sequence === 4);
    // the next ledger's file turns up as a bomb, written whole under its name as galexie would
    const key = writer.keyOf(5);
    const bomb = join(dir, key);
    mkdirSync(dirname(bomb), { recursive: true });
    await writeBomb(join(dir, 'bomb.tmp'), 2 * GiB, 'zstd', batchPrefix(5));
    const memory = peakRssSampler(node.child.pid!);
    const before = memory.peakMb;
    renameSync(join(dir, 'bomb.tmp'), bomb);
    // ingestion tries the file a few times, then gives up and the node serves what it has
    const gaveUp = () => node.output().includes('ingestion stopped') || node.child.exitCode !== null;
    const probes = await probeUntil(node.url, ['getHealth', 'getLatestLedger'], gaveUp);
    const peak = memory.stop();
    console.log(`follower reading a 2 GiB zstd bomb from its datastore: ${describeProbes(probes)}; peak RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB while reading`);
    assert.equal(node.child.exitCode, null, node.output().slice(-3000));
    const refusal = `${bomb}: refused: decompressed, it is ${OVER_CAP}`;
    assert.ok(node.output().includes(refusal), `the log names the file and the cap:\n${node.output().slice(-3000)}`);
    assert.ok(peak < MEMORY_CEILING_MB, `peak RSS ${peak.toFixed(0)} MiB`);
    assert.equal(probes.errors, 0);
    assert.ok(probes.count >= 5, 'the node was probed while it read the file');
    // it serves on: what it had, with the refused file left unread
    assert.equal((await node.rpc('getLatestLedger')).result.sequence, 4);
    const health = await node.rpc('getHealth');
    assert.ok(health.result || health.error, JSON.stringify(health));
    assert.equal((await node.rpc('getLedgers', { startLedger: 2, pagination: { limit: 3 } })).result.ledgers.length, 3);
  });
});

describe('a follower of a meta stream whose first ledger never ends refuses it and serves on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bounded-metastream-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the record is refused at the cap, named; RSS stays far under 1 GiB; the node answers throughout', async () => {
    // a zstd-compressed meta stream: fragments of 64 KiB not marked last, 2 GiB of them
    const stream = join(dir, 'meta.xdr.zst');
    const block = new Uint8Array(64 * 1024);
    new DataView(block.buffer).setUint32(0, block.length - 4);
    const blocks = async function* (): AsyncGenerator<Uint8Array> { for (let i = 0; i < (2 * GiB) / block.length; i++) yield block; };
    await pipeline(Readable.from(blocks()), createZstdCompress(), createWriteStream(stream));
    const node = await startNodeProcess({ args: ['--log-level', 'info', '--meta-stream', stream], readyWhenListening: true });
    try {
      const memory = peakRssSampler(node.child.pid!);
      const gaveUp = () => node.output().includes('ingestion stopped') || node.child.exitCode !== null;
      const probes = await probeUntil(node.url, ['getHealth', 'getLatestLedger'], gaveUp);
      const peak = memory.stop();
      console.log(`follower reading a 2 GiB meta stream record (${statSync(stream).size} bytes of zstd): ${describeProbes(probes)}; peak RSS ${peak.toFixed(0)} MiB`);
      assert.equal(node.child.exitCode, null, node.output().slice(-3000));
      assert.ok(node.output().includes(`meta stream ${stream}: record 0: refused: it is ${OVER_CAP}`), node.output().slice(-3000));
      assert.ok(peak < MEMORY_CEILING_MB, `peak RSS ${peak.toFixed(0)} MiB`);
      assert.equal(probes.errors, 0);
      const health = await node.rpc('getHealth');
      assert.ok(health.result || health.error, JSON.stringify(health));
    } finally {
      await node.stop();
    }
  });
});

describe('a fork refuses a remote that answers 1 GB, and serves on', () => {
  let a: NodeProcess;
  let remote: Server;
  let remoteUrl: string;
  /** getLedgerEntries (or every method) answered with a 1 GB body, streamed as the reader takes it. */
  const huge = { methods: new Set<string>(), sent: 0, chunked: false };

  before(async () => {
    a = await startNodeProcess({ args: ['--log-level', 'warn'] });
    // A behind a proxy that can turn any method's answer into a gigabyte
    remote = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const call = JSON.parse(body.toString()) as { id: number; method: string };
      if (huge.methods.has(call.method)) return sendGigabyte(res, call.id, huge.chunked);
      const answer = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  });
  after(async () => {
    remote?.closeAllConnections();
    remote?.close();
    await a?.stop();
  });

  /**
   * A JSON-RPC answer of 1 GB (a result padded with spaces), written chunk by chunk as the client
   * reads: announced by its Content-Length, or (`chunked`) not, so only counting can tell.
   */
  function sendGigabyte(res: import('node:http').ServerResponse, id: number, chunked: boolean): void {
    const head = Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"latestLedger":1,"entries":[`);
    const tail = Buffer.from(']}}');
    const pad = Buffer.alloc(MiB, 0x20);
    const total = GiB;
    res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(total) }) });
    let written = 0;
    const write = (part: Buffer) => { written += part.length; huge.sent += part.length; return res.write(part); };
    const more = () => {
      while (!res.destroyed && written < total - tail.length) {
        const part = written === 0 ? head : pad.subarray(0, Math.min(pad.length, total - tail.length - written));
        if (!write(part)) return;
      }
      if (!res.destroyed && written === total - tail.length) res.end(tail);
    };
    res.on('drain', more);
    more();
  }

  it('at start: the node does not start, says which remote, method and cap, having read the cap and no more', async () => {
    huge.methods = new Set(['getNetwork']);
    huge.chunked = true;
    huge.sent = 0;
    let peak = 0;
    const sampling = setInterval(() => {
      for (const pid of childPids()) peak = Math.max(peak, peakRssMb(pid) ?? 0);
    }, 20);
    let message: string;
    try {
      message = await startRefusal({ args: ['--fork-url', remoteUrl] });
    } finally {
      clearInterval(sampling);
    }
    console.log(`fork start against a 1 GB getNetwork answer: refused after ${(huge.sent / MiB).toFixed(0)} MiB sent; peak RSS ${peak.toFixed(0)} MiB`);
    assert.match(message, new RegExp(`getNetwork at ${remoteUrl}: its answer: refused: it is ${escape(OVER_CAP)}`));
    assert.ok(huge.sent > 256 * MiB && huge.sent < GiB / 2, `the transfer was read to the cap and cut there (${huge.sent} bytes sent)`);
    assert.ok(peak > 0 && peak < MEMORY_CEILING_MB, `peak RSS ${peak.toFixed(0)} MiB`);
  });

  // with a cap of 64 MiB, read well within getLedgerEntries' 5 s on a loaded machine
  it('on first use: the request gets -32603 naming the cap and its flag, getHealth answers while it is read, the next request is served', async () => {
    huge.methods = new Set();
    const b = await startNodeProcess({ args: ['--fork-url', remoteUrl, '--log-level', 'warn', '--max-input-bytes', String(64 * MiB)] });
    try {
      const key = accountKey(Keypair.random().publicKey()).toXDR('base64');
      huge.methods = new Set(['getLedgerEntries']);
      huge.chunked = true;
      huge.sent = 0;
      const memory = peakRssSampler(b.child.pid!);
      const before = memory.peakMb;
      let answered = false;
      const asked = b.rpc('getLedgerEntries', { keys: [key] }).finally(() => { answered = true; });
      const probes = await probeUntil(b.url, ['getHealth', 'getLatestLedger'], () => answered);
      const r = await asked;
      const peak = memory.stop();
      console.log(`fork reading a 1 GB getLedgerEntries answer: cut after ${(huge.sent / MiB).toFixed(0)} MiB sent; ${describeProbes(probes)}; peak RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB while reading`);
      assert.equal(r.error?.code, -32603, JSON.stringify(r).slice(0, 500));
      assert.match(r.error.message, new RegExp(`getLedgerEntries at ${remoteUrl}: its answer: refused: it is larger than the 64 MiB input cap \\(--max-input-bytes raises it\\)`));
      assert.ok(huge.sent > 64 * MiB && huge.sent < GiB / 4, `the transfer was read to the cap and cut there (${huge.sent} bytes sent)`);
      assert.ok(peak < MEMORY_CEILING_MB, `peak RSS ${peak.toFixed(0)} MiB`);
      assert.equal(probes.errors, 0);
      // the remote answers sensibly again: the same key is read from it (absent there, so no entry)
      huge.methods = new Set();
      const again = await b.rpc('getLedgerEntries', { keys: [key] });
      assert.ok(again.result && (again.result.entries ?? []).length === 0, JSON.stringify(again).slice(0, 300));
      assert.ok((await b.rpc('getHealth')).result);
    } finally {
      await b.stop();
    }
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** This test process's child processes (the node being started), from every thread's list. */
function childPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      pids.push(...readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch { /* the thread ended */ }
  }
  return pids;
}
