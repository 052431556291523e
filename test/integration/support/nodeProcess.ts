// Runs lumen-rpc as a child process, the way users run it, on a free loopback port and a fresh
// database, and waits until it answers JSON-RPC; and calls it on connections of their own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../../', import.meta.url).pathname;

export interface NodeProcess {
  url: string;
  dbPath: string;
  child: ChildProcess;
  output(): string;
  /**
   * Resolves once the output matches `pattern` (the node writes its log in batches, a few
   * milliseconds after the line, so a line logged at start may follow the first answer); fails with
   * the output after `ms`.
   */
  outputMatching(pattern: RegExp, ms?: number): Promise<void>;
  /** JSON-RPC call returning the whole response object. */
  rpc(method: string, params?: unknown): Promise<any>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * The protocol the tests' standalone networks run unless a test says otherwise: the official clients
 * these tests drive (JS SDK 17.2, Python stellar-sdk 16.1) have no protocol-30 XDR, so they cannot
 * read a protocol-30 ledger header (getLatestLedger, getLedgers); the node's own default is 30.
 */
export const CLIENT_PROTOCOL = 28;

export interface StartOptions {
  args?: string[];
  /** The standalone network's --protocol: CLIENT_PROTOCOL unless given; null leaves the node's default. */
  protocol?: number | null;
  dbPath?: string;
  port?: number;
  /** How long to wait for the first stored ledger (a follower may bootstrap and backfill first). */
  readyTimeoutMs?: number;
  /** Ready once the server answers at all, even before any ledger is stored. */
  readyWhenListening?: boolean;
  /** Options for Node itself, before the script (e.g. the bench's `--inspect` to read the heap). */
  nodeArgs?: string[];
}

/**
 * The error message of a start that must fail (bad flags, a database of another kind, a remote
 * that cannot be read); throws when the node starts after all.
 */
export async function startRefusal(opts: StartOptions): Promise<string> {
  let node: NodeProcess;
  try {
    node = await startNodeProcess(opts);
  } catch (e) {
    return (e as Error).message;
  }
  await node.stop();
  throw new Error(`the node started with ${(opts.args ?? []).join(' ')}`);
}

/**
 * The database folders this process made, removed when it exits. Not on stop(): tests start a node
 * again on a stopped one's database. Left behind, a full test run and bench left tens of GB in /tmp.
 */
const madeFolders: string[] = [];
process.once('exit', () => { for (const dir of madeFolders) rmSync(dir, { recursive: true, force: true }); });

function freshDatabasePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-rpc-'));
  madeFolders.push(dir);
  return join(dir, 'node.sqlite');
}

export async function startNodeProcess(opts: StartOptions = {}): Promise<NodeProcess> {
  const port = opts.port ?? await freePort();
  const dbPath = opts.dbPath ?? freshDatabasePath();
  const protocol = opts.protocol === undefined ? CLIENT_PROTOCOL : opts.protocol;
  const pinned = protocol === null || (opts.args ?? []).includes('--protocol') ? [] : ['--protocol', String(protocol)];
  const args = [...(opts.nodeArgs ?? []), 'bin/lumen-rpc.js', 'start', '--endpoint', `127.0.0.1:${port}`, '--db-path', dbPath, ...pinned, ...(opts.args ?? [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const url = `http://127.0.0.1:${port}`;
  const rpc = async (method: string, params?: unknown) => {
    const res = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return res.json();
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 20_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`lumen-rpc exited with ${child.exitCode}:\n${out}`);
    try {
      const r: any = await rpc('getLatestLedger');
      if (r.result || (opts.readyWhenListening && r.error)) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`lumen-rpc did not start:\n${out}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url, dbPath, child, rpc,
    output: () => out,
    async outputMatching(pattern, ms = 10_000) {
      for (const until = Date.now() + ms; !pattern.test(out);) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`no output matching ${pattern} in ${ms} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: (signal: NodeJS.Signals = 'SIGTERM') => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill(signal);
    }),
  };
}

/**
 * One HTTP request on a connection of its own: a test process busy for seconds (reading hundreds of
 * streaming connections, or parsing their big frames) may reuse a kept-alive connection late, after
 * the node closed it for idleness.
 */
export function freshRequest(url: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A JSON-RPC call on a connection of its own (see freshRequest): the whole answer. */
export async function freshRpc(node: NodeProcess, method: string, params?: unknown): Promise<any> {
  return JSON.parse((await freshRequest(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text);
}
