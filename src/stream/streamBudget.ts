// The ceilings of streaming, and who goes when they are hit. A connection holds what its client
// has not taken: the entries waiting in its outbox, each counted at its full size (shared with other
// subscribers or not: the count is of the work still owed, and the ceiling is of the memory it could
// take), and what its socket holds. So a subscription weighs what it matches: an unfiltered `events`
// subscription is owed every event of every ledger, a filtered one the few it matches, and a replay
// at most one page at a time.
//
// Rules (the hub closes the connections they name, with 4001 and where each subscription resumes):
//  - behind: it holds over its buffer limit and its oldest waiting entry has waited over the lag
//    limit (it takes less than it is sent);
//  - stuck: something waits for it and it has taken nothing for the lag limit (a client that
//    stopped reading, a replay paused for good);
//  - over its own ceiling: it holds more than one connection may (one entry bigger than that goes
//    alone);
//  - over the total ceiling: the connections that would take the longest to take what they hold, at
//    the rate they take, are closed until the rest holds under three quarters of it. Connections
//    closed already, whose sockets still hold bytes for a client that may read them before the close,
//    are ended first.
import type { Outbox } from './outbox.ts';

export interface StreamLimits {
  /** --max-stream-buffer-bytes (0: no limit). */
  maxBuffered: number;
  /** --max-stream-lag, in milliseconds. */
  maxLagMs: number;
  /** --max-stream-connection-bytes (0: no limit). */
  maxConnectionBytes: number;
  /** --max-stream-total-bytes (0: no limit). */
  maxTotalBytes: number;
}

/** Why a connection goes: the metrics' `reason`, and the close reason its client reads. */
export interface Verdict {
  box: Outbox;
  reason: 'slow' | 'backlog';
  message: string;
}

const duration = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/** A take rate below this counts as this (a client that takes nothing is not infinitely slow, only the slowest). */
const MIN_RATE = 1;

export class StreamBudget {
  readonly limits: StreamLimits;
  private readonly boxes = new Set<Outbox>();
  /** The entries waiting in every outbox, in bytes (kept as they change). */
  private pending = 0;
  /** What the sockets held at the last sweep, and what was handed to them since. */
  private socketBytes = 0;

  constructor(limits: StreamLimits) { this.limits = limits; }

  /** Told every change of an outbox's waiting bytes. */
  readonly onPending = (delta: number): void => { this.pending += delta; };

  /** Told what was handed to a socket (it stays counted until the next sweep sees it taken). */
  handed(bytes: number): void { this.socketBytes += bytes; }

  add(box: Outbox): void { this.boxes.add(box); }
  remove(box: Outbox): void { this.boxes.delete(box); }

  /** What all connections hold, as last measured (waiting entries exactly, sockets at the last sweep and since). */
  get total(): number { return this.pending + this.socketBytes; }

  /** Behind: over its buffer limit and lagging (see the rules above). */
  behind(box: Outbox, now: number): Verdict | undefined {
    const { maxBuffered, maxLagMs } = this.limits;
    const oldest = box.oldestAt;
    if (maxBuffered <= 0 || oldest === undefined || now - oldest <= maxLagMs || box.held <= maxBuffered) return undefined;
    return { box, reason: 'slow', message: `too slow: over ${maxBuffered} bytes unsent; resume from your last id` };
  }

  /** Over its own ceiling, with more than one entry waiting. */
  overConnection(box: Outbox): Verdict | undefined {
    const max = this.limits.maxConnectionBytes;
    if (max <= 0 || box.length <= 1 || box.held <= max) return undefined;
    return { box, reason: 'backlog', message: `too slow: over ${max} bytes owed to this connection; resume from your last id` };
  }

  /** Whether all connections together hold more than the total ceiling. */
  overTotal(): boolean {
    return this.limits.maxTotalBytes > 0 && this.total > this.limits.maxTotalBytes;
  }

  /**
   * The connections to end so the rest hold under three quarters of the total ceiling: closing ones
   * (their `closing` is set) first, then the slowest open ones (returned as verdicts).
   */
  shed(): { ending: Outbox[]; verdicts: Verdict[] } {
    const max = this.limits.maxTotalBytes;
    const target = (max * 3) / 4;
    // what the sockets hold now (the rates are left to the sweep, which measures them over its period)
    this.countSockets((box) => box.sink.bufferedBytes);
    let total = this.total;
    const ending: Outbox[] = [];
    const verdicts: Verdict[] = [];
    const open: Array<{ box: Outbox; held: number; drain: number }> = [];
    for (const box of this.boxes) {
      const held = box.held;
      if (held === 0) continue;
      if (box.closing) {
        if (total > target) {
          ending.push(box);
          total -= held;
        }
      } else {
        open.push({ box, held, drain: held / Math.max(box.takeRate, MIN_RATE) });
      }
    }
    open.sort((a, b) => b.drain - a.drain);
    for (const { box, held } of open) {
      if (total <= target) break;
      verdicts.push({ box, reason: 'backlog', message: `too slow: streams hold over ${max} bytes, the slowest go; resume from your last id` });
      total -= held;
    }
    return { ending, verdicts };
  }

  /** The periodic look: measures every connection and names those too slow by the lag rules. */
  sweep(now: number): Verdict[] {
    this.countSockets((box) => box.measure(now));
    const out: Verdict[] = [];
    const { maxLagMs } = this.limits;
    for (const box of this.boxes) {
      if (box.closing) continue;
      const behind = this.behind(box, now);
      if (behind !== undefined) out.push(behind);
      else if (box.stalledSince !== undefined && box.waiting && now - box.stalledSince > maxLagMs) {
        out.push({ box, reason: 'slow', message: `too slow: took nothing for ${duration(maxLagMs)}; resume from your last id` });
      }
    }
    return out;
  }

  /** What every socket holds, as `read` gives it for each connection. */
  private countSockets(read: (box: Outbox) => number): void {
    let sockets = 0;
    for (const box of this.boxes) sockets += read(box);
    this.socketBytes = sockets;
  }
}
