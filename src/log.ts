// Process logger. `json` writes pino's JSON lines; `text` writes one logfmt-style line per record
// (time=… level=… msg="…" key=value …), close to the reference node's logrus text output.
// Both write to stdout asynchronously (sonic-boom, flushed on exit), so logging on the request path
// does not cost a write(2) per line.
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

/**
 * Creates the process logger from `config.logLevel` / `config.logFormat`.
 * `sink` replaces stdout (tests).
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, sink?: LogSink): Logger {
  const base: LogSink = sink ?? pino.destination({ dest: 1, sync: false });
  const dest: DestinationStream = config.logFormat === 'json' ? (base as DestinationStream) : textSink(base);
  return pino(
    {
      level: config.logLevel,
      base: { pid: process.pid },
      timestamp: config.logFormat === 'json' ? pino.stdTimeFunctions.isoTime : pino.stdTimeFunctions.epochTime,
      formatters: config.logFormat === 'json' ? { level: (label: string) => ({ level: label }) } : {},
    },
    dest,
  );
}
