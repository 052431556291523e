// Ledgers from a stellar-core we run ourselves ("captive core"), as the reference runs it
// (stellar/go ingest/ledgerbackend: run_from.go, cmd.go, toml.go): core keeps its state in a
// SQLite database in our storage folder; when that database is not at the ledger before the one we
// want, it is reset (`new-db`) and brought there (`catchup <from-1>/0`); then `run` streams every
// ledger it closes as record-marked LedgerCloseMeta to file descriptor 3, a pipe we read with the
// same parsing as any meta stream.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { LedgerSource, RawLedger } from '../ledgerSource.ts';
import { ledgersFromMetaStream } from './metaStreamSource.ts';
import { SERVICE_ANSWER_CAP, readConfigFile, type ByteCap } from '../../io/inputCaps.ts';

export interface CaptiveCoreOptions {
  /** The stellar-core executable. */
  binaryPath: string;
  networkPassphrase: string;
  /**
   * Core's working folder: its database, buckets and the generated config. Kept between runs, so a
   * restart resumes where core was. Default: a folder of this process under the system temp folder,
   * removed when the ledgers end (every start then rebuilds core's state from the archives).
   */
  storagePath?: string;
  /** History archives core catches up from; used when the operator's config names none. */
  historyArchiveUrls?: string[];
  /** The operator's core config (validators, quorum set, home domains), merged into ours. */
  configPath?: string;
  /** Core's own HTTP port; 0 (the default) turns it off. */
  httpPort?: number;
  /** Receives core's log lines. */
  log?: (line: string) => void;
  /** How long core gets to exit after SIGTERM before it is killed (ms). */
  stopTimeoutMs?: number;
  /** The most bytes of one ledger's meta in core's stream (--max-input-bytes). */
  cap?: ByteCap;
}

const CONFIG_FILE = 'stellar-core.cfg';
const LOG_TAIL_LINES = 20;

export class CaptiveCoreSource implements LedgerSource {
  readonly description: string;
  private readonly opts: CaptiveCoreOptions;
  private readonly storagePath: string;
  private readonly ephemeralStorage: boolean;
  private readonly recentLog: string[] = [];

  constructor(opts: CaptiveCoreOptions) {
    this.opts = opts;
    this.ephemeralStorage = opts.storagePath === undefined;
    this.storagePath = resolve(opts.storagePath ?? join(tmpdir(), `lumen-rpc-captive-core-${process.pid}`));
    this.description = `captive core ${opts.binaryPath}`;
  }

  async *ledgers(from: number, opts: { signal: AbortSignal; to?: number }): AsyncGenerator<RawLedger> {
    mkdirSync(this.storagePath, { recursive: true });
    try {
      writeFileSync(join(this.storagePath, CONFIG_FILE), captiveCoreToml(this.opts));
      if (await this.prepare(from, opts.signal)) yield* this.run(from, opts);
    } finally {
      if (this.ephemeralStorage) rmSync(this.storagePath, { recursive: true, force: true });
    }
  }

  /** Brings core's database to the ledger before `from` unless it is there; false when aborted. */
  private async prepare(from: number, signal: AbortSignal): Promise<boolean> {
    const lastClosed = await this.offlineLastClosedLedger(signal);
    if (signal.aborted) return false;
    // Past `from` it cannot go back; before it, `run` replays the ledgers in between itself.
    if (lastClosed === undefined || lastClosed <= 1 || lastClosed > from - 1) {
      await this.runToEnd(['new-db'], signal);
      // Ledger 1 is genesis, which new-db creates; there is nothing to catch up to.
      if (from > 2 && !signal.aborted) await this.runToEnd(['catchup', `${from - 1}/0`], signal);
    }
    return !signal.aborted;
  }

  private async *run(from: number, opts: { signal: AbortSignal; to?: number }): AsyncGenerator<RawLedger> {
    const { signal } = opts;
    const child = this.start(['run', '--metadata-output-stream', 'fd:3'], ['ignore', 'pipe', 'pipe', 'pipe']);
    const exited = exitOf(child);
    let last: number | undefined;
    try {
      const meta = child.stdio[3] as Readable;
      for await (const ledger of ledgersFromMetaStream(meta, from, { signal, to: opts.to, what: this.description, cap: this.opts.cap })) {
        last = ledger.sequence;
        yield ledger;
      }
      if (signal.aborted || (opts.to !== undefined && last !== undefined && last >= opts.to)) return;
      // Core never ends its stream while it runs: the stream ended because core did.
      const code = await exited;
      throw new Error(`${this.description}: stellar-core run ${describeExit(code)} ${last === undefined ? 'before its first ledger' : `after ledger ${last}`}${this.logTail()}`);
    } finally {
      await stop(child, exited, this.opts.stopTimeoutMs ?? 10_000);
    }
  }

  async latest(): Promise<number | undefined> { return undefined; }
  async earliest(): Promise<number | undefined> { return undefined; }

  /** The last closed ledger in core's database, or undefined when there is no usable database. */
  private async offlineLastClosedLedger(signal: AbortSignal): Promise<number | undefined> {
    try {
      const out = await this.runToEnd(['offline-info'], signal, { quiet: true });
      const num = (JSON.parse(out) as { info?: { ledger?: { num?: unknown } } }).info?.ledger?.num;
      return typeof num === 'number' ? num : undefined;
    } catch {
      return undefined;
    }
  }

  private start(command: string[], stdio: Array<'ignore' | 'pipe'>, captureStdout = false): ChildProcess {
    const args = ['--conf', join(this.storagePath, CONFIG_FILE), '--console', ...command];
    const child = spawn(this.opts.binaryPath, args, { cwd: this.storagePath, stdio });
    if (!captureStdout && child.stdout) this.logLines(child.stdout);
    if (child.stderr) this.logLines(child.stderr);
    return child;
  }

  /** Runs a core command to completion; its stdout when `quiet`, else its output goes to the log. */
  private async runToEnd(command: string[], signal: AbortSignal, opts: { quiet?: boolean } = {}): Promise<string> {
    const child = this.start(command, ['ignore', 'pipe', 'pipe'], opts.quiet);
    const exited = exitOf(child);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    // what is kept of core's answer (offline-info: a few KiB); past it, the answer cannot parse
    if (opts.quiet) child.stdout!.on('data', (b: Buffer) => { if ((stdoutBytes += b.length) <= SERVICE_ANSWER_CAP.bytes) stdout.push(b); });
    const onAbort = () => child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const code = await exited;
      if (signal.aborted) return '';
      if (code !== 0) throw new Error(`${this.description}: stellar-core ${command.join(' ')} ${describeExit(code)}${this.logTail()}`);
      return Buffer.concat(stdout).toString('utf8');
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private logLines(stream: Readable): void {
    // node:readline taken here, not imported: a standalone node, which never runs core, need not load it
    process.getBuiltinModule('node:readline').createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      this.recentLog.push(line);
      if (this.recentLog.length > LOG_TAIL_LINES) this.recentLog.shift();
      this.opts.log?.(line);
    });
  }

  private logTail(): string {
    return this.recentLog.length ? `; its last output:\n${this.recentLog.join('\n')}` : '';
  }
}

/**
 * The config core runs with: the operator's file (validators, quorum, archives) with our settings
 * laid over it. Like the reference, captive core emits everything RPC serves: diagnostic events,
 * the Soroban meta extension, and CAP-67 unified (classic) events, not backfilled before protocol 23.
 */
export function captiveCoreToml(opts: Pick<CaptiveCoreOptions, 'networkPassphrase' | 'historyArchiveUrls' | 'configPath' | 'httpPort'>): string {
  const config: Record<string, unknown> = opts.configPath ? parseToml(readConfigFile(opts.configPath)) : {};
  const given = config.NETWORK_PASSPHRASE;
  if (given !== undefined && given !== opts.networkPassphrase) {
    throw new Error(`${opts.configPath}: NETWORK_PASSPHRASE is "${String(given)}", expected "${opts.networkPassphrase}"`);
  }
  const defaults: Record<string, unknown> = {
    DATABASE: 'sqlite3://stellar.db',
    HTTP_PORT: opts.httpPort ?? 0,
    LOG_FILE_PATH: '', // core logs to the console, which we read
    FAILURE_SAFETY: -1,
  };
  for (const [key, value] of Object.entries(defaults)) if (config[key] === undefined) config[key] = value;
  Object.assign(config, {
    NETWORK_PASSPHRASE: opts.networkPassphrase,
    NODE_IS_VALIDATOR: false,
    DISABLE_XDR_FSYNC: true,
    ENABLE_SOROBAN_DIAGNOSTIC_EVENTS: true,
    EMIT_SOROBAN_TRANSACTION_META_EXT_V1: true,
    EMIT_CLASSIC_EVENTS: true,
    BACKFILL_STELLAR_ASSET_EVENTS: false,
  });
  if (config.HISTORY === undefined && opts.historyArchiveUrls?.length) {
    config.HISTORY = Object.fromEntries(opts.historyArchiveUrls.map((url, i) => [`h${i}`, { get: `curl -sf ${url.replace(/\/$/, '')}/{0} -o {1}` }]));
  }
  return `# Generated by lumen-rpc for captive stellar-core; rewritten on every start\n${stringifyToml(config)}`;
}

function exitOf(child: ChildProcess): Promise<number | NodeJS.Signals> {
  return new Promise((resolve) => {
    child.once('error', () => resolve(-1));
    // 'close', not 'exit': it comes after the child's output was read to the end (for the log).
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1));
  });
}

function describeExit(code: number | NodeJS.Signals): string {
  return code === -1 ? 'could not be started' : typeof code === 'number' ? `exited with code ${code}` : `was killed by ${code}`;
}

async function stop(child: ChildProcess, exited: Promise<unknown>, timeoutMs: number): Promise<void> {
  // Nobody reads the stream any more; an unread stream would also hold back the child's 'close'.
  (child.stdio[3] as Readable | null)?.destroy();
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await settlesWithin(exited, timeoutMs))) {
    child.kill('SIGKILL');
    await settlesWithin(exited, timeoutMs);
  }
}

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => { timer = setTimeout(() => r(false), ms); });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
