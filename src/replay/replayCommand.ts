// `lumen-rpc replay FILE...`: runs the replay and renders its report (and, with --json, writes the
// summary). Input problems come back as ReplayInputError, which the command line prints as a message.
import { writeFileSync } from 'node:fs';
import { replayFiles } from './replayRun.ts';
import { renderSummary, summaryOf } from './report.ts';
import { ReplayInputError } from './ledgerFiles.ts';
import { inputCap } from '../io/inputCaps.ts';

export interface ReplayCommandOptions {
  json?: string;
  networkPassphrase?: string;
  allDifferences?: boolean;
  /** The most bytes one file may hold, as read and decompressed; default 256 MiB. */
  maxInputBytes?: number;
}

/** The report's text. */
export function replayCommand(files: readonly string[], opts: ReplayCommandOptions = {}): string {
  // progress only for a person watching: a replay of many ledgers takes a while
  const progress = process.stderr.isTTY ? (seq: number) => process.stderr.write(`\rreplayed ledger ${seq}`) : undefined;
  const run = replayFiles(files, { networkPassphrase: opts.networkPassphrase, onLedger: progress, cap: inputCap(opts.maxInputBytes) });
  if (progress) process.stderr.write('\r\x1b[K');
  const summary = summaryOf(run);
  if (opts.json) {
    try {
      writeFileSync(opts.json, JSON.stringify(summary, null, 2) + '\n');
    } catch (e) {
      throw new ReplayInputError(`${opts.json}: cannot write the summary (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  return renderSummary(summary, { allDifferences: opts.allDifferences });
}
