// When the node committed each ledger, read from its own log: the standalone network logs
// `closed ledger` (debug level) right after the ledger writer stored the ledger and announced it on
// the ledger feed, with pino's wall-clock `time` (ms). The feed's listeners only queue work, so no
// notification can leave before that line's timestamp: commit-to-client latency measured from it
// leaves out at most the few synchronous steps between the store's commit and the log call.
// The node must run with `--log-level debug --log-format json`.
import type { Readable } from 'node:stream';
import { sleep } from './stats.ts';

export class CommitLog {
  private readonly times = new Map<number, number>();
  private partial = '';

  constructor(stdout: Readable) {
    stdout.on('data', (chunk: Buffer) => {
      const text = this.partial + chunk.toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('"closed ledger"')) continue;
        const entry = JSON.parse(line) as { time: string | number; ledger: number };
        this.times.set(entry.ledger, typeof entry.time === 'number' ? entry.time : Date.parse(entry.time));
      }
    });
  }

  /** The commit time (ms since the epoch) of `ledger`, if its line has arrived. */
  at(ledger: number): number | undefined { return this.times.get(ledger); }

  /** Waits for the lines of all `ledgers` (the node batches its log writes, up to 50 ms late). */
  async waitFor(ledgers: readonly number[], timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const missing = ledgers.filter((l) => !this.times.has(l));
      if (missing.length === 0) return;
      if (Date.now() > deadline) throw new Error(`no 'closed ledger' log line for ledgers ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`);
      await sleep(50);
    }
  }
}
