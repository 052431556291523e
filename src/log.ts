// Process logger. `json` writes pino's JSON lines; `text` writes one logfmt-style line per record
// (time=… level=… msg="…" key=value …), close to the reference node's logrus text output.
// Both write to stdout asynchronously and in batches (see bufferedStdout), so logging on the
// request path does not cost a write(2) per line.
import { pino, type Logger, type DestinationStream } from 'pino';
import type { Config } from './config/config.ts';

export type { Logger };

/** Anything with a `write(line)`; tests pass one to capture output. */
export interface LogSink {
  write(chunk: string): unknown;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

// Keys rendered first (or dropped) by the text formatter.
const SKIP_KEYS = new Set(['time', 'level', 'msg', 'pid', 'hostname']);

function quoteIfNeeded(s: string): string {
  // Bare when it is a plain token, as logrus does; otherwise a JSON string.
  return /^[A-Za-z0-9_.:/@+\-]+$/.test(s) ? s : JSON.stringify(s);
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return quoteIfNeeded(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  return quoteIfNeeded(JSON.stringify(v));
}

/** Turns one pino JSON line into `time="…" level=info msg="…" k=v …\n`. Exported for tests. */
export function formatTextLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : line + '\n';
  }
  const level = typeof rec.level === 'number' ? (LEVEL_NAMES[rec.level] ?? String(rec.level)) : String(rec.level);
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : String(rec.time);
  let out = `time=${JSON.stringify(time)} level=${level} msg=${JSON.stringify(String(rec.msg ?? ''))}`;
  for (const key of Object.keys(rec)) {
    if (SKIP_KEYS.has(key)) continue;
    const v = rec[key];
    if (key === 'err' && v !== null && typeof v === 'object') {
      const e = v as { message?: unknown; stack?: unknown };
      out += ` error=${formatValue(String(e.message ?? ''))}`;
      if (typeof e.stack === 'string') out += ` stack=${JSON.stringify(e.stack)}`;
      continue;
    }
    out += ` ${key}=${formatValue(v)}`;
  }
  return out + '\n';
}

function textSink(inner: LogSink): DestinationStream {
  return { write: (chunk: string) => { inner.write(formatTextLine(chunk)); } };
}

const FLUSH_BYTES = 8192;
const FLUSH_MS = 50;

/**
 * stdout through sonic-boom (asynchronous), with lines gathered into writes of about 8 KiB or
 * 50 ms, whichever comes first: a write per line costs more than the request it logs. Whatever is
 * pending is written synchronously when the process exits.
 */
function bufferedStdout(): LogSink {
  const dest = pino.destination({ dest: 1, sync: false });
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer !== undefined) { clearTimeout(timer); timer = undefined; }
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    dest.write(chunk);
  };
  process.once('exit', () => {
    flush();
    try { dest.flushSync(); } catch { /* stdout gone */ }
  });
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= FLUSH_BYTES) flush();
      else if (timer === undefined) { timer = setTimeout(flush, FLUSH_MS); timer.unref(); }
    },
  };
}

let isoCacheMs = -1;
let isoCache = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== isoCacheMs) { isoCacheMs = now; isoCache = new Date(now).toISOString(); }
  return isoCache;
}

function isPlainToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A-Z a-z 0-9 _ . : / @ + -
    if (!((c >= 48 && c <= 58) || (c >= 64 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 47 || c === 43 || c === 45)) return false;
  }
  return true;
}

/** The text line for `logger.<level>(obj?, msg)` on the root logger, without a JSON round trip. */
function fastTextLine(level: number, obj: Record<string, unknown> | undefined, msg: string): string {
  let out = `time="${isoNow()}" level=${LEVEL_NAMES[level] ?? level} msg=${JSON.stringify(msg)}`;
  if (obj !== undefined) {
    for (const key in obj) {
      const v = obj[key];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      if (typeof v === 'string') out += ` ${key}=${isPlainToken(v) ? v : JSON.stringify(v)}`;
      else if (typeof v === 'number' || typeof v === 'boolean') out += ` ${key}=${v}`;
      else if (v instanceof Error) {
        out += ` error=${JSON.stringify(v.message)}`;
        if (key === 'err' && v.stack !== undefined && level >= 50) out += ` stack=${JSON.stringify(v.stack)}`;
      } else out += ` ${key}=${formatValue(v)}`;
    }
  }
  return out + '\n';
}

/**
 * Creates the process logger from `config.logLevel` / `config.logFormat`.
 * `sink` replaces stdout (tests).
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, sink?: LogSink): Logger {
  const base: LogSink = sink ?? bufferedStdout();
  if (config.logFormat === 'json') {
    return pino(
      {
        level: config.logLevel,
        base: { pid: process.pid },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label: string) => ({ level: label }) },
      },
      base as DestinationStream,
    );
  }
  // Text: calls of the usual shapes on the root logger, `(obj, 'msg')` and `('msg')` without
  // printf arguments, are formatted directly (about 5x cheaper); everything else (child loggers,
  // printf-style messages, a bare Error) goes through pino's JSON and is reformatted.
  let root: Logger | undefined;
  const logger: Logger = pino(
    {
      level: config.logLevel,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.epochTime,
      hooks: {
        logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void, level: number) {
          if (this === root) {
            const [a, b] = args;
            if (args.length === 2 && typeof b === 'string' && typeof a === 'object' && a !== null && !(a instanceof Error) && !b.includes('%')) {
              base.write(fastTextLine(level, a as Record<string, unknown>, b));
              return;
            }
            if (args.length === 1 && typeof a === 'string' && !a.includes('%')) {
              base.write(fastTextLine(level, undefined, a));
              return;
            }
          }
          method.apply(this, args);
        },
      },
    },
    textSink(base),
  );
  root = logger;
  return logger;
}
